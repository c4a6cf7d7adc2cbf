// Builds the Elysia app from a Context: request ids, the one error mapper, OpenAPI + offline docs, every module's routes.
import { openapi } from "@elysiajs/openapi";
import { Elysia } from "elysia";
import swaggerCss from "swagger-ui-dist/swagger-ui.css" with { type: "text" };
import swaggerJs from "swagger-ui-dist/swagger-ui-bundle.js" with { type: "text" };
import pkg from "../package.json";
import type { Context } from "./context";
import { SECURITY_SCHEMES } from "./http/auth-guard";
import { ErrorBody, errorJson, mapError } from "./http/errors";
import { base62 } from "./lib/ids";
import { authRoutes } from "./modules/auth";
import { healthRoutes } from "./modules/health";
import { keyRoutes } from "./modules/keys";
import { productRoutes } from "./modules/products";
import { promptTemplateRoutes } from "./modules/prompt-templates";

const DESCRIPTION = `Assay evaluates documents against your rubrics and criteria, on your own machine.

Authenticate product endpoints with an API key (\`Authorization: Bearer svc_live_…\`); manage keys with a user session
(\`POST /v1/auth/login\`). Every error answers \`{"error": {"code", "message", "param"?, "request_id"}}\` and every response
carries \`X-Request-Id\`. Lists are newest first with \`limit\` (1..100, default 20) and an opaque \`next_cursor\`.`;

function jsonResponse(status: number, body: unknown, headers: Record<string, unknown>) {
  const h = new Headers();
  for (const [k, v] of Object.entries(headers)) if (v !== undefined) h.set(k, String(v));
  h.set("content-type", "application/json");
  return new Response(JSON.stringify(body), { status, headers: h });
}

export function createApp(ctx: Context) {
  return (
    new Elysia({ normalize: true })
      .onRequest(({ set }) => {
        set.headers["x-request-id"] = `req_${base62(20)}`;
      })
      .onError(({ code, error, set }) => {
        const requestId = String(set.headers["x-request-id"] ?? `req_${base62(20)}`);
        const mapped = mapError(code, error, requestId);
        return jsonResponse(mapped.status, mapped.body, { ...set.headers, ...mapped.headers, "x-request-id": requestId });
      })
      .use(
        openapi({
          path: "/docs",
          specPath: "/v1/openapi.json",
          provider: "swagger-ui",
          swagger: { cdn: "/docs/assets/swagger-ui-bundle.js", theme: "/docs/assets/swagger-ui.css", autoDarkMode: false },
          exclude: { paths: ["/docs/assets/swagger-ui-bundle.js", "/docs/assets/swagger-ui.css"] },
          documentation: {
            info: { title: "Assay API", version: pkg.version, description: DESCRIPTION },
            servers: [{ url: ctx.config.publicUrl }],
            components: {
              securitySchemes: SECURITY_SCHEMES as any,
              schemas: { Error: ErrorBody as any },
            },
          },
        }),
      )
      // The docs UI's assets come from the binary itself, so /docs works in an air-gapped network.
      .get("/docs/assets/swagger-ui-bundle.js", () => new Response(swaggerJs, { headers: { "content-type": "text/javascript; charset=utf-8", "cache-control": "public, max-age=86400" } }), { detail: { hide: true } })
      .get("/docs/assets/swagger-ui.css", () => new Response(swaggerCss, { headers: { "content-type": "text/css; charset=utf-8", "cache-control": "public, max-age=86400" } }), { detail: { hide: true } })
      .use(healthRoutes(ctx))
      .use(authRoutes(ctx))
      .use(keyRoutes(ctx))
      .use(productRoutes(ctx))
      .use(promptTemplateRoutes(ctx))
  );
}

export type App = ReturnType<typeof createApp>;
export { errorJson };
