// Retrieval: chunk extracted documents, index them for full-text search, and find the chunks that best match a query.

export { chunkDocument } from "./chunk.ts";
export { MAX_TERMS, queryTerms } from "./query.ts";
export { rankChunks, rankChunksMany } from "./rank.ts";
export { search, searchMany } from "./search.ts";
export { deleteDocumentChunks, indexDocument, indexDocumentInBatches } from "./store.ts";
export type { Chunk } from "./types.ts";
