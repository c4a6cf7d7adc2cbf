// The seed catalogs are well formed: the API serves them as-is and runs price from them.
import { describe, expect, test } from "bun:test";
import { products, promptTemplates } from "../../src/catalog/index";
import productsJson from "../../src/catalog/products.json";
import templatesJson from "../../src/catalog/prompt-templates.json";

const CATEGORIES = ["education", "legal", "grading", "hr", "general"];
const FORMATS = ["json", "markdown", "docx", "xlsx", "csv"];
const POLICIES = ["auto", "gemini-file-search", "deepseek-1m-fulltext", "hybrid"];

describe("products.json", () => {
  test("has the five product codes workflows name, each once", () => {
    const codes = productsJson.map((p) => p.code);
    expect(new Set(codes).size).toBe(codes.length);
    for (const code of CATEGORIES) expect(codes).toContain(code);
  });

  test("statuses are valid and include beta and deprecated; general is active", () => {
    const statuses = productsJson.map((p) => p.status);
    for (const s of statuses) expect(["active", "beta", "deprecated"]).toContain(s);
    expect(statuses).toContain("beta");
    expect(statuses).toContain("deprecated");
    expect(productsJson.find((p) => p.code === "general")?.status).toBe("active");
  });

  test("every product has a positive price, so a live run always charges more than 0", () => {
    for (const p of productsJson) {
      expect(p.pricing.credits_per_run).toBeGreaterThan(0);
      expect(p.pricing.credits_per_page).toBeGreaterThanOrEqual(0);
      expect(p.pricing.credits_per_1k_chars).toBeGreaterThanOrEqual(0);
      for (const n of Object.values(p.pricing)) expect(Number.isFinite(n)).toBe(true);
    }
  });

  test("fields a buyer and the API rely on are filled and valid", () => {
    for (const p of productsJson) {
      expect(p.code).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
      expect(p.name.length).toBeGreaterThan(0);
      expect(p.description.length).toBeGreaterThan(40);
      expect(POLICIES).toContain(p.default_model_policy);
      expect(new Date(p.created_at).toISOString()).toBe(p.created_at);
    }
  });

  test("the typed export is the same data", () => {
    expect(products).toEqual(productsJson as typeof products);
  });
});

describe("prompt-templates.json", () => {
  test("has at least 12 templates with unique, well-formed ids and slugs", () => {
    expect(templatesJson.length).toBeGreaterThanOrEqual(12);
    const ids = templatesJson.map((t) => t.id);
    const slugs = templatesJson.map((t) => t.slug);
    expect(new Set(ids).size).toBe(ids.length);
    expect(new Set(slugs).size).toBe(slugs.length);
    for (const id of ids) expect(id).toMatch(/^tpl_[0-9A-Za-z]{16}$/);
    for (const slug of slugs) expect(slug).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
  });

  test("every category has at least two templates and no template has another category", () => {
    for (const t of templatesJson) expect(CATEGORIES).toContain(t.category);
    for (const c of CATEGORIES) expect(templatesJson.filter((t) => t.category === c).length).toBeGreaterThanOrEqual(2);
  });

  test("every seed is a substantial prompt with a checklist and things to flag", () => {
    for (const t of templatesJson) {
      expect(t.user_prompt_seed.length).toBeGreaterThan(200);
      // The generator draws its checks from the bullets under "Check:" and "Flag:".
      const [, checks = "", flags = ""] = t.user_prompt_seed.split(/^(?:Check|Flag):$/m);
      expect(checks.match(/^- /gm)?.length ?? 0).toBeGreaterThanOrEqual(3);
      expect(flags.match(/^- /gm)?.length ?? 0).toBeGreaterThanOrEqual(1);
    }
  });

  test("titles, formats and locale are valid", () => {
    for (const t of templatesJson) {
      expect(t.title.length).toBeGreaterThan(0);
      expect(t.description === null || typeof t.description === "string").toBe(true);
      if (t.recommended_output_format !== null) expect(FORMATS).toContain(t.recommended_output_format);
      expect(t.locale).toBe("en");
    }
    expect(promptTemplates).toEqual(templatesJson);
  });
});
