// Runs: quote + hold + insert in one transaction, read, cancel, wait (sync mode), and the state machine's terminal moves.
import { and, count, eq, inArray, sql } from "drizzle-orm";
import type { ProductPricing } from "../../catalog";
import type { Context } from "../../context";
import { type Db, insertRow, prepared, tx } from "../../db/client";
import { documents, runs, workflows } from "../../db/schema";
import type { Auth } from "../../http/caller";
import { ApiError } from "../../http/errors";
import { listPage } from "../../http/pagination";
import { newId } from "../../lib/ids";
import { Waiters } from "../../lib/waiters";
import { signedDownloadUrl } from "../../storage";
import { getProduct } from "../products/service";
import { chargeHold, holdCredits, refundCharge, releaseHold, roundCredits } from "../usage/service";
import { type EventType, notifyWebhooks, recordEvent } from "../webhooks/events";
import { getWorkflow } from "../workflows/service";
import { type KeyMode, type RunRow, type RunStatus, toRunJson } from "./model";

const METADATA_MAX_BYTES = 16 * 1024;
/** Runs a workspace may have waiting at once; more is a client loop gone wrong, not work anyone will wait for. */
const MAX_QUEUED_RUNS = 1000;
const MAX_INPUTS = 50;

/** quoted_credits: the product's price per run plus, per input, its pages (paged formats) or its started 1,000 characters. */
function quoteCredits(pricing: ProductPricing, inputs: { pageCount: number | null; textChars: number | null }[]): number {
  let total = pricing.credits_per_run;
  for (const doc of inputs) {
    if (doc.pageCount && doc.pageCount > 0) total += doc.pageCount * pricing.credits_per_page;
    else total += Math.max(1, Math.ceil((doc.textChars ?? 0) / 1000)) * pricing.credits_per_1k_chars;
  }
  return roundCredits(total);
}

export interface CreateRunInput {
  workflowId: string;
  mode?: "sync" | "async";
  inputDocuments: string[];
  metadata?: Record<string, unknown>;
}

/**
 * The checks that need no input document: metadata size, the workflow (exists, active) and the mode. createRun runs
 * them again inside its transaction (passing its handle as `db`); the legacy multipart form runs them first, before
 * storing any file.
 */
export async function checkRunRequest(ctx: Context, auth: Auth, input: Omit<CreateRunInput, "inputDocuments">, db: Db = ctx.db) {
  const metadata = input.metadata ?? {};
  if (JSON.stringify(metadata).length > METADATA_MAX_BYTES) {
    throw new ApiError(400, "validation_error", `metadata must be at most ${METADATA_MAX_BYTES} bytes of JSON`, "metadata");
  }
  const workflow = await getWorkflow(db, auth.workspaceId, input.workflowId);
  if (workflow.status !== "active") {
    throw new ApiError(409, "workflow_inactive", `Workflow ${workflow.id} is ${workflow.status}; set it active to run it`);
  }
  const mode = input.mode ?? (workflow.defaultMode as "sync" | "async");
  if (mode === "sync" && ctx.config.syncTimeoutMs === 0) {
    throw new ApiError(409, "use_async", "Synchronous runs are disabled on this server; use mode async and poll or use a webhook");
  }
  return { workflow, mode, metadata };
}

/**
 * Validates, quotes, holds credits (live keys) and inserts the queued run, all in one transaction; `inTransaction`
 * writes what must commit with the run (its stored idempotent response), through the transaction's handle `t`.
 */
export async function createRun(
  ctx: Context,
  auth: Auth,
  input: CreateRunInput,
  inTransaction?: (t: Db, run: RunRow) => Promise<void>,
): Promise<RunRow> {
  const { db, clock } = ctx;
  if (!input.inputDocuments.length) throw new ApiError(400, "validation_error", "input_documents must name at least one document", "input_documents");
  if (input.inputDocuments.length > MAX_INPUTS) {
    throw new ApiError(400, "validation_error", `a run takes at most ${MAX_INPUTS} input documents (files[] included)`, "input_documents");
  }
  input.inputDocuments.forEach((id, i) => {
    if (input.inputDocuments.indexOf(id) !== i) throw new ApiError(400, "validation_error", `${id} is listed twice`, `input_documents.${i}`);
  });
  const row = await tx(
    db,
    async (t) => {
      const { workflow, mode, metadata } = await checkRunRequest(ctx, auth, input, t);
      const ids = input.inputDocuments;
      // The statements of every creation are prepared once (per number of inputs): building them cost more than running them.
      const docs = await prepared(
        t,
        `run-inputs-${ids.length}`,
        () =>
          t
            .select({ id: documents.id, status: documents.status, pageCount: documents.pageCount, textChars: documents.textChars })
            .from(documents)
            .where(
              and(
                eq(documents.workspaceId, sql.placeholder("workspaceId")),
                inArray(
                  documents.id,
                  ids.map((_, i) => sql.placeholder(`d${i}`)),
                ),
              ),
            ),
        { workspaceId: auth.workspaceId, ...Object.fromEntries(ids.map((id, i) => [`d${i}`, id])) },
      );
      const byId = new Map(docs.map((d) => [d.id, d]));
      input.inputDocuments.forEach((id, i) => {
        const doc = byId.get(id);
        if (!doc) throw new ApiError(400, "validation_error", `${id} is not a document of this workspace`, `input_documents.${i}`);
        if (doc.status !== "extracted") {
          throw new ApiError(
            400,
            "validation_error",
            `${id} is not completed: upload its bytes and call POST /v1/documents/${id}/complete`,
            `input_documents.${i}`,
          );
        }
      });
      const [queued] = await prepared(
        t,
        "runs-queued-in-workspace",
        () =>
          t
            .select({ n: count() })
            .from(runs)
            .where(and(eq(runs.workspaceId, sql.placeholder("workspaceId")), eq(runs.status, "queued"))),
        { workspaceId: auth.workspaceId },
      );
      if ((queued?.n ?? 0) >= MAX_QUEUED_RUNS) {
        throw new ApiError(429, "rate_limited", `This workspace already has ${MAX_QUEUED_RUNS} runs waiting; wait for some to finish`, undefined, {
          "retry-after": "60",
        });
      }
      const quoted = quoteCredits(
        getProduct(workflow.productCode).pricing,
        docs, // every id was found above
      );
      const now = clock.now();
      const run: RunRow = {
        id: newId("run"),
        workspaceId: auth.workspaceId,
        workflowId: workflow.id,
        apiKeyId: auth.kind === "key" ? auth.keyId : null,
        keyMode: auth.mode,
        status: "queued",
        mode,
        quotedCredits: quoted,
        chargedCredits: null,
        inputDocuments: ids,
        metadata,
        outputFormat: workflow.outputFormat,
        output: null,
        outputObjectKey: null,
        outputMimeType: null,
        usage: null,
        error: null,
        attempts: 0,
        lockedUntil: null,
        createdAt: now,
        startedAt: null,
        finishedAt: null,
      };
      await insertRow(t, runs, run);
      if (run.keyMode === "live") await holdCredits(t, clock, auth.workspaceId, run.id, quoted);
      await inTransaction?.(t, run);
      return run;
    },
    { lock: auth.workspaceId },
  );
  ctx.runtime.scheduler.wake("runs");
  return row;
}

async function findRun(db: Db, runId: string): Promise<RunRow | undefined> {
  const found = await prepared(
    db,
    "run-by-id",
    () =>
      db
        .select()
        .from(runs)
        .where(eq(runs.id, sql.placeholder("id"))),
    { id: runId },
  );
  return found[0];
}

/** Which runs a caller sees: an API key only those of its own mode (test and live data stay apart), a session both. */
export function visibleMode(auth: Auth): KeyMode | null {
  return auth.kind === "key" ? auth.mode : null;
}

/** A run of the workspace; with `mode`, only a run of that mode (another mode's run is not found, as Stripe does). */
export async function getRun(db: Db, workspaceId: string, runId: string, mode: KeyMode | null = null): Promise<RunRow> {
  // The endpoint every client polls: one statement per mode filter, prepared once.
  const found = await prepared(
    db,
    mode ? "run-in-workspace-mode" : "run-in-workspace",
    () =>
      db
        .select()
        .from(runs)
        .where(
          and(
            eq(runs.id, sql.placeholder("id")),
            eq(runs.workspaceId, sql.placeholder("workspaceId")),
            mode ? eq(runs.keyMode, sql.placeholder("mode")) : undefined,
          ),
        ),
    { id: runId, workspaceId, ...(mode ? { mode } : {}) },
  );
  const row = found[0];
  if (!row) throw new ApiError(404, "not_found", `No run ${runId}`);
  return row;
}

/** The run's output file as a fresh signed download URL (1 hour), or null before success. */
export function outputFileOf(ctx: Context, row: RunRow) {
  if ((row.status !== "succeeded" && row.status !== "refunded") || !row.outputObjectKey) return null;
  const ext = row.outputObjectKey.split(".").pop();
  const { url, expires_at } = signedDownloadUrl(ctx, row.outputObjectKey, {
    filename: `${row.id}.${ext}`,
    contentType: row.outputMimeType ?? "application/octet-stream",
  });
  return { url, expires_at, mime_type: row.outputMimeType ?? "application/octet-stream" };
}

export function runJson(ctx: Context, row: RunRow) {
  return toRunJson(row, ctx.config.publicUrl, outputFileOf(ctx, row));
}

/** `mode` is the caller's own (visibleMode); `q.mode` the filter a session may ask for. */
export async function listRuns(
  ctx: Context,
  workspaceId: string,
  mode: KeyMode | null,
  q: { limit?: number; cursor?: string; workflow_id?: string; status?: RunStatus; mode?: KeyMode; created_after?: string; created_before?: string },
) {
  // A key sees its own mode only: asking for the other one finds nothing.
  if (mode && q.mode && mode !== q.mode) return { data: [], next_cursor: null };
  const filter = { workspaceId, keyMode: mode ?? q.mode, workflowId: q.workflow_id, status: q.status };
  const created = { from: instant(q.created_after, "created_after"), to: instant(q.created_before, "created_before") };
  return listPage(ctx.db, ctx.config.secret, runs, filter, q, (row) => runJson(ctx, row), created);
}

/** An ISO 8601 date (UTC midnight) or date-time as epoch ms; 400 naming `param` for anything else. */
function instant(value: string | undefined, param: string): number | undefined {
  if (value === undefined) return undefined;
  const ms = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2}))?$/.test(value) ? Date.parse(value) : Number.NaN;
  if (Number.isNaN(ms)) throw new ApiError(400, "validation_error", `${param} must be an ISO 8601 date or date-time`, param);
  return ms;
}

/**
 * Moves a run to a terminal state with its credit movement and its event, in one transaction.
 * `from` (and `attempt`, for a worker) guard the move: if the run is no longer there, nothing changes and null is returned.
 */
const productOf = async (ctx: Context, workflowId: string) =>
  (await ctx.db.select({ product: workflows.productCode }).from(workflows).where(eq(workflows.id, workflowId)).limit(1))[0]?.product ?? "unknown";

export async function finishRun(
  ctx: Context,
  runId: string,
  from: RunStatus,
  to: "succeeded" | "failed" | "canceled",
  changes: Partial<RunRow> = {},
  attempt?: number,
): Promise<RunRow | null> {
  const { db, clock } = ctx;
  const finished = await tx(
    db,
    async (t) => {
      const row = await findRun(t, runId);
      if (!row || row.status !== from) return null;
      // A worker finishes only the attempt it ran: after recovery re-queued the run, a later attempt owns it.
      if (attempt !== undefined && row.attempts !== attempt) return null;
      const now = clock.now();
      let charged = 0;
      if (to === "succeeded") charged = row.keyMode === "live" ? await chargeHold(t, clock, row.workspaceId, row.id) : 0;
      else await releaseHold(t, clock, row.workspaceId, row.id);
      const next: RunRow = { ...row, ...changes, status: to, chargedCredits: charged, finishedAt: now, lockedUntil: null };
      await t
        .update(runs)
        .set({ ...changes, status: to, chargedCredits: charged, finishedAt: now, lockedUntil: null })
        .where(eq(runs.id, runId));
      await recordEvent(t, clock, {
        workspaceId: row.workspaceId,
        type: `run.${to}` as EventType,
        subjectId: row.id,
        data: { run: runJson(ctx, next) },
      });
      return next;
    },
    { lock: runId },
  );
  if (finished) {
    notifyWebhooks(ctx);
    runWaiters.wake(runId);
    const seconds = ((finished.finishedAt ?? 0) - (finished.startedAt ?? finished.createdAt)) / 1000;
    ctx.metrics.runDuration.observe({ status: to }, seconds);
    if (ctx.config.metrics) ctx.metrics.runsFinished.inc({ status: to, product: await productOf(ctx, finished.workflowId) });
    if (finished.chargedCredits) ctx.metrics.creditsCharged.inc(finished.chargedCredits);
    ctx.log[to === "failed" ? "warn" : "info"](
      {
        run_id: runId,
        workspace_id: finished.workspaceId,
        status: to,
        ...(finished.error ? { code: finished.error.code } : {}),
        credits: finished.chargedCredits,
        duration_ms: Math.round(seconds * 1000),
      },
      `run ${to}`,
    );
  }
  return finished;
}

export async function cancelRun(ctx: Context, workspaceId: string, runId: string, mode: KeyMode | null): Promise<RunRow> {
  const row = await getRun(ctx.db, workspaceId, runId, mode);
  if (row.status !== "queued") throw new ApiError(409, "invalid_state", `Only a queued run can be canceled; this one is ${row.status}`);
  const canceled = await finishRun(ctx, runId, "queued", "canceled");
  if (!canceled) {
    const now = await getRun(ctx.db, workspaceId, runId);
    throw new ApiError(409, "invalid_state", `Only a queued run can be canceled; this one is ${now.status}`);
  }
  return canceled;
}

/** Admin: a succeeded run's charge goes back to the workspace and the run becomes refunded. */
export async function refundRun(ctx: Context, runId: string): Promise<RunRow> {
  const { db, clock } = ctx;
  return tx(
    db,
    async (t) => {
      const row = await findRun(t, runId);
      if (!row) throw new ApiError(404, "not_found", `No run ${runId}`);
      if (row.status !== "succeeded") throw new ApiError(409, "invalid_state", `Only a succeeded run can be refunded; this one is ${row.status}`);
      await refundCharge(t, clock, row.workspaceId, row.id);
      await t.update(runs).set({ status: "refunded" }).where(eq(runs.id, runId));
      return { ...row, status: "refunded" as const };
    },
    { lock: runId },
  );
}

// Sync mode: requests waiting for a run to finish, woken by finishRun in this process.
const runWaiters = new Waiters();

const TERMINAL: ReadonlySet<RunStatus> = new Set(["succeeded", "failed", "canceled", "refunded"]);

/** Waits until the run is terminal or `timeoutMs` passes; returns the run as it stands. */
export async function waitForRun(ctx: Context, workspaceId: string, runId: string, timeoutMs: number): Promise<RunRow> {
  const deadline = ctx.clock.now() + timeoutMs;
  for (;;) {
    const row = await getRun(ctx.db, workspaceId, runId);
    const left = deadline - ctx.clock.now();
    if (TERMINAL.has(row.status) || left <= 0) return row;
    // Woken by finishRun; the poll covers a run finished by another process.
    await runWaiters.wait(runId, Math.min(left, 1000));
  }
}
