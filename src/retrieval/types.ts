// Shapes of the retrieval index: chunks with their location, and ranked hits.
import type { Location } from "../extract/types";

export interface Chunk {
  ord: number;
  text: string;
  location: Location;
  /** Offset of the chunk's first character in ExtractedDocument.text, so quotes can be resolved back. */
  startOffset: number;
}

export interface Hit {
  documentId: string;
  chunkId: number;
  ord: number;
  text: string;
  /** A short excerpt around the matched terms. */
  snippet: string;
  location: Location;
  startOffset: number;
  /** bm25 score, lower is better (SQLite's convention; on PostgreSQL, ts_rank negated); hits come best first. */
  score: number;
}
