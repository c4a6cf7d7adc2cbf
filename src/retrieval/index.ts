// Retrieval: chunk extracted documents, index them in FTS5, and find the chunks that best match a query.
export type { Chunk, Hit } from "./types.ts";
export { chunkDocument, type ChunkOptions } from "./chunk.ts";
export { indexDocument, indexDocumentInBatches, deleteDocumentChunks, type IndexInput } from "./store.ts";
export { search, searchMany, DEFAULT_K, type SearchInput, type SearchManyInput } from "./search.ts";
export { rankChunks, rankChunksMany, type RankedChunk } from "./rank.ts";
export { queryTerms, toMatchExpression, MAX_TERMS } from "./query.ts";
