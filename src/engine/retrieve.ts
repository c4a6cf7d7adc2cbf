// Reference retrieval for the policies: FTS5 over the indexed reference chunks, or in-memory BM25 when they are not indexed.
import type { Db } from "../db/client";
import type { Location } from "../extract/types";
import { type Chunk, chunkDocument, rankChunksMany, searchMany } from "../retrieval";
import type { EngineReference } from "./types";

export interface RetrievedChunk {
  /** The reference's id as the run knows it (ref_… or doc_…). */
  documentId: string;
  text: string;
  location: Location;
  /** Offset in the reference's content.text. */
  start: number;
  /** bm25, lower is better. */
  score: number;
}

export interface RetrieveInput {
  db?: Db;
  workspaceId: string;
  references: EngineReference[];
  queries: string[];
  k: number;
}

/** For each query, the k best reference chunks, best first. */
export function retrieveReferences(input: RetrieveInput): RetrievedChunk[][] {
  const { references, queries, k } = input;
  if (references.length === 0 || queries.length === 0) return queries.map(() => []);
  if (input.db && allIndexed(input.db, input.workspaceId, references)) {
    const byIndexedId = new Map(references.map((r) => [r.documentId ?? r.id, r.id]));
    const results = searchMany(input.db, {
      workspaceId: input.workspaceId,
      documentIds: [...byIndexedId.keys()],
      queries,
      k,
    });
    return results.map((hits) =>
      hits.flatMap((h) => {
        const id = byIndexedId.get(h.documentId);
        return id ? [{ documentId: id, text: h.text, location: h.location, start: h.startOffset, score: h.score }] : [];
      }),
    );
  }
  // Not indexed (no database, or a reference the index does not hold): the same BM25, in memory.
  const chunks: { documentId: string; chunk: Chunk }[] = references.flatMap((r) =>
    chunkDocument(r.content).map((chunk) => ({ documentId: r.id, chunk })),
  );
  const owner = new Map(chunks.map((c) => [c.chunk, c.documentId]));
  return rankChunksMany(
    chunks.map((c) => c.chunk),
    queries,
    k,
  ).map((ranked) =>
    ranked.map((r) => ({
      documentId: owner.get(r.chunk) as string,
      text: r.chunk.text,
      location: r.chunk.location,
      start: r.chunk.startOffset,
      score: r.score,
    })),
  );
}

/** Whether every reference has chunks in the index (a reference indexed under its documents.id counts). */
function allIndexed(db: Db, workspaceId: string, references: EngineReference[]): boolean {
  const ids = [...new Set(references.map((r) => r.documentId ?? r.id))];
  const row = db.$client
    .query<{ n: number }, [string, string]>(
      "SELECT COUNT(DISTINCT document_id) AS n FROM chunks WHERE workspace_id = ? AND document_id IN (SELECT value FROM json_each(?))",
    )
    .get(workspaceId, JSON.stringify(ids));
  return (row?.n ?? 0) === ids.length;
}
