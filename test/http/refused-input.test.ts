// Input that must be refused, not accepted or silently changed: invalid UTF-8, control characters in names,
// `__proto__` keys, two file parts in one upload.
import { beforeAll, expect, test } from "bun:test";
import { type Harness, harness, signUp } from "../helpers";

let h: Harness;
let u: Awaited<ReturnType<typeof signUp>>;

beforeAll(async () => {
  h = await harness();
  u = await signUp(h);
});

test("invalid UTF-8 in a JSON body is 400 invalid_json, not a name full of U+FFFD", async () => {
  const bytes = new Uint8Array([...new TextEncoder().encode('{"product_code":"general","name":"caf'), 0xe9, ...new TextEncoder().encode('"}')]);
  const r = await h.call("POST", "/v1/workflows", { token: u.liveKey, raw: bytes, headers: { "content-type": "application/json" } });
  expect(r.status).toBe(400);
  expect(r.body.error.code).toBe("invalid_json");
  expect(r.body.error.message).toContain("UTF-8");
});

test.each([
  ["a NUL", "essays\u0000"],
  ["an escape", "\u001b[31mred"],
  ["a DEL", "x\u007f"],
])("a name with %s is 400 naming it", async (_what, name) => {
  const r = await h.call("POST", "/v1/workflows", { token: u.liveKey, body: { product_code: "general", name } });
  expect(r.status).toBe(400);
  expect(r.body.error).toMatchObject({ code: "validation_error", param: "name" });
});

test("a __proto__ key anywhere in a body (here in run metadata) is refused, not dropped", async () => {
  const w = await h.call("POST", "/v1/workflows", { token: u.liveKey, body: { product_code: "general", name: "p" } });
  const raw = `{"input_documents":["doc_x"],"metadata":{"__proto__":{"admin":true},"student":"A"}}`;
  const r = await h.call("POST", `/v1/workflows/${w.body.id}/runs`, { token: u.liveKey, raw, headers: { "content-type": "application/json" } });
  expect(r.status).toBe(400);
  expect(r.body.error.code).toBe("validation_error");
  expect(r.body.error.message).toContain("__proto__");
});

test("two file parts in one reference upload are 400 naming the part, and nothing is stored", async () => {
  const form = new FormData();
  form.set("name", "Rubric");
  form.append("file", new File(["# One"], "one.md", { type: "text/markdown" }));
  form.append("file", new File(["# Two"], "two.md", { type: "text/markdown" }));
  const r = await h.call("POST", "/v1/reference-documents", { token: u.liveKey, raw: form });
  expect(r.status).toBe(400);
  expect(r.body.error).toMatchObject({ code: "validation_error", param: "file" });
  expect((await h.call("GET", "/v1/reference-documents", { token: u.liveKey })).body.data).toEqual([]);
});
