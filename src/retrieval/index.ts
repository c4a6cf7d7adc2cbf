// Retrieval: chunk extracted documents, index them in FTS5, and find the chunks that best match a query.
export type { Chunk } from "./types.ts";
export { chunkDocument } from "./chunk.ts";
export { indexDocument, indexDocumentInBatches, deleteDocumentChunks } from "./store.ts";
export { search, searchMany } from "./search.ts";
export { rankChunks, rankChunksMany } from "./rank.ts";
export { queryTerms, MAX_TERMS } from "./query.ts";
