// The run worker: claims queued runs, waits for their references, evaluates, stores the output file, finishes the run.
import { and, eq, inArray, isNull, lte, or } from "drizzle-orm";
import type { Context } from "../../context";
import { tx } from "../../db/client";
import { documents, runs } from "../../db/schema";
import { EngineError, evaluate } from "../../engine";
import type { EngineDocument, ModelPolicy, OutputFormat } from "../../engine/types";
import type { ExtractedDocument } from "../../extract/types";
import { claim, LEASE_FREE, type QueueSpec, withLease } from "../../jobs/queue";
import type { JobWorker } from "../../jobs/scheduler";
import { shapeOutput } from "../../render";
import { bytesStream, objectStore } from "../../storage";
import { getReadyReferenceDocuments, referenceStatuses } from "../reference-documents/service";
import { getWorkflow } from "../workflows/service";
import type { RunRow } from "./model";
import { finishRun } from "./service";

/** How long a run waits before looking at its still-processing references again. */
const REFERENCE_WAIT_MS = 1_000;
const MAX_ATTEMPTS = 3;

/**
 * Queued runs, fair between workspaces: each workspace's oldest waiting run is a candidate; the one whose workspace
 * has the fewest runs running wins, then the workspace served least recently (round-robin), then the oldest. A
 * workspace's thousand queued runs therefore hold another workspace's single run back by one claim at most.
 */
const RUN_QUEUE: QueueSpec<typeof runs> = {
  source: runs,
  table: "runs",
  pick: `WITH heads AS (
      SELECT q.workspace_id AS ws, min(q.created_at) AS first FROM runs q
      WHERE q.status = 'queued' AND ${LEASE_FREE} GROUP BY q.workspace_id)
    SELECT q.id FROM heads h JOIN runs q ON q.workspace_id = h.ws AND q.created_at = h.first
    WHERE q.status = 'queued' AND ${LEASE_FREE}
    ORDER BY (SELECT count(*) FROM runs r WHERE r.workspace_id = h.ws AND r.status = 'running'),
      coalesce((SELECT max(r.started_at) FROM runs r WHERE r.workspace_id = h.ws), 0), h.first, q.id
    LIMIT 1`,
};

/** Claims a queued run (a short lease while its references are checked); null when none is waiting. */
async function claimQueued(ctx: Context): Promise<RunRow | null> {
  return await claim(ctx.db, RUN_QUEUE, ctx.clock.now(), ctx.config.leaseMs);
}

/** Puts a claimed run back to wait `ms` (its references are still processing). */
async function defer(ctx: Context, runId: string, ms: number): Promise<void> {
  await tx(ctx.db, (t) =>
    t
      .update(runs)
      .set({ lockedUntil: ctx.clock.now() + ms })
      .where(eq(runs.id, runId)),
  );
}

async function inputDocs(ctx: Context, workspaceId: string, ids: string[]): Promise<EngineDocument[]> {
  const rows = await ctx.db
    .select({ id: documents.id, filename: documents.filename, extracted: documents.extracted })
    .from(documents)
    .where(and(eq(documents.workspaceId, workspaceId), inArray(documents.id, ids)));
  const byId = new Map(rows.map((r) => [r.id, r]));
  return ids.flatMap((id) => {
    const row = byId.get(id);
    return row?.extracted ? [{ id: row.id, documentId: row.id, name: row.filename, content: row.extracted as ExtractedDocument }] : [];
  });
}

type Readiness = { state: "ready"; references: EngineDocument[] } | { state: "waiting" } | { state: "failed"; message: string };

/**
 * A run waits in queued until its workflow's references are ready; a failed one fails the run. Deleting a reference
 * removes its pointer only: workflows that name it keep evaluating against the original.
 */
async function referencesOf(ctx: Context, run: RunRow, referenceIds: string[]): Promise<Readiness> {
  const statuses = await referenceStatuses(ctx.db, run.workspaceId, referenceIds, { includeDeleted: true });
  for (const [id, s] of statuses) {
    if (s.status === "failed") return { state: "failed", message: `Reference document ${id} could not be indexed: ${s.failureReason}` };
  }
  if ([...statuses.values()].some((s) => s.status === "processing")) return { state: "waiting" };
  return { state: "ready", references: await getReadyReferenceDocuments(ctx.db, run.workspaceId, referenceIds, { includeDeleted: true }) };
}

const EXTENSION: Record<string, string> = { json: "json", markdown: "md", docx: "docx", xlsx: "xlsx", csv: "csv" };

/** Evaluates one running run and finishes it; every failure becomes a failed run with {code, message}. */
async function execute(ctx: Context, run: RunRow, references: EngineDocument[]): Promise<void> {
  const lease = { table: "runs" as const, id: run.id, lease: run.lockedUntil ?? 0, leaseMs: ctx.config.leaseMs };
  await withLease(ctx, lease, (signal) => evaluateRun(ctx, run, references, signal), ctx.runtime.scheduler.stopping);
}

/**
 * Evaluates a running run we hold the lease of. Losing the lease aborts `signal` (the engine and the model call
 * stop); the run then belongs to recovery, and nothing is written here.
 */
async function evaluateRun(ctx: Context, run: RunRow, references: EngineDocument[], signal: AbortSignal): Promise<void> {
  const stage = stageTimer(ctx);
  try {
    const workflow = await getWorkflow(ctx.db, run.workspaceId, run.workflowId, true);
    const inputs = await inputDocs(ctx, run.workspaceId, run.inputDocuments);
    stage("read");
    const result = await evaluate({
      db: ctx.db,
      workspaceId: run.workspaceId,
      mode: run.keyMode,
      workflow: {
        userPrompt: workflow.userPrompt,
        outputSchema: workflow.outputSchema,
        modelPolicy: workflow.defaultModelPolicy as ModelPolicy,
        productCode: workflow.productCode,
      },
      references,
      inputs,
      llm: ctx.config.llm,
      contextBudgetChars: ctx.config.contextBudgetChars,
      passThreshold: ctx.config.passThreshold,
      runId: run.id,
      signal,
    });
    stage("evaluate");
    signal.throwIfAborted();
    const format = workflow.outputFormat as OutputFormat;
    const { output, file } = await shapeOutput(
      format,
      result.value,
      result.custom,
      {
        title: workflow.name,
        workflowName: workflow.name,
        runId: run.id,
        generatedAt: new Date(ctx.clock.now()),
        documents: [...inputs, ...references].map((d) => ({ id: d.id, name: d.name })),
      },
      result.summary,
    );
    stage("render");
    const outputObjectKey = `runs/${run.workspaceId}/${run.id}/output.${EXTENSION[format] ?? file.extension}`;
    await objectStore(ctx).put(outputObjectKey, bytesStream(file.bytes), { maxBytes: file.bytes.byteLength });
    const changes = { output, usage: { ...result.usage }, outputObjectKey, outputMimeType: file.mime_type, error: null };
    await finishRun(ctx, run.id, "running", "succeeded", changes, run.attempts);
    stage("write");
  } catch (err) {
    if (signal.aborted) {
      if (ctx.runtime.scheduler.stopping.aborted) {
        // The server is stopping: give the run back as it was before this attempt, for the next start to run at once.
        await tx(ctx.db, (t) =>
          t
            .update(runs)
            .set({ status: "queued", lockedUntil: null, startedAt: null, attempts: run.attempts - 1 })
            .where(and(eq(runs.id, run.id), eq(runs.status, "running"), eq(runs.attempts, run.attempts))),
        );
        ctx.log.warn({ run_id: run.id }, "run stopped by shutdown; back in the queue");
        return;
      }
      ctx.log.warn({ run_id: run.id, reason: (signal.reason as Error).message }, "run stopped; recovery takes it from here");
      return;
    }
    const error =
      err instanceof EngineError
        ? { code: err.code, message: err.message }
        : { code: "internal_error", message: "The evaluation failed unexpectedly; the run's credits were released" };
    if (!(err instanceof EngineError)) ctx.log.error({ err, run_id: run.id }, "run failed unexpectedly");
    await finishRun(ctx, run.id, "running", "failed", { error }, run.attempts);
  }
}

/** Observes the time since the previous stage ended (or since the timer was made) under the named stage. */
function stageTimer(ctx: Context): (stage: "read" | "evaluate" | "render" | "write") => void {
  let last = performance.now();
  return (stage) => {
    const now = performance.now();
    ctx.metrics.runStage.observe({ stage }, (now - last) / 1000);
    last = now;
  };
}

/** One unit of work: claim a queued run and take it as far as it can go now. */
export async function runTick(ctx: Context): Promise<boolean> {
  const claimStarted = performance.now();
  const run = await claimQueued(ctx);
  if (!run) return false;
  const workflow = await getWorkflow(ctx.db, run.workspaceId, run.workflowId, true);
  const refs = await referencesOf(ctx, run, workflow.referenceDocumentIds);
  if (refs.state === "waiting") {
    await defer(ctx, run.id, REFERENCE_WAIT_MS);
    return true;
  }
  if (refs.state === "failed") {
    await finishRun(ctx, run.id, "queued", "failed", { error: { code: "reference_document_failed", message: refs.message } });
    return true;
  }
  const now = ctx.clock.now();
  // Guarded by status: a cancel that won the race leaves the run alone.
  const [started] = await tx(ctx.db, (t) =>
    t
      .update(runs)
      .set({ status: "running", startedAt: now, attempts: run.attempts + 1, lockedUntil: now + ctx.config.leaseMs })
      .where(and(eq(runs.id, run.id), eq(runs.status, "queued")))
      .returning(),
  );
  if (!started) return true;
  ctx.metrics.runStage.observe({ stage: "claim" }, (performance.now() - claimStarted) / 1000);
  ctx.log.info({ run_id: run.id, workspace_id: run.workspaceId, workflow_id: run.workflowId, attempt: started.attempts }, "run claimed");
  await execute(ctx, started, refs.references);
  return true;
}

/**
 * At start and every minute: runs left `running` by a process that died go back to queued (their hold stays), or fail once they
 * have used MAX_ATTEMPTS. Only runs whose lease has expired are touched, so a live process's runs are left alone.
 */
export async function recoverRuns(ctx: Context): Promise<{ requeued: number; failed: number }> {
  const now = ctx.clock.now();
  // The queue's lease rule (LEASE_FREE): a lease that ends at `now` is free.
  const stale = await ctx.db
    .select({ id: runs.id, attempts: runs.attempts })
    .from(runs)
    .where(and(eq(runs.status, "running"), or(isNull(runs.lockedUntil), lte(runs.lockedUntil, now))));
  let requeued = 0;
  let failed = 0;
  for (const row of stale) {
    if (row.attempts >= MAX_ATTEMPTS) {
      await finishRun(ctx, row.id, "running", "failed", {
        error: { code: "worker_crashed", message: `The server stopped while evaluating this run ${row.attempts} times; giving up` },
      });
      failed++;
    } else {
      // Back to waiting, as if never started: started_at belongs to the attempt that will run it.
      // Counted only when this pass moved it (another process's pass may have been first).
      const moved = await tx(ctx.db, (t) =>
        t
          .update(runs)
          .set({ status: "queued", lockedUntil: null, startedAt: null })
          .where(and(eq(runs.id, row.id), eq(runs.status, "running"), eq(runs.attempts, row.attempts)))
          .returning({ id: runs.id }),
      );
      requeued += moved.length;
    }
  }
  return { requeued, failed };
}

export const runWorker = (ctx: Context): JobWorker => ({
  name: "runs",
  concurrency: ctx.config.workers,
  idleMs: 1000,
  tick: () => runTick(ctx),
});
