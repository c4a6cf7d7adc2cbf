// A property-based fuzzer driven by the OpenAPI document: for every operation, random and malformed path parameters,
// query strings, headers and bodies (JSON of the documented shape with wrong values, random JSON, broken JSON, random
// multipart parts, random bytes), sent as one tenant through the real HTTP server. Properties: never a 5xx; every
// error is the error body with its request id; the server stays healthy; the other tenant's data does not change.
// CI runs a fixed seed and a bounded number of cases; `bun run bench/fuzz.ts` runs many more with a random seed.
import { afterAll, beforeAll, expect, test } from "bun:test";
import fc from "fast-check";
import { loadConfig } from "../../src/config";
import { type Running, startServer } from "../../src/server";
import { tempDir } from "../helpers";

const SEED = Number(process.env.FUZZ_SEED ?? 20261124);
const RUNS = Number(process.env.FUZZ_RUNS ?? 1500);

type Operation = { method: string; path: string; params: string[]; query: string[]; bodyFields: string[] };

let server: Running;
let base: string;
const tokens: Record<"a" | "b", { session: string; key: string }> = { a: { session: "", key: "" }, b: { session: "", key: "" } };
const ids: string[] = []; // real ids of both tenants: the fuzzer should try the other tenant's ids too
let operations: Operation[] = [];

async function call(
  method: string,
  path: string,
  init: { token?: string | null; headers?: Record<string, string>; body?: RequestInit["body"] } = {},
) {
  const headers: Record<string, string> = { ...init.headers };
  if (init.token) headers.authorization = `Bearer ${init.token}`;
  const res = await fetch(`${base}${path}`, { method, headers, body: init.body });
  const text = await res.text();
  return { status: res.status, text, headers: res.headers };
}

async function json(method: string, path: string, token: string | null, body?: unknown) {
  const r = await call(method, path, {
    token,
    headers: { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return JSON.parse(r.text) as Record<string, any>;
}

/** What tenant B owns, as the API shows it to B: must be the same before and after A's fuzzing. */
async function snapshotOfB() {
  const t = tokens.b.session;
  const lists = await Promise.all(
    ["/workflows", "/runs?limit=100", "/webhook-endpoints", "/reference-documents", "/keys"].map((p) => json("GET", p, t)),
  );
  const balance = await json("GET", "/usage/balance", t);
  // last_used_at moves with B's own reads and download links are signed afresh on each read; the rest must stay put.
  return JSON.stringify([lists, balance])
    .replace(/"last_used_at":("[^"]*"|null)/g, "")
    .replace(/\?expires=[^"]*/g, "")
    .replace(/"expires_at":"[^"]*"/g, "");
}

beforeAll(async () => {
  server = await startServer(
    loadConfig({
      ASSAY_LOG_LEVEL: "silent",
      ASSAY_DATA_DIR: tempDir("assay-fuzz-"),
      ASSAY_PORT: "0",
      ASSAY_ADMIN_EMAIL: "root@example.com",
      ASSAY_ADMIN_PASSWORD: "fuzz-password",
    }),
  );
  base = `${server.url}/v1`;
  const root = (await json("POST", "/auth/login", null, { email: "root@example.com", password: "fuzz-password" })).token;
  const { createUser } = await import("../../src/modules/auth/service");
  for (const who of ["a", "b"] as const) {
    await createUser(server.ctx.db, server.ctx.clock, server.ctx.config, { email: `${who}@example.com`, password: "tenant-password" });
    const session = (await json("POST", "/auth/login", null, { email: `${who}@example.com`, password: "tenant-password" })).token;
    const key = (await json("POST", "/keys", session, { name: who })).token;
    tokens[who] = { session, key };
    const wf = await json("POST", "/workflows", key, { product_code: "general", name: `${who} workflow` });
    const hook = await json("POST", "/webhook-endpoints", key, { url: "http://127.0.0.1:9/hook" });
    const doc = await json("POST", "/documents", key, { filename: "a.txt", mime_type: "text/plain" });
    await fetch(doc.upload_url.replace(/^http:\/\/[^/]+/, server.url), { method: "PUT", headers: { "content-type": "text/plain" }, body: "text" });
    await json("POST", `/documents/${doc.id}/complete`, key);
    const run = await json("POST", `/workflows/${wf.id}/runs`, key, { input_documents: [doc.id] });
    ids.push(wf.id, hook.id, doc.id, run.id);
    // Settled before the snapshot: a run finishing in the background is a change of B's own.
    for (let i = 0; i < 200 && (await json("GET", `/runs/${run.id}`, key)).status !== "succeeded"; i++) await Bun.sleep(10);
  }
  expect(root).toStartWith("sess_");
  const doc = JSON.parse((await call("GET", "/openapi.json")).text);
  for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, any>>)) {
    for (const [method, op] of Object.entries(item)) {
      if (path === "/v1/auth/logout") continue; // would end the fuzzing session itself
      const parameters = (op.parameters ?? []) as { name: string; in: string }[];
      const schema = op.requestBody?.content?.["application/json"]?.schema;
      operations.push({
        method: method.toUpperCase(),
        path: path.replace(/^\/v1/, ""),
        params: parameters.filter((p) => p.in === "path").map((p) => p.name),
        query: parameters.filter((p) => p.in === "query").map((p) => p.name),
        bodyFields: Object.keys(schema?.properties ?? {}),
      });
    }
  }
  operations = operations.filter((o) => o.path !== "/openapi.json");
});

afterAll(() => server?.stop());

const text = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.constantFrom("", " ", "null", "-1", "0", "1e309", "NaN", "../../etc/passwd", "%00", "\u0000", "💥", "<script>", "a".repeat(300)),
);
const jsonish = fc.oneof(fc.jsonValue({ maxDepth: 3 }), text, fc.integer(), fc.double(), fc.boolean(), fc.constant(null));

test(`the fuzzer: ${RUNS} random requests across every operation never get a 5xx or a body without a request id`, async () => {
  const before = await snapshotOfB();
  const failures: string[] = [];
  const statuses = new Map<number, number>();
  const request = fc.record({
    op: fc.constantFrom(...operations),
    param: fc.oneof(fc.constantFrom(...ids), text),
    query: fc.array(fc.tuple(text, text), { maxLength: 3 }),
    knownQuery: fc.option(text, { nil: undefined }),
    auth: fc.constantFrom("session", "key", "none", "garbage"),
    bodyKind: fc.constantFrom("documented", "random-json", "broken-json", "multipart", "bytes", "none"),
    fieldValues: fc.array(jsonish, { minLength: 12, maxLength: 12 }),
    contentType: fc.constantFrom(
      "application/json",
      "multipart/form-data; boundary=X",
      "text/plain",
      "application/x-www-form-urlencoded",
      "",
      "application/json; charset=latin1",
    ),
    bytes: fc.uint8Array({ maxLength: 2000 }),
  });
  await fc
    .assert(
      fc.asyncProperty(request, async (r) => {
        const path = r.op.path.replace(/\{[^}]+\}/g, () => encodeURIComponent(r.param));
        const search = new URLSearchParams(r.query);
        if (r.knownQuery !== undefined && r.op.query.length) search.set(r.op.query[0], r.knownQuery);
        const token = r.auth === "session" ? tokens.a.session : r.auth === "key" ? tokens.a.key : r.auth === "garbage" ? "svc_live_garbage" : null;
        let body: RequestInit["body"] | undefined;
        let contentType = r.contentType;
        if (r.bodyKind === "documented") {
          body = JSON.stringify(Object.fromEntries(r.op.bodyFields.map((f, i) => [f, r.fieldValues[i % 12]])));
          contentType = "application/json";
        } else if (r.bodyKind === "random-json") body = JSON.stringify(r.fieldValues[0]);
        else if (r.bodyKind === "broken-json") body = `{"a": ${JSON.stringify(r.fieldValues[1]).slice(0, 7)}`;
        else if (r.bodyKind === "multipart") {
          const form = new FormData();
          form.set(String(r.fieldValues[2]).slice(0, 20) || "file", new File([r.bytes], "f.bin", { type: "application/octet-stream" }));
          form.set("name", String(r.fieldValues[3]));
          body = form;
          contentType = "";
        } else if (r.bodyKind === "bytes") body = r.bytes;
        const method = r.op.method;
        const headers: Record<string, string> = contentType ? { "content-type": contentType } : {};
        const res = await call(method, `${path}${search.size ? `?${search}` : ""}`, { token, headers, body: method === "GET" ? undefined : body });
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        const requestId = res.headers.get("x-request-id");
        let problem: string | null = null;
        if (res.status >= 500) problem = `status ${res.status}`;
        else if (!requestId?.startsWith("req_")) problem = "no x-request-id";
        else if (res.status >= 400) {
          try {
            const error = JSON.parse(res.text).error;
            if (typeof error?.code !== "string" || error.request_id !== requestId) problem = "error body without code or request id";
          } catch {
            problem = "error answer is not JSON";
          }
        }
        if (problem) failures.push(`${method} ${path}?${search} auth=${r.auth} body=${r.bodyKind}: ${problem}: ${res.text.slice(0, 200)}`);
        return problem === null;
      }),
      { seed: SEED, numRuns: RUNS, endOnFailure: true },
    )
    .catch(() => {});
  console.log(
    `fuzz seed ${SEED}: ${[...statuses]
      .sort(([a], [b]) => a - b)
      .map(([s, n]) => `${s}×${n}`)
      .join(" ")}`,
  );
  expect(failures).toEqual([]);
  expect(statuses.size).toBeGreaterThan(5); // the cases reach past authentication into validation and handlers

  // Still healthy, and the other tenant's data is as it was.
  const t0 = performance.now();
  expect((await call("GET", "/health")).status).toBe(200);
  expect(performance.now() - t0).toBeLessThan(200);
  expect(await snapshotOfB()).toBe(before);
}, 120_000);
