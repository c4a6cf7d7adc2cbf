// Shapes shared by the evaluation engine, its providers and the renderers.
import type { ExtractedDocument, Location } from "../extract/types";

export type OutputFormat = "json" | "markdown" | "docx" | "xlsx" | "csv";
export type ModelPolicy = "auto" | "gemini-file-search" | "deepseek-1m-fulltext" | "hybrid";
export type RagStrategy = "file_search" | "fulltext" | "hybrid";

export interface Evidence {
  document_id: string;
  /** Verbatim substring of that document's extracted text. */
  quote: string;
  location: Location;
}

export interface Criterion {
  id: string;
  title: string;
  score: number;
  max_score: number;
  rationale: string;
  evidence: Evidence[];
}

/** CONTRACT.md "Output": the standard evaluation object (json without output_schema). */
export interface Evaluation {
  summary: string;
  score: number; // 0-100
  verdict: "pass" | "fail" | "needs_review";
  criteria: Criterion[];
}

export interface RunUsage {
  input_tokens: number | null;
  output_tokens: number | null;
  model: string | null;
  rag_strategy: RagStrategy | null;
  /** Quotes a model gave that are not text of the documents, dropped; null when no model answered. */
  unresolved_quotes: number | null;
}

/** A document handed to the engine: its id (doc_… or ref_…), a display name and its extracted content. */
export interface EngineDocument {
  id: string;
  name: string;
  content: ExtractedDocument;
  /** The documents row whose chunks are in the retrieval index (for a reference document, its original's doc_ id). */
  documentId?: string;
}

/** A reference document; `documentId` is the documents.id its chunks are indexed under, when `id` is a ref_… id. */
export type EngineReference = EngineDocument & { documentId?: string };

/** A rendered output file. */
export interface RenderedFile {
  bytes: Uint8Array;
  mime_type: string;
  extension: string; // "docx", "xlsx", "csv", "md", "json"
}
