// Writes a document's chunks into the `chunks` table; the full-text index follows by itself (on SQLite, triggers keep
// chunks_fts in step; on PostgreSQL, the generated tsv column).
import { eq } from "drizzle-orm";
import { type Db, tx } from "../db/client.ts";
import { chunks } from "../db/schema.ts";
import type { ExtractedDocument } from "../extract/types.ts";
import { type ChunkOptions, chunkDocument } from "./chunk.ts";
import type { Chunk } from "./types.ts";

export interface IndexInput {
  workspaceId: string;
  documentId: string;
  doc: ExtractedDocument;
  chunking?: ChunkOptions;
}

/** Rows per INSERT statement: 6 values a row stays far below either backend's limit on bound parameters. */
const ROWS_PER_INSERT = 500;

/** Inserts chunks through a transaction's handle, several rows per statement. */
async function insertChunks(t: Db, input: IndexInput, parts: Chunk[]): Promise<void> {
  for (let i = 0; i < parts.length; i += ROWS_PER_INSERT) {
    await t.insert(chunks).values(
      parts.slice(i, i + ROWS_PER_INSERT).map((c) => ({
        workspaceId: input.workspaceId,
        documentId: input.documentId,
        ord: c.ord,
        text: c.text,
        location: c.location as Record<string, unknown>,
        startOffset: c.startOffset,
      })),
    );
  }
}

/**
 * Replaces the document's chunks in one transaction (a reader sees the old set or the new, never half); returns the
 * count. Given a transaction's handle, it joins that transaction (as a savepoint).
 */
export async function indexDocument(db: Db, input: IndexInput): Promise<number> {
  const parts = chunkDocument(input.doc, input.chunking);
  return tx(db, async (t) => {
    await t.delete(chunks).where(eq(chunks.documentId, input.documentId));
    await insertChunks(t, input, parts);
    return parts.length;
  });
}

/**
 * The same for large documents without stalling the server: chunks go in batches, each its own short transaction,
 * with a pause for other requests between them. Readers may see a partial set meanwhile, so use it only while
 * nothing reads the document (a reference still processing); a crash half-way is mended by indexing again.
 * Call it outside any transaction (it opens its own).
 */
export async function indexDocumentInBatches(db: Db, input: IndexInput, batchSize = 2_000): Promise<number> {
  const parts = chunkDocument(input.doc, input.chunking);
  await tx(db, (t) => t.delete(chunks).where(eq(chunks.documentId, input.documentId)));
  for (let i = 0; i < parts.length; i += batchSize) {
    await tx(db, (t) => insertChunks(t, input, parts.slice(i, i + batchSize)));
    await new Promise((resolve) => setImmediate(resolve));
  }
  return parts.length;
}

/** Removes a document's chunks (and with them their full-text entries); returns how many were removed. */
export async function deleteDocumentChunks(db: Db, documentId: string): Promise<number> {
  const removed = await tx(db, (t) => t.delete(chunks).where(eq(chunks.documentId, documentId)).returning({ id: chunks.id }));
  return removed.length;
}
