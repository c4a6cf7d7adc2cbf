// The indexing worker: claims index_reference jobs, extracts the original, indexes it for retrieval, marks it ready.
import { eq } from "drizzle-orm";
import type { Context } from "../../context";
import { type Db, tx } from "../../db/client";
import { documents, referenceDocuments } from "../../db/schema";
import { ExtractError, type ExtractedDocument } from "../../extract";
import { ApiError } from "../../http/errors";
import { withLease } from "../../jobs/queue";
import type { JobWorker } from "../../jobs/scheduler";
import { indexDocumentInBatches } from "../../retrieval";
import { extractStored, markExtracted, markFailed } from "../documents/service";
import { notifyWebhooks, recordEvent } from "../webhooks/events";
import { claimJob, failJob, finishJob, type JobRow, retryJob } from "./jobs";
import { toReferenceDocumentJson } from "./model";
import { INDEX_JOB, INDEXING_WORKER } from "./service";

/** An indexing job's lease: renewed every third of it while the job runs; a dead process's job is resumed after it. */
export const INDEX_LOCK_MS = 5 * 60_000;
const MAX_INDEX_ATTEMPTS = 3;
/** Wait before attempt n+1 after an unexpected error: 30 s, then 2 min. */
const BACKOFF_MS = [30_000, 120_000];

export function indexingWorker(ctx: Context): JobWorker {
  return { name: INDEXING_WORKER, concurrency: 1, idleMs: 5_000, tick: () => indexNext(ctx) };
}

/** Claims and processes one indexing job; false when none was due. */
export async function indexNext(ctx: Context): Promise<boolean> {
  const job = await claimJob(ctx.db, INDEX_JOB, ctx.clock.now(), INDEX_LOCK_MS);
  if (!job) return false;
  // Renewed while it works, so a reference that takes longer than the lease is not taken over by another worker.
  const lease = { table: "jobs" as const, id: job.id, lease: job.lockedUntil ?? 0, leaseMs: INDEX_LOCK_MS };
  await withLease(ctx, lease, () => processIndexJob(ctx, job), ctx.runtime.scheduler.stopping);
  return true;
}

/** What the user reads in failure_reason: the extractor's own words, which never carry paths or internals. */
function failureReason(err: ExtractError): string {
  const reason = err.message.replace(/\.$/, "");
  const lead = err.code === "unsupported_media_type" ? "This file format is not supported" : "The file could not be read";
  return `${lead}: ${reason}`;
}

async function processIndexJob(ctx: Context, job: JobRow): Promise<void> {
  const db = ctx.db;
  const [ref] = await db.select().from(referenceDocuments).where(eq(referenceDocuments.id, job.subjectId)).limit(1);
  const [doc] = ref ? await db.select().from(documents).where(eq(documents.id, ref.documentId)).limit(1) : [];
  if (!ref || !doc || ref.deletedAt !== null || ref.status !== "processing") {
    await tx(db, (t) => finishJob(t, job.id)); // nothing left to do: deleted, or settled by an earlier attempt
    return;
  }
  let extracted: { doc: ExtractedDocument; size: number };
  try {
    // An original already extracted (a retry after an indexing error) is not parsed again.
    extracted =
      doc.status === "extracted" && doc.extracted
        ? { doc: doc.extracted as ExtractedDocument, size: doc.sizeBytes ?? 0 }
        : await extractStored(ctx, doc);
  } catch (err) {
    if (err instanceof ExtractError || (err instanceof ApiError && err.code === "invalid_state")) {
      const cause = err instanceof ExtractError ? err : new ExtractError("unprocessable_document", "the uploaded file is missing; upload it again");
      await tx(db, async (t) => {
        await markFailed(t, doc.id, cause, null);
        await setStatus(ctx, t, ref.id, "failed", failureReason(cause));
        await finishJob(t, job.id);
      });
      return;
    }
    return retryOrFail(ctx, job, ref.id, err);
  }
  try {
    // Outside the final transaction and in batches: a large reference must not stall other requests.
    await indexDocumentInBatches(db, { workspaceId: ref.workspaceId, documentId: doc.id, doc: extracted.doc });
    const ready = await tx(db, async (t) => {
      const [current] = await t.select().from(referenceDocuments).where(eq(referenceDocuments.id, ref.id)).limit(1);
      await markExtracted(t, doc.id, extracted.doc, extracted.size);
      await finishJob(t, job.id);
      // Deleted while we worked: the original is indexed anyway, but nobody is told about a pointer that is gone.
      if (!current || current.deletedAt !== null || current.status !== "processing") return false;
      const row = await setStatus(ctx, t, ref.id, "ready", null);
      await recordEvent(t, ctx.clock, {
        workspaceId: ref.workspaceId,
        type: "reference_document.ready",
        subjectId: ref.id,
        data: { reference_document: toReferenceDocumentJson(row) },
      });
      return true;
    });
    if (ready) notifyWebhooks(ctx);
  } catch (err) {
    await retryOrFail(ctx, job, ref.id, err);
  }
}

/** Call inside a transaction: `t` is its handle. */
async function setStatus(ctx: Context, t: Db, id: string, status: "ready" | "failed", failureReason: string | null) {
  const [row] = await t
    .update(referenceDocuments)
    .set({ status, failureReason, updatedAt: ctx.clock.now() })
    .where(eq(referenceDocuments.id, id))
    .returning();
  if (!row) throw new Error(`reference document ${id} vanished while being indexed`);
  return row;
}

/** An unexpected error (disk, database, a bug): try again later, and give up with a plain reason after the last attempt. */
async function retryOrFail(ctx: Context, job: JobRow, refId: string, err: unknown): Promise<void> {
  const message = err instanceof Error ? err.message : String(err);
  ctx.log.error({ err, reference_document_id: refId, attempt: job.attempts }, "indexing failed");
  if (job.attempts < MAX_INDEX_ATTEMPTS) {
    const next = ctx.clock.now() + BACKOFF_MS[Math.min(job.attempts - 1, BACKOFF_MS.length - 1)];
    await tx(ctx.db, (t) => retryJob(t, job.id, next, message));
    return;
  }
  await tx(ctx.db, async (t) => {
    await failJob(t, job.id, message);
    await setStatus(
      ctx,
      t,
      refId,
      "failed",
      "Indexing failed because of an internal error; upload the file again, or ask your administrator to check the server log",
    );
  });
}
