// The NUL character in request text: refused or harmless on either backend (PostgreSQL's text type cannot hold it),
// never a 5xx.
import { beforeAll, expect, test } from "bun:test";
import { type Harness, harness, signUp } from "../helpers";

let h: Harness;
let key: string;
beforeAll(async () => {
  h = await harness();
  key = (await signUp(h)).liveKey;
});

test.each([
  ["a login email", "POST", "/v1/auth/login", { email: "a\u0000@b.example", password: "p\u0000ssword-long" }],
  ["a webhook URL", "POST", "/v1/webhook-endpoints", { url: "https://example.com/\u0000" }],
  ["a workflow prompt", "POST", "/v1/workflows", { product_code: "general", name: "nul", prompt: "grade\u0000this" }],
  ["a document filename", "POST", "/v1/documents", { filename: "a\u0000.txt", mime_type: "text/plain" }],
])("%s holding NUL is answered without a 5xx", async (_what, method, path, body) => {
  const reply = await h.call(method, path, { token: path.includes("login") ? undefined : key, body });
  expect(reply.status).toBeLessThan(500);
});

test("a NUL in a path id or a query is a 4xx, not a 5xx", async () => {
  expect([400, 404]).toContain((await h.call("GET", "/v1/runs/run_%00", { token: key })).status);
  expect((await h.call("GET", "/v1/workflows?cursor=%00", { token: key })).status).toBeLessThan(500);
});
