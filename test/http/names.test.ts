// One name rule for every resource that has a name: trimmed first, then 1 to the field's maximum, else 400 naming it.
import { beforeAll, describe, expect, test } from "bun:test";
import { type Harness, harness, signUp } from "../helpers";

let h: Harness;
let u: Awaited<ReturnType<typeof signUp>>;

beforeAll(async () => {
  h = await harness();
  u = await signUp(h);
});

function referenceForm(name: string) {
  const f = new FormData();
  f.set("name", name);
  f.set("file", new File(["# Rubric\n\n1. Clarity (5 points)"], "rubric.md", { type: "text/markdown" }));
  return f;
}

const create: Record<string, (name: string) => Promise<{ status: number; body: any }>> = {
  workflow: (name) => h.call("POST", "/v1/workflows", { token: u.liveKey, body: { product_code: "general", name } }),
  "reference document": (name) => h.call("POST", "/v1/reference-documents", { token: u.liveKey, raw: referenceForm(name) }),
  "API key": (name) => h.call("POST", "/v1/keys", { token: u.session, body: { name } }),
};

describe.each(Object.keys(create))("the name of a %s", (kind) => {
  test("is stored trimmed", async () => {
    const r = await create[kind]("  Year 10 essays \t");
    expect(r.status).toBe(201);
    expect(r.body.name).toBe("Year 10 essays");
  });

  test("blank after trimming is 400 validation_error naming it", async () => {
    const r = await create[kind]("   ");
    expect(r.status).toBe(400);
    expect(r.body.error).toMatchObject({ code: "validation_error", param: "name" });
  });
});

test("renaming follows the same rule", async () => {
  const w = await create.workflow("First");
  const patch = (name: string) => h.call("PATCH", `/v1/workflows/${w.body.id}`, { token: u.liveKey, body: { name } });
  expect((await patch("  Second  ")).body.name).toBe("Second");
  expect((await patch("  ")).body.error.param).toBe("name");
  expect((await patch("x".repeat(201))).body.error.param).toBe("name");
});
