// Routes: POST /v1/workflows/:workflow_id/runs (JSON or legacy multipart, Idempotency-Key, sync mode),
// GET /v1/runs, GET /v1/runs/:run_id, POST /v1/runs/:run_id/cancel, GET /v1/runs/:run_id/output.
import { Elysia, t } from "elysia";
import type { Context } from "../../context";
import { authGuard } from "../../http/auth-guard";
import { checkSchema, parseJson, readBodyCapped, readJsonBody } from "../../http/body";
import type { Auth } from "../../http/caller";
import { ApiError } from "../../http/errors";
import { routeDocs } from "../../http/openapi";
import { canonicalJson } from "../../lib/canonical-json";
import { sha256Hex } from "../../lib/ids";
import { createDocumentFromBytes, discardDocuments } from "../documents/service";
import { type Reservation, withIdempotency } from "../idempotency/service";
import { CreateRunBody, ListRunsQuery, Run, RunOutputFile, type RunRow } from "./model";
import { cancelRun, checkRunRequest, createRun, getRun, listRuns, outputFileOf, runJson, visibleMode, waitForRun } from "./service";

const LEGACY_MULTIPART_MAX = 4 * 1024 * 1024;

interface ParsedCreate {
  body: { mode?: "sync" | "async"; input_documents: string[]; metadata?: Record<string, unknown> };
  files: File[];
  requestHash: string;
}

/** "Same body" for multipart: the same parts (names, values, file names, types and bytes), whatever the boundary. */
async function multipartHash(form: FormData): Promise<string> {
  const parts: unknown[] = [];
  for (const [name, value] of form.entries() as Iterable<[string, string | File]>) {
    if (typeof value === "string") parts.push([name, value]);
    else parts.push([name, value.name, value.type, new Bun.CryptoHasher("sha256").update(await value.arrayBuffer()).digest("hex")]);
  }
  return sha256Hex(JSON.stringify(parts));
}

/** JSON form, or the legacy multipart form (files[] ≤ 4 MB in all; metadata and input_documents as JSON strings). */
async function parseCreateRequest(request: Request): Promise<ParsedCreate> {
  const contentType = request.headers.get("content-type") ?? "";
  const type = contentType.toLowerCase();
  if (type.startsWith("multipart/form-data")) {
    const raw = await readBodyCapped(request, LEGACY_MULTIPART_MAX, "multipart request (legacy inline files are limited to 4 MB in all)");
    let form: FormData;
    try {
      form = (await new Response(raw, { headers: { "content-type": contentType } }).formData()) as FormData;
    } catch {
      throw new ApiError(400, "validation_error", "The multipart body cannot be parsed");
    }
    const jsonField = (name: string) => {
      const v = form.get(name);
      if (v === null) return undefined;
      if (typeof v !== "string") throw new ApiError(400, "validation_error", `${name} must be a text field holding JSON`, name);
      try {
        return parseJson(v);
      } catch {
        throw new ApiError(400, "validation_error", `${name} is not valid JSON (or nests too deep)`, name);
      }
    };
    const files = [...form.getAll("files[]"), ...form.getAll("files")].filter((f): f is File => typeof f !== "string");
    const fields = { mode: form.get("mode") ?? undefined, metadata: jsonField("metadata"), input_documents: jsonField("input_documents") ?? [] };
    const body = checkSchema(t.Object({ ...CreateRunBody.properties, input_documents: t.Array(t.String(), { maxItems: 50 }) }), fields);
    if (!files.length && !body.input_documents.length) {
      throw new ApiError(400, "validation_error", "attach files[] parts or name input_documents", "files[]");
    }
    return { body, files, requestHash: await multipartHash(form) };
  }
  if (!type.startsWith("application/json")) {
    throw new ApiError(415, "unsupported_media_type", "Send application/json (or the legacy multipart/form-data form)");
  }
  const value = await readJsonBody(request);
  const body = checkSchema(CreateRunBody, value);
  return { body, files: [], requestHash: sha256Hex(canonicalJson(value)) };
}

async function createHandler(ctx: Context, auth: Auth, workflowId: string, parsed: ParsedCreate, reservation: Reservation | null) {
  const request = { workflowId, mode: parsed.body.mode, metadata: parsed.body.metadata };
  // Inline files become documents only for a request that can succeed; if it still fails, they are removed again.
  if (parsed.files.length) await checkRunRequest(ctx, auth, request);
  const created: string[] = [];
  let run: RunRow;
  try {
    for (const file of parsed.files) {
      const doc = await createDocumentFromBytes(ctx, {
        workspaceId: auth.workspaceId,
        filename: file.name || "upload",
        mimeType: file.type || null,
        bytes: new Uint8Array(await file.arrayBuffer()),
      });
      created.push(doc.id);
    }
    // The 202 answer is stored with the run and its hold, in one transaction: a crash after it replays, never re-runs.
    run = await createRun(ctx, auth, { ...request, inputDocuments: [...parsed.body.input_documents, ...created] }, async (t, row) => {
      await reservation?.store(t, 202, runJson(ctx, row));
    });
  } catch (err) {
    await discardDocuments(ctx, auth.workspaceId, created);
    throw err;
  }
  if (run.mode !== "sync") return { status: 202, body: runJson(ctx, run) };
  const finished = await waitForRun(ctx, auth.workspaceId, run.id, ctx.config.syncTimeoutMs);
  const terminal = !["queued", "running"].includes(finished.status);
  return { status: terminal ? 200 : 202, body: runJson(ctx, finished) };
}

export const runRoutes = (ctx: Context) =>
  new Elysia({ prefix: "/v1", tags: ["Runs"] })
    .use(authGuard(ctx))
    .post(
      "/workflows/:workflow_id/runs",
      async ({ auth, params, request, set }) => {
        const idempotencyKey = request.headers.get("idempotency-key") ?? undefined;
        const parsed = await parseCreateRequest(request);
        const outcome = await withIdempotency(
          ctx,
          idempotencyKey,
          {
            credential: auth.kind === "key" ? auth.keyId : `user:${auth.userId}`,
            method: "POST",
            path: `/v1/workflows/${params.workflow_id}/runs`,
            requestHash: parsed.requestHash,
          },
          (reservation) => createHandler(ctx, auth, params.workflow_id, parsed, reservation),
        );
        set.status = outcome.status;
        if (outcome.replayed) set.headers["idempotent-replayed"] = "true";
        return outcome.body as typeof Run.static;
      },
      {
        auth: "runs:write",
        parse: "none",
        response: { 200: Run, 202: Run },
        detail: routeDocs({
          summary: "Create a run",
          description:
            "JSON body (recommended) or the legacy multipart form (`files[]` parts, 4 MB in all, with `metadata` and `input_documents` as JSON strings). " +
            "Answers 202 with the queued run; with mode `sync` it waits up to ASSAY_SYNC_TIMEOUT_MS and answers 200 with the finished run (or 202 if time ran out). " +
            "An `Idempotency-Key` header makes retries safe: the same key and body replay the first answer with `Idempotent-Replayed: true`.",
          "x-errors": ["402", "409", "413", "415", "422"],
          parameters: [
            { name: "workflow_id", in: "path", required: true, schema: { type: "string" } },
            {
              name: "Idempotency-Key",
              in: "header",
              required: false,
              schema: { type: "string", maxLength: 255 },
              description: "A UUID is advised; kept 24 hours",
            },
          ],
          requestBody: {
            required: true,
            content: {
              "application/json": {
                schema: CreateRunBody,
                example: { input_documents: ["doc_4Gh8Jk2Lm9Np3Qr7St1Uv5Wx"], metadata: { student: "A. Lovelace" } },
              },
              "multipart/form-data": {
                schema: {
                  type: "object",
                  properties: {
                    "files[]": { type: "array", items: { type: "string", format: "binary" } },
                    metadata: { type: "string", description: "a JSON object" },
                    input_documents: { type: "string", description: "a JSON array of document ids" },
                    mode: { type: "string", enum: ["async", "sync"] },
                  },
                },
              },
            },
          },
        }),
      },
    )
    .get("/runs", ({ auth, query }) => listRuns(ctx, auth.workspaceId, visibleMode(auth), query), {
      auth: "runs:read",
      query: ListRunsQuery,
      response: { 200: t.Object({ data: t.Array(Run), next_cursor: t.Union([t.String(), t.Null()]) }) },
      detail: { summary: "List runs (newest first)" },
    })
    .get("/runs/:run_id", async ({ auth, params }) => runJson(ctx, await getRun(ctx.db, auth.workspaceId, params.run_id, visibleMode(auth))), {
      auth: "runs:read",
      response: { 200: Run },
      detail: { summary: "Get a run" },
    })
    .post(
      "/runs/:run_id/cancel",
      async ({ auth, params }) => runJson(ctx, await cancelRun(ctx, auth.workspaceId, params.run_id, visibleMode(auth))),
      {
        auth: "runs:write",
        response: { 200: Run },
        detail: routeDocs({ summary: "Cancel a queued run (its credits are released in full)", "x-errors": ["409"] }),
      },
    )
    .get(
      "/runs/:run_id/output",
      async ({ auth, params }) => {
        const run = await getRun(ctx.db, auth.workspaceId, params.run_id, visibleMode(auth));
        const file = outputFileOf(ctx, run);
        if (!file) throw new ApiError(409, "invalid_state", `The run is ${run.status}; its output exists once it has succeeded`);
        return file;
      },
      {
        auth: "runs:read",
        response: { 200: RunOutputFile },
        detail: routeDocs({ summary: "A fresh signed download URL for the run's output file", "x-errors": ["409"] }),
      },
    );
