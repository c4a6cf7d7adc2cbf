// Webhook endpoints over the API: creation (secret once), URL rules, events, list/read/update/delete, scopes, tenancy.
import { beforeAll, describe, expect, test } from "bun:test";
import { webhookEndpoints } from "../../src/db/schema";
import { deliveryTarget, isForbiddenAddress, urlProblem } from "../../src/modules/webhooks/url-policy";
import { type Harness, harness, scenarios, signUp, TestClock } from "../helpers";

let h: Harness;
let u: Awaited<ReturnType<typeof signUp>>;
let other: Awaited<ReturnType<typeof signUp>>;
let readOnly: string;
let runsOnly: string;

const ALL = ["run.succeeded", "run.failed", "run.canceled", "reference_document.ready"];
const PUBLIC_FIELDS = ["created_at", "events", "id", "object", "status", "url"];

async function create(body: unknown, token = u.liveKey) {
  const r = await h.call("POST", "/v1/webhook-endpoints", { token, body });
  expect(r.status).toBe(201);
  return r.body;
}

beforeAll(async () => {
  h = await harness();
  u = await signUp(h);
  other = await signUp(h);
  readOnly = (await h.call("POST", "/v1/keys", { token: u.session, body: { name: "ro", scopes: ["webhooks:read"] } })).body.token;
  runsOnly = (await h.call("POST", "/v1/keys", { token: u.session, body: { name: "runs", scopes: ["runs:read"] } })).body.token;
});

describe("POST /v1/webhook-endpoints", () => {
  const post = (name: string, body: unknown, status: number, expectBody?: Record<string, unknown>) => ({
    name,
    method: "POST",
    path: "/v1/webhook-endpoints",
    token: () => u.liveKey,
    body,
    status,
    expect: expectBody,
  });
  const refused = (name: string, url: string) => post(name, { url }, 400, { error: { code: "validation_error", param: "url" } });

  scenarios(
    () => h,
    [
      {
        ...post("creates an active endpoint subscribed to all four events, with a secret shown once", { url: "https://example.com/hooks" }, 201),
        check: ({ body }) => {
          expect(body).toMatchObject({ object: "webhook_endpoint", url: "https://example.com/hooks", status: "active", events: ALL });
          expect(body.id).toMatch(/^whk_/);
          expect(body.secret).toMatch(/^whsec_[0-9A-Za-z]{32}$/);
          expect(body.warning).toContain("once");
        },
      },
      {
        ...post(
          "keeps a chosen subset of events, without duplicates",
          { url: "https://example.com/h", events: ["run.failed", "run.failed", "reference_document.ready"] },
          201,
        ),
        expect: { events: ["run.failed", "reference_document.ready"] },
      },
      post("an empty list is refused (omit events for all four)", { url: "https://example.com/h", events: [] }, 400, {
        error: { code: "validation_error", param: "events" },
      }),
      post("an unknown event type names its index", { url: "https://example.com/h", events: ["run.succeeded", "run.exploded"] }, 400, {
        error: { code: "validation_error", param: "events.1" },
      }),
      post("url is required", { events: ["run.failed"] }, 400, { error: { code: "validation_error", param: "url" } }),
      refused("url must be absolute", "/hooks"),
      refused("url must be http(s)", "ftp://example.com/hooks"),
      // (Before: accepted, and the password shown in every listing.)
      refused("url may not carry a user name or password", "http://user:pass@example.com/hooks"),
      refused("javascript: is not a URL we call", "javascript:alert(1)"),
      refused("the link-local metadata address is refused", "http://169.254.169.254/latest/meta-data/"),
      refused("any 169.254.0.0/16 address is refused", "https://169.254.10.20:8443/hook"),
      refused("the same address written as a decimal number is refused", "http://2852039166/"),
      refused("the same address written in hex is refused", "http://0xa9.0xfe.0xa9.0xfe/"),
      refused("IPv6 link-local is refused", "http://[fe80::1]/hook"),
      refused("IPv6 link-local anywhere in fe80::/10 is refused", "http://[febf::1]/hook"),
      refused("IPv4-mapped IPv6 of a link-local address is refused", "http://[::ffff:169.254.169.254]/"),
      refused("Google's metadata host is refused", "http://metadata.google.internal/computeMetadata/v1/"),
      refused("a metadata host with a trailing dot is refused", "http://Metadata.Google.Internal./"),
      refused("Alibaba's metadata address is refused", "http://100.100.100.200/latest/meta-data/"),
      post("private addresses are allowed (on-premises receivers)", { url: "http://10.0.0.5:9000/hook" }, 201),
      post("192.168 addresses are allowed", { url: "http://192.168.1.10/hook" }, 201),
      post("localhost is allowed", { url: "http://localhost:3000/hook" }, 201),
      {
        name: "a key with only webhooks:read cannot create",
        method: "POST",
        path: "/v1/webhook-endpoints",
        token: () => readOnly,
        body: { url: "https://example.com/h" },
        status: 403,
        expect: { error: { code: "insufficient_scope" } },
        check: ({ body }) => expect(body.error.message).toContain("webhooks:write"),
      },
      {
        name: "no credentials",
        method: "POST",
        path: "/v1/webhook-endpoints",
        body: { url: "https://example.com/h" },
        status: 401,
        expect: { error: { code: "unauthenticated" } },
        // The scheme it wants, as RFC 6750 asks.
        check: ({ headers }) => expect(headers.get("www-authenticate")).toBe('Bearer realm="assay"'),
      },
    ],
  );
});

describe("URL rules", () => {
  test.each([
    ["169.254.0.1", true],
    ["169.253.255.255", false],
    ["169.255.0.1", false],
    ["fe80::abcd", true],
    ["FE9F:0:0:0:0:0:0:1", true],
    ["fec0::1", false],
    ["::ffff:a9fe:a9fe", true],
    ["::ffff:10.0.0.1", false],
    ["fd00:ec2::254", true],
    ["10.1.2.3", false],
    ["::1", false],
    ["127.0.0.1", false],
    ["64:ff9b::a9fe:a9fe", true],
    ["64:ff9b::169.254.169.254", true],
    ["64:ff9b::a00:1", false],
    ["2002:a9fe:a9fe::", true],
    ["2002:a00:1::", false],
  ])("%s forbidden = %p", (ip, forbidden) => {
    expect(isForbiddenAddress(ip)).toBe(forbidden);
  });

  test("plain HTTP is pinned to the address that was checked (no second lookup to rebind); HTTPS keeps its name", async () => {
    const pinned = await deliveryTarget("http://localhost:8123/hooks?x=1", 2000);
    const urls = "urls" in pinned ? pinned.urls.map((u) => new URL(u)) : [];
    expect(urls.length).toBeGreaterThan(0);
    for (const u of urls) {
      expect(u.hostname).toMatch(/^(127\.0\.0\.1|\[::1\])$/);
      expect(u.pathname + u.search).toBe("/hooks?x=1");
    }
    expect(pinned).toMatchObject({ host: "localhost:8123" });
    expect(await deliveryTarget("https://localhost:8443/h", 2000)).toEqual({ urls: ["https://localhost:8443/h"] });
    expect(await deliveryTarget("http://10.1.2.3/h", 2000)).toEqual({ urls: ["http://10.1.2.3/h"] });
    expect(await deliveryTarget("http://169.254.169.254/latest", 2000)).toHaveProperty("problem");
  });

  test("every checked address is a target, in the resolver's order; one forbidden address refuses the URL", async () => {
    const resolve = async () => [
      { address: "2001:db8::1", family: 6 },
      { address: "192.0.2.7", family: 4 },
    ];
    expect(await deliveryTarget("http://hooks.example:9000/x", 2000, resolve)).toEqual({
      urls: ["http://[2001:db8::1]:9000/x", "http://192.0.2.7:9000/x"],
      host: "hooks.example:9000",
    });
    const sneaky = async () => [
      { address: "192.0.2.7", family: 4 },
      { address: "169.254.169.254", family: 4 },
    ];
    expect(await deliveryTarget("http://hooks.example/x", 2000, sneaky)).toHaveProperty("problem");
  });

  test("the message names the reason without echoing internals", () => {
    expect(urlProblem("http://169.254.169.254/")).toContain("link-local");
    expect(urlProblem("https://hooks.example.com/x?y=1")).toBeNull();
  });
});

describe("reading endpoints never shows the secret", () => {
  test("GET list: newest first, exactly the public fields, paginated with limit and cursor", async () => {
    const clock = new TestClock();
    const h2 = await harness({}, clock);
    const v = await signUp(h2);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      clock.advance(1000);
      ids.push((await h2.call("POST", "/v1/webhook-endpoints", { token: v.liveKey, body: { url: `https://example.com/${i}` } })).body.id);
    }
    const all = await h2.call("GET", "/v1/webhook-endpoints", { token: v.liveKey });
    expect(all.status).toBe(200);
    expect(all.body.next_cursor).toBeNull();
    expect(all.body.data.map((e: any) => e.id)).toEqual([...ids].reverse());
    for (const e of all.body.data) expect(Object.keys(e).sort()).toEqual(PUBLIC_FIELDS);
    expect(all.text).not.toContain("whsec_");

    const first = await h2.call("GET", "/v1/webhook-endpoints?limit=2", { token: v.liveKey });
    expect(first.body.data.map((e: any) => e.id)).toEqual([ids[2], ids[1]]);
    expect(first.body.next_cursor).toBeString();
    const second = await h2.call("GET", `/v1/webhook-endpoints?limit=2&cursor=${first.body.next_cursor}`, { token: v.liveKey });
    expect(second.body).toEqual({ data: [expect.objectContaining({ id: ids[0] })], next_cursor: null });

    const tampered = await h2.call("GET", `/v1/webhook-endpoints?cursor=${first.body.next_cursor}x`, { token: v.liveKey });
    expect(tampered.status).toBe(400);
    expect(tampered.body.error.param).toBe("cursor");
    expect((await h2.call("GET", "/v1/webhook-endpoints?limit=101", { token: v.liveKey })).status).toBe(400);
  });

  test("GET one has no secret field; the secret is kept for signing", async () => {
    const created = await create({ url: "https://example.com/one" });
    const r = await h.call("GET", `/v1/webhook-endpoints/${created.id}`, { token: readOnly });
    expect(r.status).toBe(200);
    expect(Object.keys(r.body).sort()).toEqual(PUBLIC_FIELDS);
    expect(r.text).not.toContain(created.secret);
    const stored = (await h.ctx.db.select().from(webhookEndpoints)).find((e) => e.id === created.id);
    expect(stored?.secret).toBe(created.secret);
  });

  test("a key without webhooks:read cannot list", async () => {
    const r = await h.call("GET", "/v1/webhook-endpoints", { token: runsOnly });
    expect(r.status).toBe(403);
    expect(r.body.error.message).toContain("webhooks:read");
  });

  test("another workspace's endpoint is 404 everywhere and absent from its list", async () => {
    const mine = await create({ url: "https://example.com/mine" });
    for (const [method, path, body] of [
      ["GET", `/v1/webhook-endpoints/${mine.id}`, undefined],
      ["PATCH", `/v1/webhook-endpoints/${mine.id}`, { status: "disabled" }],
      ["DELETE", `/v1/webhook-endpoints/${mine.id}`, undefined],
      ["GET", `/v1/webhook-endpoints/${mine.id}/deliveries`, undefined],
    ] as const) {
      const r = await h.call(method, path, { token: other.liveKey, body });
      expect(r.status, `${method} ${path}`).toBe(404);
      expect(r.body.error.code).toBe("not_found");
    }
    const list = await h.call("GET", "/v1/webhook-endpoints?limit=100", { token: other.liveKey });
    expect(list.body.data.some((e: any) => e.id === mine.id)).toBe(false);
    expect((await h.call("GET", `/v1/webhook-endpoints/${mine.id}`, { token: u.liveKey })).body.status).toBe("active");
  });
});

describe("PATCH and DELETE", () => {
  test("PATCH changes url, events and status, and validates them like creation", async () => {
    const e = await create({ url: "https://example.com/a" });
    const path = `/v1/webhook-endpoints/${e.id}`;
    const r = await h.call("PATCH", path, { token: u.liveKey, body: { url: "https://example.com/b", events: ["run.canceled"], status: "disabled" } });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      id: e.id,
      object: "webhook_endpoint",
      url: "https://example.com/b",
      events: ["run.canceled"],
      status: "disabled",
      created_at: e.created_at,
    });
    expect((await h.call("PATCH", path, { token: u.liveKey, body: { status: "active" } })).body.status).toBe("active");

    const badUrl = await h.call("PATCH", path, { token: u.liveKey, body: { url: "http://169.254.169.254/" } });
    expect(badUrl.status).toBe(400);
    expect(badUrl.body.error.param).toBe("url");
    const badEvent = await h.call("PATCH", path, { token: u.liveKey, body: { events: ["nope"] } });
    expect(badEvent.body.error).toMatchObject({ code: "validation_error", param: "events.0" });
    const badStatus = await h.call("PATCH", path, { token: u.liveKey, body: { status: "paused" } });
    expect(badStatus.status).toBe(400);
    expect(badStatus.body.error.param).toBe("status");
    expect((await h.call("GET", path, { token: u.liveKey })).body).toMatchObject({
      url: "https://example.com/b",
      events: ["run.canceled"],
      status: "active",
    });
    expect((await h.call("PATCH", path, { token: readOnly, body: { status: "disabled" } })).status).toBe(403);
  });

  test("DELETE answers {id, object, deleted: true}; the endpoint is then gone, and no workflow names it", async () => {
    const e = await create({ url: "https://example.com/gone" });
    const path = `/v1/webhook-endpoints/${e.id}`;
    const wf = await h.call("POST", "/v1/workflows", {
      token: u.liveKey,
      body: { product_code: "general", name: "hooked", webhook_endpoint_id: e.id },
    });
    expect(wf.body.webhook_endpoint_id).toBe(e.id);
    const del = await h.call("DELETE", path, { token: u.liveKey });
    // (Before: the workflow went on naming an endpoint that answers 404.)
    expect((await h.call("GET", `/v1/workflows/${wf.body.id}`, { token: u.liveKey })).body.webhook_endpoint_id).toBeNull();
    expect(del.status).toBe(200);
    expect(del.body).toEqual({ id: e.id, object: "webhook_endpoint", deleted: true });
    expect((await h.call("GET", path, { token: u.liveKey })).status).toBe(404);
    expect((await h.call("DELETE", path, { token: u.liveKey })).status).toBe(404);
    expect((await h.call("PATCH", path, { token: u.liveKey, body: { status: "active" } })).status).toBe(404);
    const list = await h.call("GET", "/v1/webhook-endpoints?limit=100", { token: u.liveKey });
    expect(list.body.data.some((x: any) => x.id === e.id)).toBe(false);
  });

  test("unknown ids are 404", async () => {
    expect((await h.call("GET", "/v1/webhook-endpoints/whk_nope", { token: u.liveKey })).status).toBe(404);
    expect((await h.call("POST", "/v1/webhook-endpoints/whk_nope/deliveries/whd_nope/retry", { token: u.liveKey })).status).toBe(404);
  });
});
