// The OpenAPI document: valid 3.1, every route the server answers is in it, errors and security documented; /docs works offline.
import { describe, expect, test } from "bun:test";
import { harness } from "../helpers";

const h = await harness();
// Pages and files, not API operations: the docs UI and the web console (GET / redirects to it).
const INTERNAL = new Set([
  "/docs",
  "/docs/json",
  "/docs/assets/swagger-ui-bundle.js",
  "/docs/assets/swagger-ui.css",
  "/v1/openapi.json",
  "/",
  "/console",
  "/console/*",
]);

describe("GET /v1/openapi.json", async () => {
  const doc = (await h.call("GET", "/v1/openapi.json")).body;

  test("is an OpenAPI 3.1 document with info, servers, paths and components", () => {
    expect(doc.openapi).toMatch(/^3\.1\.\d+$/);
    expect(doc.info.title).toBe("Assay API");
    expect(doc.info.version).toBe("1.0.0");
    expect(doc.servers[0].url).toBe("http://localhost");
    expect(doc.components.securitySchemes.apiKey).toMatchObject({ type: "http", scheme: "bearer" });
    expect(doc.components.securitySchemes.session).toMatchObject({ type: "http", scheme: "bearer" });
    expect(doc.components.schemas.Error.properties.error.required).toEqual(["code", "message", "request_id"]);
  });

  test("passes an independent OpenAPI 3.1 schema validator", async () => {
    const { Validator } = await import("@seriousme/openapi-schema-validator");
    const result = await new Validator().validate(structuredClone(doc));
    if (!result.valid) console.error(JSON.stringify(result.errors).slice(0, 2000));
    expect(result.valid).toBe(true);
  });

  test("every success response and JSON request body has an example that its schema accepts", async () => {
    const { compileSchema } = await import("../../src/engine/schema");
    for (const [path, item] of Object.entries<any>(doc.paths)) {
      for (const [method, op] of Object.entries<any>(item)) {
        const media = [
          ...Object.entries<any>(op.responses)
            .filter(([c]) => c.startsWith("2"))
            .map(([, r]) => r.content?.["application/json"]),
          op.requestBody?.content?.["application/json"],
        ].filter((m) => m?.schema);
        for (const m of media) {
          expect(m.example, `${method} ${path}`).toBeDefined();
          expect(compileSchema(m.schema).validate(m.example), `${method} ${path}`).toBeNull();
        }
      }
    }
  });

  test("every route the server answers is documented, with its method", () => {
    const routes = h.app.routes.filter((r: { path: string }) => !INTERNAL.has(r.path));
    expect(routes.length).toBeGreaterThan(5);
    for (const r of routes) {
      const path = r.path.replace(/:(\w+)/g, "{$1}").replace(/\/$/, "");
      expect(doc.paths[path], `${r.method} ${path}`).toBeDefined();
      expect(doc.paths[path][r.method.toLowerCase()], `${r.method} ${path}`).toBeDefined();
    }
  });

  test("every operation has a success response with a schema, and errors that point at the Error schema", () => {
    for (const [path, item] of Object.entries<any>(doc.paths)) {
      for (const [method, op] of Object.entries<any>(item)) {
        const codes = Object.keys(op.responses);
        const success = codes.find((c) => c.startsWith("2"));
        expect(success, `${method} ${path}`).toBeDefined();
        expect(op.responses[success!].content?.["application/json"]?.schema, `${method} ${path}`).toBeDefined();
        expect(op.responses["500"].content["application/json"].schema.$ref).toBe("#/components/schemas/Error");
        for (const p of path.match(/\{\w+\}/g) ?? []) expect(codes, `${method} ${path} ${p}`).toContain("404");
        if (op.security) expect(codes).toContain("401");
        if (op.requestBody) expect(codes).toContain("400");
      }
    }
  });

  test("protected operations name their security scheme; health does not", () => {
    expect(doc.paths["/v1/keys"].post.security).toEqual([{ session: [] }]);
    expect(doc.paths["/v1/products"].get.security).toEqual([{ apiKey: [] }, { session: [] }]);
    expect(doc.paths["/v1/health"].get.security).toBeUndefined();
    expect(doc.paths["/v1/prompt-templates/generate"].post["x-required-scope"]).toBe("workflows:write");
  });

  test("every $ref resolves inside the document", () => {
    const refs = JSON.stringify(doc).match(/"\$ref":"[^"]+"/g) ?? [];
    for (const ref of refs) {
      const target = ref.slice(8, -1);
      expect(target.startsWith("#/")).toBe(true);
      let node: any = doc;
      for (const part of target.slice(2).split("/")) node = node?.[part];
      expect(node, target).toBeDefined();
    }
  });
});

describe("/docs", () => {
  test("serves the docs page whose scripts and styles come from this server, not a CDN", async () => {
    const page = await h.call("GET", "/docs");
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toContain("text/html");
    const srcs = [...page.text.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]);
    expect(srcs.length).toBeGreaterThan(0);
    for (const src of srcs) {
      expect(src.startsWith("/")).toBe(true);
      const asset = await h.call("GET", src);
      expect(asset.status).toBe(200);
      expect(asset.text.length).toBeGreaterThan(1000);
    }
    expect(page.text).toContain("/v1/openapi.json");
    expect(page.text).not.toMatch(/https?:\/\/(?!localhost)/);
  });
});
