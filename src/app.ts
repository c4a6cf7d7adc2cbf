// Builds the Elysia app from a Context: request ids, the one error mapper, OpenAPI + offline docs, every module's routes.
import { Elysia } from "elysia";
import type { Context } from "./context";
import { callerOf } from "./http/auth-guard";
import { discardUnreadBody, readJsonBody } from "./http/body";
import { mapError } from "./http/errors";
import { openApiRoutes } from "./http/openapi";
import { base62 } from "./lib/ids";
import { jit } from "./lib/jit";
import { requestLine } from "./lib/log";
import { adminRoutes } from "./modules/admin";
import { authRoutes } from "./modules/auth";
import { consoleRoutes } from "./modules/console";
import { documentRoutes } from "./modules/documents";
import { healthRoutes } from "./modules/health";
import { keyRoutes } from "./modules/keys";
import { metricsRoutes } from "./modules/metrics";
import { objectRoutes } from "./modules/objects";
import { productRoutes } from "./modules/products";
import { promptTemplateRoutes } from "./modules/prompt-templates";
import { referenceDocumentRoutes } from "./modules/reference-documents";
import { runRoutes } from "./modules/runs";
import { usageRoutes } from "./modules/usage";
import { webhookRoutes } from "./modules/webhooks";
import { workflowRoutes } from "./modules/workflows";

function jsonResponse(status: number, body: unknown, headers: Record<string, unknown>) {
  const h = new Headers();
  for (const [k, v] of Object.entries(headers)) if (v !== undefined) h.set(k, String(v));
  h.set("content-type", "application/json");
  return new Response(JSON.stringify(body), { status, headers: h });
}

/** The request log line and the HTTP metrics, after the response is sent (never on the request's own path). */
function observer(ctx: Context) {
  const arrived = new WeakMap<Request, number>();
  const { httpRequests, httpDuration } = ctx.metrics;
  const metricsOn = ctx.config.metrics !== null;
  return {
    arrive: (request: Request) => arrived.set(request, performance.now()),
    answered(request: Request, route: string | undefined, status: number, requestId: unknown) {
      const seconds = (performance.now() - (arrived.get(request) ?? performance.now())) / 1000;
      const pattern = route || "(unmatched)";
      if (metricsOn) {
        httpRequests.inc({ method: request.method, route: pattern, status });
        httpDuration.observe({ method: request.method, route: pattern }, seconds);
      }
      if (!ctx.log.isLevelEnabled("info")) return;
      const caller = callerOf(request);
      requestLine(ctx.log, {
        requestId: String(requestId),
        method: request.method,
        route: pattern,
        status,
        durationMs: Math.round(seconds * 100_000) / 100,
        keyId: caller?.kind === "key" ? caller.keyId : undefined,
        userId: caller?.userId,
        workspaceId: caller?.workspaceId,
      });
    },
  };
}

const statusOf = (set: { status?: number | string }, response: unknown) =>
  response instanceof Response ? response.status : typeof set.status === "number" ? set.status : 200;

export function createApp(ctx: Context) {
  const observe = observer(ctx);
  let parsesItself: Set<string> | null = null;
  const selfParsing = () =>
    (parsesItself ??= new Set(
      app.routes.filter((r) => JSON.stringify((r.hooks as { parse?: unknown })?.parse ?? "").includes('"none"')).map((r) => `${r.method} ${r.path}`),
    ));
  // encodeSchema off: our responses are built in their final shape; TypeBox Encode on every answer (run through
  // t.Integer's string-to-number transform) cost a fifth of a GET. Responses are still checked against their schema.
  const app = new Elysia({ normalize: true, encodeSchema: false })
    .onRequest(({ request, set }) => {
      set.headers["x-request-id"] = `req_${base62(20)}`;
      observe.arrive(request);
      jit.noteRequest(request);
    })
    .onAfterResponse(({ request, route, set, responseValue }) =>
      observe.answered(request, route, statusOf(set, responseValue), set.headers["x-request-id"]),
    )
    // Every body is read by us, never by Elysia's default parsers: JSON only, size-capped while streaming, depth-capped.
    // Routes that read their own body (uploads, multipart forms) declare parse: "none" and are left alone.
    .onParse(({ request, route }) => (selfParsing().has(`${request.method} ${route}`) ? null : readJsonBody(request)))
    .onError(async ({ code, error, set, request }) => {
      const requestId = String(set.headers["x-request-id"] ?? `req_${base62(20)}`);
      const mapped = mapError(code, error, requestId, request.url);
      if (mapped.status >= 500) ctx.log.error({ err: error, request_id: requestId }, "internal error");
      set.status = mapped.status;
      // The client may still be sending: read its body away (bounded) so it reads this answer, not a reset. Past the
      // bound the connection is closed after the answer; left open, Bun would go on reading the body without end.
      const drained = await discardUnreadBody(request);
      const headers = { ...set.headers, ...mapped.headers, "x-request-id": requestId, ...(drained ? {} : { connection: "close" }) };
      return jsonResponse(mapped.status, mapped.body, headers);
    })
    .use(healthRoutes(ctx))
    .use(metricsRoutes(ctx))
    .use(authRoutes(ctx))
    .use(keyRoutes(ctx))
    .use(productRoutes(ctx))
    .use(promptTemplateRoutes(ctx))
    .use(webhookRoutes(ctx))
    .use(objectRoutes(ctx))
    .use(documentRoutes(ctx))
    .use(referenceDocumentRoutes(ctx))
    .use(workflowRoutes(ctx))
    .use(runRoutes(ctx))
    .use(usageRoutes(ctx))
    .use(adminRoutes(ctx))
    .use(consoleRoutes());
  // Registered last and built lazily from app.routes, so the document covers every route above.
  app.use(openApiRoutes(() => app, ctx.config.publicUrl));
  return app;
}

export type App = ReturnType<typeof createApp>;
