// /v1/openapi.json and /docs: the plugin's generated document, completed with our error responses and security.
import { openapi, toOpenAPISchema } from "@elysiajs/openapi";
import { type AnyElysia, type DocumentDecoration, Elysia } from "elysia";
// Embedded as files, not strings: 1.8 MB that stays on disk (in the executable) until someone opens /docs.
import swaggerCss from "swagger-ui-dist/swagger-ui.css" with { type: "file" };
import swaggerJs from "swagger-ui-dist/swagger-ui-bundle.js" with { type: "file" };
import { stubFromSchema } from "../engine/stub";
import { SECURITY_SCHEMES } from "./auth-guard";
import { ErrorBody } from "./errors";

const API_VERSION = "1.0.0";

const DESCRIPTION = `Assay evaluates documents against your rubrics and criteria, on your own machine.

Authenticate product endpoints with an API key (\`Authorization: Bearer svc_live_…\`); manage keys with a user session
(\`POST /v1/auth/login\`). Every error answers \`{"error": {"code", "message", "param"?, "request_id"}}\` and every response
carries \`X-Request-Id\`. Lists are newest first with \`limit\` (1..100, default 20) and an opaque \`next_cursor\`.`;

const ERROR_RESPONSES: Record<string, string> = {
  "400": "validation_error or invalid_json: `param` names the offending field",
  "401": "unauthenticated, session_required or invalid_credentials",
  "402": "insufficient_credits",
  "403": "insufficient_scope, forbidden, signature_invalid or url_expired",
  "404": "not_found",
  "409": "conflict, idempotency_in_progress, use_async, invalid_state or workflow_inactive",
  "413": "payload_too_large",
  "415": "unsupported_media_type",
  "422": "unprocessable_document",
  "429": "rate_limited (see Retry-After and X-RateLimit-* headers)",
  "500": "internal_error (quote the request id)",
};

const INTERNAL_PATHS = ["/docs", "/docs/assets/swagger-ui-bundle.js", "/docs/assets/swagger-ui.css", "/docs/json", "/v1/openapi.json"];

type Media = { schema?: object; example?: unknown };
type ResponseObject = { description?: string; content?: Record<string, Media> };

type Operation = {
  security?: unknown[];
  parameters?: unknown[];
  requestBody?: unknown;
  responses?: Record<string, ResponseObject>;
  "x-required-scope"?: string;
  "x-errors"?: string[];
};

/** Adds the error responses an operation can give, each pointing at the one Error schema. */
function completeOperation(path: string, op: Operation) {
  const codes = new Set<string>(["500"]);
  if (op.requestBody || op.parameters?.length) codes.add("400");
  if (op.security?.length) codes.add("401").add("429");
  if (op["x-required-scope"] || JSON.stringify(op.security ?? []).includes("session")) codes.add("403");
  if (path.includes("{")) codes.add("404");
  for (const code of op["x-errors"] ?? []) codes.add(code);
  delete op["x-errors"];
  op.responses ??= {};
  for (const code of codes) {
    op.responses[code] = {
      description: ERROR_RESPONSES[code] ?? "error",
      content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } },
    };
  }
  for (const [code, res] of Object.entries(op.responses)) {
    res.description ??= code.startsWith("2") ? "OK" : "error";
    // Every success gets an example: a deterministic value generated from its own schema.
    const media = res.content?.["application/json"];
    if (code.startsWith("2") && media?.schema && media.example === undefined) {
      try {
        media.example = stubFromSchema(media.schema, `${path} ${code}`);
      } catch {}
    }
  }
  const body = (op.requestBody as { content?: Record<string, { schema?: object; example?: unknown }> } | undefined)?.content?.["application/json"];
  if (body?.schema && body.example === undefined) {
    try {
      body.example = stubFromSchema(body.schema, `${path} request`);
    } catch {}
  }
}

/**
 * Elysia documents t.Integer as "an integer or a string holding one" (it coerces query strings); in JSON bodies and
 * responses it is only ever an integer, so the string branch is dropped.
 */
function dropNumericStrings(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(dropNumericStrings);
  if (!node || typeof node !== "object") return node;
  const obj = Object.fromEntries(Object.entries(node).map(([k, v]) => [k, dropNumericStrings(v)])) as Record<string, unknown>;
  if (Array.isArray(obj.anyOf)) {
    const branches = obj.anyOf as { type?: string; format?: string }[];
    const rest = branches.filter((b) => !(b?.type === "string" && (b.format === "integer" || b.format === "numeric")));
    if (rest.length !== obj.anyOf.length) {
      const { anyOf: _drop, ...others } = obj;
      if (rest.length === 1) {
        const { default: _d, ...kept } = others;
        return { ...kept, ...(rest[0] as object) };
      }
      return { ...others, anyOf: rest };
    }
  }
  return obj;
}

function buildOpenApiDocument(app: AnyElysia, publicUrl: string) {
  const generated = toOpenAPISchema(app, { paths: INTERNAL_PATHS, staticFile: true }, undefined, undefined, "3.1.2");
  const paths = dropNumericStrings(generated.paths) as typeof generated.paths;
  const components = generated.components;
  // Our one JSON reader is an onParse function, which the generator cannot name a media type for: it leaves such
  // bodies without content. Their schema is the route's own `body`, sent as application/json.
  const bodies = new Map<string, unknown>();
  for (const route of app.routes) {
    const body = (route.hooks as { body?: unknown } | undefined)?.body;
    if (body) bodies.set(`${route.method.toLowerCase()} ${route.path.replace(/:(\w+)/g, "{$1}")}`, body);
  }
  for (const [path, item] of Object.entries(paths as Record<string, Record<string, Operation>>)) {
    for (const [method, op] of Object.entries(item)) {
      const request = op.requestBody as { content?: Record<string, unknown> } | undefined;
      const schema = bodies.get(`${method} ${path}`);
      if (request && schema && Object.keys(request.content ?? {}).length === 0) {
        request.content = { "application/json": { schema: dropNumericStrings(JSON.parse(JSON.stringify(schema))) } };
      }
      completeOperation(path, op);
    }
  }
  return {
    openapi: "3.1.2",
    // The interface's version (spec §9: 1.0.0), not the server's (that one is in /v1/health).
    info: { title: "Assay API", version: API_VERSION, description: DESCRIPTION },
    servers: [{ url: publicUrl }],
    paths,
    components: {
      ...components,
      schemas: { ...components?.schemas, Error: ErrorBody },
      securitySchemes: SECURITY_SCHEMES,
    },
  };
}

/** The docs page (Swagger UI from the binary itself: it works with no internet) and the JSON document. */
export const openApiRoutes = (getApp: () => AnyElysia, publicUrl: string) => {
  let cached: { routes: number; json: string } | null = null;
  return new Elysia({ name: "openapi-docs" })
    .use(
      openapi({
        path: "/docs",
        specPath: "/docs/json",
        provider: "swagger-ui",
        documentation: { info: { title: "Assay API", version: API_VERSION, description: DESCRIPTION } },
        swagger: {
          url: "/v1/openapi.json",
          cdn: "/docs/assets/swagger-ui-bundle.js",
          theme: "/docs/assets/swagger-ui.css",
          autoDarkMode: false,
          // biome-ignore lint/suspicious/noExplicitAny: the plugin's type omits `url`, which its Swagger UI page still reads
        } as any,
        exclude: { paths: INTERNAL_PATHS },
      }),
    )
    .get(
      "/v1/openapi.json",
      () => {
        const app = getApp();
        if (!cached || cached.routes !== app.routes.length) {
          cached = { routes: app.routes.length, json: JSON.stringify(buildOpenApiDocument(app, publicUrl)) };
        }
        return new Response(cached.json, { headers: { "content-type": "application/json" } });
      },
      { detail: { hide: true } },
    )
    .get("/docs/assets/swagger-ui-bundle.js", () => asset(swaggerJs, "text/javascript"), { detail: { hide: true } })
    .get("/docs/assets/swagger-ui.css", () => asset(swaggerCss, "text/css"), { detail: { hide: true } });
};

function asset(file: string, type: string) {
  return new Response(Bun.file(file), { headers: { "content-type": `${type}; charset=utf-8`, "cache-control": "public, max-age=86400" } });
}

/**
 * A route's OpenAPI detail with what Elysia's DocumentDecoration type does not model: TypeBox schemas in a hand-written
 * requestBody, and our `x-errors` extension (statuses the route answers besides the usual ones; completeOperation
 * turns them into documented responses). The one cast lives here.
 */
export function routeDocs(detail: { summary: string; description?: string; "x-errors"?: string[]; [key: string]: unknown }): DocumentDecoration {
  return detail as DocumentDecoration;
}
