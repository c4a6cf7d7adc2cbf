// The one error body, request ids, 404s and 500s that leak nothing.
import { describe, expect, test } from "bun:test";
import { harness, scenarios, signUp } from "../helpers";

const h = await harness();

describe("error body and request ids", () => {
  scenarios(
    () => h,
    [
      { name: "unknown route is 404 not_found", method: "GET", path: "/v1/nothing-here", status: 404, expect: { error: { code: "not_found" } } },
      { name: "unknown route is 404 even with bad credentials", method: "GET", path: "/v1/nothing-here", token: "svc_live_bogus", status: 404 },
      { name: "unknown method on a known path is 404", method: "PUT", path: "/v1/health", status: 404, expect: { error: { code: "not_found" } } },
      {
        name: "invalid JSON is 400 invalid_json",
        method: "POST",
        path: "/v1/auth/login",
        raw: '{"email": ',
        headers: { "content-type": "application/json" },
        status: 400,
        expect: { error: { code: "invalid_json" } },
      },
      {
        name: "validation error names the param and echoes nothing internal",
        method: "POST",
        path: "/v1/auth/login",
        body: { email: 5, password: "x" },
        status: 400,
        check: ({ body }) => {
          expect(body.error.code).toBe("validation_error");
          expect(body.error.param).toBe("email");
          expect(body.error.request_id).toMatch(/^req_/);
          expect(JSON.stringify(body)).not.toContain("schema");
        },
      },
    ],
  );

  test("credentials and scope are checked before the body: callers learn nothing about a request they may not make", async () => {
    const u = await signUp(h);
    const member = u.session;
    const noScope = (await h.call("POST", "/v1/keys", { token: u.session, body: { name: "none", scopes: [] } })).body.token;
    const cases: [string, string, string | undefined, unknown, number, string][] = [
      ["POST", "/v1/workflows", undefined, {}, 401, "unauthenticated"],
      ["GET", "/v1/runs?limit=0", undefined, undefined, 401, "unauthenticated"],
      ["POST", "/v1/keys", u.liveKey, {}, 401, "session_required"],
      ["POST", "/v1/admin/credits", member, { amount: "x" }, 403, "forbidden"],
      ["POST", "/v1/documents", noScope, {}, 403, "insufficient_scope"],
      ["GET", "/v1/runs?status=nope", noScope, undefined, 403, "insufficient_scope"],
    ];
    for (const [method, path, token, body, status, code] of cases) {
      const r = await h.call(method, path, { token, body });
      expect(`${method} ${path} ${r.status} ${r.body.error?.code}`).toBe(`${method} ${path} ${status} ${code}`);
    }
  });

  test("an enum error names the allowed values", async () => {
    const u = await signUp(h);
    const r = await h.call("POST", "/v1/keys", { token: u.session, body: { name: "x", mode: "prod" } });
    expect(r.body.error.param).toBe("mode");
    expect(r.body.error.message).toContain('"live", "test"');
  });

  test("the request id in the body is the one in the header", async () => {
    const r = await h.call("GET", "/v1/nothing");
    expect(r.body.error.request_id).toBe(r.headers.get("x-request-id")!);
  });

  test("every request gets a different id", async () => {
    const a = await h.call("GET", "/v1/health");
    const b = await h.call("GET", "/v1/health");
    expect(a.headers.get("x-request-id")).not.toBe(b.headers.get("x-request-id"));
  });

  test("an unexpected error is 500 internal_error with nothing internal in it", async () => {
    const hb = await harness();
    hb.app.get("/v1/boom", () => {
      throw new Error("SQLITE_CORRUPT at /var/lib/secret/assay.db: SELECT * FROM api_keys");
    });
    const r = await hb.call("GET", "/v1/boom");
    expect(r.status).toBe(500);
    expect(r.body.error.code).toBe("internal_error");
    expect(r.text).not.toContain("SQLITE");
    expect(r.text).not.toContain("/var/lib");
    expect(r.text).not.toContain("at ");
    expect(r.headers.get("x-request-id")).toBe(r.body.error.request_id);
  });

  test("successful key-authenticated responses carry the request id too", async () => {
    const u = await signUp(h);
    const r = await h.call("GET", "/v1/products", { token: u.liveKey });
    expect(r.status).toBe(200);
    expect(r.headers.get("x-request-id")).toMatch(/^req_/);
    expect(r.headers.get("x-ratelimit-limit")).toBe("600");
  });
});
