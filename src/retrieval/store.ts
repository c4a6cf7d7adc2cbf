// Writes a document's chunks into the `chunks` table; triggers keep the FTS5 index (chunks_fts) in step.
import { type Db, tx } from "../db/client.ts";
import type { ExtractedDocument } from "../extract/types.ts";
import { type ChunkOptions, chunkDocument } from "./chunk.ts";

export interface IndexInput {
  workspaceId: string;
  documentId: string;
  doc: ExtractedDocument;
  chunking?: ChunkOptions;
}

/** Replaces the document's chunks in one transaction (a reader sees the old set or the new, never half); returns the count. */
export function indexDocument(db: Db, input: IndexInput): number {
  const chunks = chunkDocument(input.doc, input.chunking);
  const sqlite = db.$client;
  // query() caches the compiled statement on the connection, so repeated indexing does not re-prepare.
  const insert = sqlite.query("INSERT INTO chunks (workspace_id, document_id, ord, text, location, start_offset) VALUES (?, ?, ?, ?, ?, ?)");
  return tx(db, () => {
    sqlite.query("DELETE FROM chunks WHERE document_id = ?").run(input.documentId);
    for (const c of chunks) {
      insert.run(input.workspaceId, input.documentId, c.ord, c.text, JSON.stringify(c.location), c.startOffset);
    }
    return chunks.length;
  });
}

/**
 * The same for large documents without stalling the server: chunks go in batches, each its own short transaction,
 * with a pause for other requests between them. Readers may see a partial set meanwhile, so use it only while
 * nothing reads the document (a reference still processing); a crash half-way is mended by indexing again.
 */
export async function indexDocumentInBatches(db: Db, input: IndexInput, batchSize = 2_000): Promise<number> {
  const chunks = chunkDocument(input.doc, input.chunking);
  const sqlite = db.$client;
  const insert = sqlite.query("INSERT INTO chunks (workspace_id, document_id, ord, text, location, start_offset) VALUES (?, ?, ?, ?, ?, ?)");
  tx(db, () => sqlite.query("DELETE FROM chunks WHERE document_id = ?").run(input.documentId));
  for (let i = 0; i < chunks.length; i += batchSize) {
    tx(db, () => {
      for (const c of chunks.slice(i, i + batchSize)) {
        insert.run(input.workspaceId, input.documentId, c.ord, c.text, JSON.stringify(c.location), c.startOffset);
      }
    });
    await new Promise((resolve) => setImmediate(resolve));
  }
  return chunks.length;
}

/** Removes a document's chunks (and, through the trigger, its FTS5 entries); returns how many were removed. */
export function deleteDocumentChunks(db: Db, documentId: string): number {
  return tx(db, () => db.$client.query("DELETE FROM chunks WHERE document_id = ?").run(documentId).changes);
}
