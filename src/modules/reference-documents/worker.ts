// The indexing worker: claims index_reference jobs, extracts the original, indexes it for retrieval, marks it ready.
import { eq } from "drizzle-orm";
import type { Context } from "../../context";
import { tx } from "../../db/client";
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
  const job = claimJob(ctx.db, INDEX_JOB, ctx.clock.now(), INDEX_LOCK_MS);
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
  const ref = db.select().from(referenceDocuments).where(eq(referenceDocuments.id, job.subjectId)).get();
  const doc = ref && db.select().from(documents).where(eq(documents.id, ref.documentId)).get();
  if (!ref || !doc || ref.deletedAt !== null || ref.status !== "processing") {
    finishJob(db, job.id); // nothing left to do: deleted, or settled by an earlier attempt
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
      tx(db, () => {
        markFailed(db, doc.id, cause, null);
        setStatus(ctx, ref.id, "failed", failureReason(cause));
        finishJob(db, job.id);
      });
      return;
    }
    return retryOrFail(ctx, job, ref.id, err);
  }
  try {
    let ready = false;
    // Outside the final transaction and in batches: a large reference must not stall other requests.
    await indexDocumentInBatches(db, { workspaceId: ref.workspaceId, documentId: doc.id, doc: extracted.doc });
    tx(db, () => {
      const current = db.select().from(referenceDocuments).where(eq(referenceDocuments.id, ref.id)).get();
      markExtracted(db, doc.id, extracted.doc, extracted.size);
      finishJob(db, job.id);
      // Deleted while we worked: the original is indexed anyway, but nobody is told about a pointer that is gone.
      if (!current || current.deletedAt !== null || current.status !== "processing") return;
      const row = setStatus(ctx, ref.id, "ready", null);
      recordEvent(db, ctx.clock, {
        workspaceId: ref.workspaceId,
        type: "reference_document.ready",
        subjectId: ref.id,
        data: { reference_document: toReferenceDocumentJson(row) },
      });
      ready = true;
    });
    if (ready) notifyWebhooks(ctx);
  } catch (err) {
    retryOrFail(ctx, job, ref.id, err);
  }
}

function setStatus(ctx: Context, id: string, status: "ready" | "failed", failureReason: string | null) {
  const row = ctx.db
    .update(referenceDocuments)
    .set({ status, failureReason, updatedAt: ctx.clock.now() })
    .where(eq(referenceDocuments.id, id))
    .returning()
    .get();
  if (!row) throw new Error(`reference document ${id} vanished while being indexed`);
  return row;
}

/** An unexpected error (disk, database, a bug): try again later, and give up with a plain reason after the last attempt. */
function retryOrFail(ctx: Context, job: JobRow, refId: string, err: unknown): void {
  const message = err instanceof Error ? err.message : String(err);
  ctx.log.error({ err, reference_document_id: refId, attempt: job.attempts }, "indexing failed");
  if (job.attempts < MAX_INDEX_ATTEMPTS) {
    retryJob(ctx.db, job.id, ctx.clock.now() + BACKOFF_MS[Math.min(job.attempts - 1, BACKOFF_MS.length - 1)], message);
    return;
  }
  tx(ctx.db, () => {
    failJob(ctx.db, job.id, message);
    setStatus(
      ctx,
      refId,
      "failed",
      "Indexing failed because of an internal error; upload the file again, or ask your administrator to check the server log",
    );
  });
}
