// Batched indexing (large references): the same chunks and hits as one transaction, and the server keeps answering.
import { expect, test } from "bun:test";
import { indexDocument, indexDocumentInBatches, search } from "../../src/retrieval";
import { addDocument, addWorkspace, chunkCount, freshDb, textDoc } from "./helpers";

const doc = textDoc(
  Array.from({ length: 400 }, (_, i) => ({
    text: `Section ${i}. Criterion ${i % 7} asks for evidence about topic number ${i} and its rubric ${i % 13}.`,
  })),
);

test("batches give the same chunks and the same ranked hits as one transaction", async () => {
  const a = await freshDb();
  const b = await freshDb();
  for (const db of [a, b]) {
    await addWorkspace(db, "ws_1");
    await addDocument(db, "ws_1", "doc_1");
  }
  const n1 = await indexDocument(a, { workspaceId: "ws_1", documentId: "doc_1", doc, chunking: { targetChars: 120 } });
  const n2 = await indexDocumentInBatches(b, { workspaceId: "ws_1", documentId: "doc_1", doc, chunking: { targetChars: 120 } }, 7);
  expect(n2).toBe(n1);
  expect(n1).toBeGreaterThan(50);
  const q = { workspaceId: "ws_1", documentIds: ["doc_1"], query: "topic number 123 evidence", k: 5 };
  expect((await search(b, q)).map((h) => h.text)).toEqual((await search(a, q)).map((h) => h.text));
  // Indexing again replaces, never duplicates.
  expect(await indexDocumentInBatches(b, { workspaceId: "ws_1", documentId: "doc_1", doc, chunking: { targetChars: 120 } }, 7)).toBe(n1);
  expect(await chunkCount(b)).toBe(n1);
});

test("other work runs between batches", async () => {
  const db = await freshDb();
  await addWorkspace(db, "ws_1");
  await addDocument(db, "ws_1", "doc_1");
  let ticks = 0;
  const timer = setInterval(() => ticks++, 0);
  await indexDocumentInBatches(db, { workspaceId: "ws_1", documentId: "doc_1", doc, chunking: { targetChars: 120 } }, 5);
  clearInterval(timer);
  expect(ticks).toBeGreaterThan(0);
});
