// Reference retrieval for the policies: the full-text index over the indexed reference chunks, or in-memory BM25 when
// they are not indexed.
import { and, countDistinct, eq, inArray } from "drizzle-orm";
import type { Db } from "../db/client";
import { chunks } from "../db/schema";
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
  /** bm25 (on PostgreSQL, ts_rank negated), lower is better. */
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
export async function retrieveReferences(input: RetrieveInput): Promise<RetrievedChunk[][]> {
  const { references, queries, k } = input;
  if (references.length === 0 || queries.length === 0) return queries.map(() => []);
  if (input.db && (await allIndexed(input.db, input.workspaceId, references))) {
    const byIndexedId = new Map(references.map((r) => [r.documentId ?? r.id, r.id]));
    const results = await searchMany(input.db, {
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
async function allIndexed(db: Db, workspaceId: string, references: EngineReference[]): Promise<boolean> {
  const ids = [...new Set(references.map((r) => r.documentId ?? r.id))];
  const [row] = await db
    .select({ n: countDistinct(chunks.documentId) })
    .from(chunks)
    .where(and(eq(chunks.workspaceId, workspaceId), inArray(chunks.documentId, ids)));
  return (row?.n ?? 0) === ids.length;
}
