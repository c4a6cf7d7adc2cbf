// Catalog endpoints: products and prompt templates, read with any valid key; prompt generation needs workflows:write.
import { beforeAll, describe, expect } from "bun:test";
import { type Harness, harness, scenarios, signUp } from "../helpers";

let h: Harness;
let u: Awaited<ReturnType<typeof signUp>>;
let noScopes: string;

beforeAll(async () => {
  h = await harness();
  u = await signUp(h);
  noScopes = (await h.call("POST", "/v1/keys", { token: u.session, body: { name: "none", scopes: [] } })).body.token;
});

describe("products", () => {
  scenarios(
    () => h,
    [
      {
        name: "lists the five product families with pricing",
        method: "GET",
        path: "/v1/products",
        token: () => u.liveKey,
        status: 200,
        check: ({ body }) => {
          const codes = body.data.map((p: any) => p.code);
          for (const code of ["education", "legal", "grading", "hr", "general"]) expect(codes).toContain(code);
          const statuses = new Set(body.data.map((p: any) => p.status));
          expect(statuses).toContain("beta");
          expect(statuses).toContain("deprecated");
          for (const p of body.data) {
            expect(p.pricing.credits_per_run).toBeGreaterThan(0);
            expect(Object.keys(p)).toEqual(expect.arrayContaining(["code", "name", "description", "status", "default_model_policy", "created_at"]));
          }
        },
      },
      { name: "a key with no scopes may read the catalog", method: "GET", path: "/v1/products", token: () => noScopes, status: 200 },
      { name: "gets one product", method: "GET", path: "/v1/products/legal", token: () => u.testKey, status: 200, expect: { code: "legal" } },
      {
        name: "unknown product is 404",
        method: "GET",
        path: "/v1/products/astrology",
        token: () => u.liveKey,
        status: 404,
        expect: { error: { code: "not_found" } },
      },
      { name: "needs a credential", method: "GET", path: "/v1/products", status: 401, expect: { error: { code: "unauthenticated" } } },
    ],
  );
});

describe("prompt templates", () => {
  scenarios(
    () => h,
    [
      {
        name: "lists at least 12 templates across the five categories",
        method: "GET",
        path: "/v1/prompt-templates",
        token: () => u.liveKey,
        status: 200,
        check: ({ body }) => {
          expect(body.data.length).toBeGreaterThanOrEqual(12);
          expect(new Set(body.data.map((t: any) => t.category))).toEqual(new Set(["education", "legal", "grading", "hr", "general"]));
          for (const t of body.data) expect(t.id).toMatch(/^tpl_/);
        },
      },
      {
        name: "generates a prompt from a goal without a model",
        method: "POST",
        path: "/v1/prompt-templates/generate",
        token: () => u.liveKey,
        body: { goal: "Screen CVs for a senior backend engineer role", category: "hr", output_format: "xlsx" },
        status: 200,
        check: ({ body }) => {
          expect(body.user_prompt).toContain("senior backend engineer");
          expect(body.recommended_output_format).toBe("xlsx");
        },
      },
      {
        name: "goal over 2000 characters",
        method: "POST",
        path: "/v1/prompt-templates/generate",
        token: () => u.liveKey,
        body: { goal: "x".repeat(2001) },
        status: 400,
        expect: { error: { code: "validation_error", param: "goal" } },
      },
      {
        name: "unknown category",
        method: "POST",
        path: "/v1/prompt-templates/generate",
        token: () => u.liveKey,
        body: { goal: "g", category: "astrology" },
        status: 400,
        expect: { error: { code: "validation_error", param: "category" } },
      },
      {
        name: "generation needs workflows:write",
        method: "POST",
        path: "/v1/prompt-templates/generate",
        token: () => noScopes,
        body: { goal: "g" },
        status: 403,
        expect: { error: { code: "insufficient_scope" } },
      },
    ],
  );
});
