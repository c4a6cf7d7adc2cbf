// Reference documents: creation (presigned or multipart), completion, reads, deletion, and what runs need to use them.
import { and, eq, inArray, isNull, lt } from "drizzle-orm";
import type { Context } from "../../context";
import { type Db, tx } from "../../db/client";
import { documents, referenceDocuments } from "../../db/schema";
import type { ExtractedDocument } from "../../extract";
import { ApiError } from "../../http/errors";
import { checkName } from "../../http/names";
import { listPage } from "../../http/pagination";
import { newId } from "../../lib/ids";
import { UPLOAD_URL_TTL_S } from "../../storage";
import { checkStoredUpload, createPendingDocument, documentText, notUploaded, storeUploadedDocument } from "../documents/service";
import { enqueueJob, findJob, isClaimable } from "./jobs";
import { type ReferenceRow, toReferenceDocumentJson } from "./model";

export type { ReferenceRow };

export const INDEX_JOB = "index_reference";
export const INDEXING_WORKER = "indexing";

const NAME_MAX = 200;

/** Call inside a transaction: `db` is its handle. */
async function insertReference(db: Db, workspaceId: string, documentId: string, name: string, now: number): Promise<ReferenceRow> {
  const row: ReferenceRow = {
    id: newId("ref"),
    workspaceId,
    documentId,
    name,
    status: "processing",
    failureReason: null,
    deletedAt: null,
    createdAt: now,
    updatedAt: now,
  };
  await db.insert(referenceDocuments).values(row);
  return row;
}

/** Presigned form: a pending original and its reference (processing). Indexing starts at complete. */
export async function createPresignedReference(
  ctx: Context,
  input: { workspaceId: string; name: string; filename: string; mimeType?: string; sizeBytes?: number },
) {
  const name = checkName(input.name, NAME_MAX);
  return tx(ctx.db, async (t) => {
    const { row: doc, upload } = await createPendingDocument(ctx, input, t);
    return { row: await insertReference(t, input.workspaceId, doc.id, name, ctx.clock.now()), upload };
  });
}

/** Multipart form: the bytes are already here, so indexing is queued at once. */
export async function createUploadedReference(
  ctx: Context,
  input: { workspaceId: string; name: string; filename: string; mimeType?: string; stream: ReadableStream<Uint8Array> },
): Promise<ReferenceRow> {
  checkName(input.name, NAME_MAX);
  const doc = await storeUploadedDocument(ctx, {
    workspaceId: input.workspaceId,
    filename: input.filename,
    mimeType: input.mimeType,
    stream: input.stream,
    param: "file",
  });
  return referenceForStoredDocument(ctx, { workspaceId: input.workspaceId, name: input.name, documentId: doc.id });
}

/** The reference for an original already stored (uploaded documents row), with its indexing job queued. */
export async function referenceForStoredDocument(
  ctx: Context,
  input: { workspaceId: string; name: string; documentId: string },
): Promise<ReferenceRow> {
  const name = checkName(input.name, NAME_MAX);
  const row = await tx(ctx.db, async (t) => {
    const ref = await insertReference(t, input.workspaceId, input.documentId, name, ctx.clock.now());
    await enqueueJob(t, ctx.clock, INDEX_JOB, ref.id);
    return ref;
  });
  ctx.runtime.scheduler.wake(INDEXING_WORKER);
  return row;
}

/** A reference document of the workspace that is not deleted, or 404. */
async function getReference(db: Db, workspaceId: string, id: string): Promise<ReferenceRow> {
  const [row] = await db
    .select()
    .from(referenceDocuments)
    .where(and(eq(referenceDocuments.id, id), eq(referenceDocuments.workspaceId, workspaceId), isNull(referenceDocuments.deletedAt)))
    .limit(1);
  if (!row) throw new ApiError(404, "not_found", `No reference document ${id}`);
  return row;
}

/**
 * GET's lazy refresh: the status is whatever the database says now; if the reference is still processing and its
 * job is due (or was left running by a process that died), the indexing worker is woken so it moves on at once.
 */
export async function readReference(ctx: Context, workspaceId: string, id: string): Promise<ReferenceRow> {
  const row = await getReference(ctx.db, workspaceId, id);
  if (row.status === "processing") {
    const job = await findJob(ctx.db, INDEX_JOB, row.id);
    if (job && isClaimable(job, ctx.clock.now())) ctx.runtime.scheduler.wake(INDEXING_WORKER);
  }
  return row;
}

/**
 * A reference's extracted text; 409 when it failed (with why) or is not yet readable. Named by its ref_ id: the
 * document behind it is no business of the caller.
 */
export async function referenceText(ctx: Context, workspaceId: string, id: string) {
  const ref = await readReference(ctx, workspaceId, id);
  if (ref.status === "failed") {
    throw new ApiError(409, "invalid_state", `Reference document ${ref.id} failed: ${ref.failureReason ?? "its file could not be read"}`);
  }
  return documentText(ctx.db, workspaceId, ref.documentId, ref.id);
}

/**
 * Confirms a presigned upload and queues indexing, once: later calls (and calls on multipart references, already
 * queued) return the reference as it stands. 409 invalid_state while the bytes have not arrived.
 */
export async function completeReference(ctx: Context, workspaceId: string, id: string): Promise<ReferenceRow> {
  const ref = await getReference(ctx.db, workspaceId, id);
  if (ref.status !== "processing" || (await findJob(ctx.db, INDEX_JOB, ref.id))) return ref;
  const [doc] = await ctx.db.select().from(documents).where(eq(documents.id, ref.documentId)).limit(1);
  if (!doc || (await checkStoredUpload(ctx, doc)) === null) throw notUploaded(ctx, doc ?? ref);
  await tx(ctx.db, async (t) => {
    // Checked again inside the transaction: two concurrent completes queue one job.
    if (await findJob(t, INDEX_JOB, ref.id)) return;
    await enqueueJob(t, ctx.clock, INDEX_JOB, ref.id);
    await t
      .update(documents)
      .set({ status: "uploaded" })
      .where(and(eq(documents.id, doc.id), eq(documents.status, "pending")));
  });
  ctx.runtime.scheduler.wake(INDEXING_WORKER);
  return getReference(ctx.db, workspaceId, id);
}

export async function listReferences(db: Db, secret: string, workspaceId: string, q: { limit?: number; cursor?: string }) {
  return await listPage(db, secret, referenceDocuments, { workspaceId, deletedAt: null }, q, toReferenceDocumentJson);
}

/** Removes the pointer only: the stored original (documents row and object) stays in the workspace. */
export async function deleteReference(ctx: Context, workspaceId: string, id: string) {
  const row = await getReference(ctx.db, workspaceId, id);
  const now = ctx.clock.now();
  await tx(ctx.db, (t) => t.update(referenceDocuments).set({ deletedAt: now, updatedAt: now }).where(eq(referenceDocuments.id, row.id)));
  return { id: row.id, object: "reference_document" as const, deleted: true as const };
}

/** A ready reference with its original's extracted content: the shape of the engine's EngineDocument, plus documentId. */
export interface ReadyReference {
  id: string;
  name: string;
  /** The doc_… whose chunks the retrieval index holds. */
  documentId: string;
  content: ExtractedDocument;
}

/** The ready, not deleted references among `ids` (in the order of `ids`); others are left out. */
export async function getReadyReferenceDocuments(
  db: Db,
  workspaceId: string,
  ids: string[],
  opts: { includeDeleted?: boolean } = {},
): Promise<ReadyReference[]> {
  if (!ids.length) return [];
  const rows = await db
    .select({ id: referenceDocuments.id, name: referenceDocuments.name, documentId: documents.id, extracted: documents.extracted })
    .from(referenceDocuments)
    .innerJoin(documents, eq(documents.id, referenceDocuments.documentId))
    .where(
      and(
        eq(referenceDocuments.workspaceId, workspaceId),
        inArray(referenceDocuments.id, ids),
        eq(referenceDocuments.status, "ready"),
        opts.includeDeleted ? undefined : isNull(referenceDocuments.deletedAt),
      ),
    );
  const byId = new Map(rows.filter((r) => r.extracted != null).map((r) => [r.id, r]));
  return ids.flatMap((id) => {
    const r = byId.get(id);
    return r ? [{ id: r.id, name: r.name, documentId: r.documentId, content: r.extracted as ExtractedDocument }] : [];
  });
}

export type ReferenceState = "processing" | "ready" | "failed" | "deleted" | "missing";

/** Each id's state ("missing": not a reference of this workspace), with the failure reason of failed ones. */
export async function referenceStatuses(
  db: Db,
  workspaceId: string,
  ids: string[],
  opts: { includeDeleted?: boolean } = {},
): Promise<Map<string, { status: ReferenceState; failureReason: string | null }>> {
  const out = new Map<string, { status: ReferenceState; failureReason: string | null }>();
  const rows = ids.length
    ? await db
        .select()
        .from(referenceDocuments)
        .where(and(eq(referenceDocuments.workspaceId, workspaceId), inArray(referenceDocuments.id, ids)))
    : [];
  const byId = new Map(rows.map((r) => [r.id, r]));
  for (const id of ids) {
    const r = byId.get(id);
    if (!r) out.set(id, { status: "missing", failureReason: null });
    else if (r.deletedAt !== null && !opts.includeDeleted) out.set(id, { status: "deleted", failureReason: null });
    else out.set(id, { status: r.status, failureReason: r.status === "failed" ? (r.failureReason ?? "The file could not be indexed") : null });
  }
  return out;
}

/** How long a presigned reference may wait for its upload and complete call: the URL's life plus a grace period. */
export const ABANDONED_UPLOAD_MS = (UPLOAD_URL_TTL_S + 5 * 60) * 1000;

/**
 * References whose bytes never arrived (upload URL expired, no complete) would stay processing for good, and runs
 * of their workflows would wait with credits held: they fail instead, with a reason that says what to do.
 */
export async function expireAbandonedUploads(ctx: Context): Promise<number> {
  const now = ctx.clock.now();
  const expired = await tx(ctx.db, (t) =>
    t
      .update(referenceDocuments)
      .set({
        status: "failed",
        updatedAt: now,
        failureReason: "The file was never uploaded and completed before its upload URL expired; create the reference document again",
      })
      .where(
        and(
          eq(referenceDocuments.status, "processing"),
          lt(referenceDocuments.createdAt, now - ABANDONED_UPLOAD_MS),
          inArray(referenceDocuments.documentId, t.select({ id: documents.id }).from(documents).where(eq(documents.status, "pending"))),
        ),
      )
      .returning({ id: referenceDocuments.id }),
  );
  return expired.length;
}
