// search/searchMany/rankChunks: scoping to workspace and documents, safe queries, ranking, reindexing, locations.
import { beforeAll, describe, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import { type Db, dialectOf, exec, tx } from "../../src/db/client.ts";
import {
  chunkDocument,
  deleteDocumentChunks,
  indexDocument,
  MAX_TERMS,
  queryTerms,
  rankChunks,
  rankChunksMany,
  search,
  searchMany,
} from "../../src/retrieval/index.ts";
import { addDocument, addWorkspace, chunkCount as countChunks, extractCorpus, freshDb, textDoc } from "./helpers.ts";

let db: Db;
const A = "ws_a";
const B = "ws_b";

const chunkCount = (documentId: string) => countChunks(db, documentId);

beforeAll(async () => {
  db = await freshDb();
  await addWorkspace(db, A);
  await addWorkspace(db, B);
  for (const [ws, id] of [
    [A, "a1"],
    [A, "a2"],
    [B, "b1"],
    [A, "many"],
    [A, "stems"],
  ])
    await addDocument(db, ws, id);
  await indexDocument(db, {
    workspaceId: A,
    documentId: "a1",
    doc: textDoc(
      [
        { text: "The quarterly revenue grew by twelve percent.", location: { slide: 3, heading: "Results" } },
        { text: "To be, or not to be, that is the question.", location: { slide: 4 } },
      ],
      "pptx",
    ),
  });
  await indexDocument(db, { workspaceId: A, documentId: "a2", doc: textDoc([{ text: "Revenue recognition policy for subscriptions." }]) });
  await indexDocument(db, { workspaceId: B, documentId: "b1", doc: textDoc([{ text: "Confidential revenue forecast of another tenant." }]) });
  await indexDocument(db, {
    workspaceId: A,
    documentId: "many",
    doc: textDoc(
      Array.from({ length: 10 }, (_, i) => ({ text: `Pricing note ${i}: ${"discount ".repeat(i + 1)}applies.`, location: { page: i + 1 } })),
    ),
  });
  await indexDocument(db, {
    workspaceId: A,
    documentId: "stems",
    doc: textDoc([
      { text: "An exempt chemical preparation. The exempt chemical preparation must be labelled; exempt chemical preparation rules." },
      { text: "Applications list exempt chemical preparations among other filings, reports, forms and several unrelated items here." },
    ]),
  });
});

describe("scope", () => {
  test("only the given documents of the given workspace are searched", async () => {
    expect((await search(db, { workspaceId: A, documentIds: ["a1"], query: "revenue" })).map((h) => h.documentId)).toEqual(["a1"]);
    const both = (await search(db, { workspaceId: A, documentIds: ["a1", "a2", "b1"], query: "revenue" })).map((h) => h.documentId);
    expect(both.sort()).toEqual(["a1", "a2"]);
    // Another workspace's document id, even when named explicitly, finds nothing.
    expect(await search(db, { workspaceId: A, documentIds: ["b1"], query: "revenue forecast" })).toEqual([]);
    expect(await search(db, { workspaceId: B, documentIds: ["a1", "a2"], query: "revenue" })).toEqual([]);
    expect((await search(db, { workspaceId: B, documentIds: ["b1"], query: "revenue" })).map((h) => h.documentId)).toEqual(["b1"]);
  });

  test("no documents or no words means no hits", async () => {
    expect(await search(db, { workspaceId: A, documentIds: [], query: "revenue" })).toEqual([]);
    for (const query of ["", "   ", "!!! ... ---", "\u0000"]) expect(await search(db, { workspaceId: A, documentIds: ["a1"], query })).toEqual([]);
  });
});

describe("queries are free text, never FTS5 syntax", () => {
  const hostile = [
    '"',
    '""',
    '"revenue',
    "revenue*",
    "*",
    "NEAR(revenue grew)",
    "NEAR(",
    "revenue AND OR NOT grew",
    "AND",
    "OR",
    "NOT",
    "text:revenue",
    "chunks_fts:revenue",
    "^revenue",
    "(revenue",
    "revenue)",
    "()",
    "-revenue",
    "+revenue",
    "{text}: revenue",
    "revenue NEAR/2 grew",
    "'; DROP TABLE chunks; --",
    "rev\u0000enue",
    "\\",
    "rank:bm25",
    `${"(".repeat(500)}revenue`,
  ];
  for (const query of hostile) {
    test(JSON.stringify(query.slice(0, 40)), async () => {
      const hits = await search(db, { workspaceId: A, documentIds: ["a1", "a2"], query });
      if (/revenue/i.test(query)) expect(hits.length).toBeGreaterThan(0);
    });
  }

  test("a 10 kB query of mixed syntax and words still answers", async () => {
    const pieces = ['"', "*", "NEAR(", "AND", "OR", "NOT", ":", "^", "(", ")", "revenue", "grew", "x", "-", "{", "}"];
    let query = "";
    for (let i = 0; query.length < 10_000; i++) query += pieces[(i * 7) % pieces.length] + (i % 3 ? " " : "");
    const hits = await search(db, { workspaceId: A, documentIds: ["a1", "a2"], query });
    expect(hits[0]?.text).toContain("revenue grew");
  });

  test("random text never throws", async () => {
    let seed = 42;
    const rand = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const alphabet = " \"*():^-+{}[]NEARANDORNOT\\'\u00e9\u0301\u4e2d\u{1F600}\n\tabcxyz0129.,;/";
    for (let n = 0; n < 300; n++) {
      const chars = Array.from({ length: 1 + Math.floor(rand() * 60) }, () => [...alphabet][Math.floor(rand() * [...alphabet].length)]);
      await search(db, { workspaceId: A, documentIds: ["a1", "a2", "many"], query: chars.join("") });
    }
  });

  test("long queries keep at most MAX_TERMS terms, preferring repeated ones", async () => {
    const filler = Array.from({ length: 2000 }, (_, i) => `filler${i}`).join(" ");
    const query = `${filler} revenue revenue`;
    expect(queryTerms(query).length).toBe(MAX_TERMS);
    expect(queryTerms(query)).toContain("revenue");
    expect((await search(db, { workspaceId: A, documentIds: ["a1"], query }))[0]?.text).toContain("revenue");
  });

  test("stopwords are dropped, unless the query has nothing else", async () => {
    expect(queryTerms("What is the policy for revenue?")).toEqual(["policy", "revenue"]);
    const hits = await search(db, { workspaceId: A, documentIds: ["a1"], query: "to be or not to be" });
    expect(hits[0]?.text).toBe("To be, or not to be, that is the question.");
  });
});

describe("ranking", () => {
  test("best first by bm25, k hits (5 by default)", async () => {
    const hits = await search(db, { workspaceId: A, documentIds: ["many"], query: "discount" });
    expect(hits.length).toBe(5);
    expect(hits.map((h) => h.score)).toEqual([...hits.map((h) => h.score)].sort((x, y) => x - y));
    expect((await search(db, { workspaceId: A, documentIds: ["many"], query: "discount", k: 2 })).length).toBe(2);
    expect(await search(db, { workspaceId: A, documentIds: ["many"], query: "discount", k: 0 })).toEqual([]);
  });

  test("the exact phrase outranks chunks that only match its stems", async () => {
    const hits = await search(db, { workspaceId: A, documentIds: ["stems"], query: "exempt chemical preparations", k: 2 });
    expect(hits[0]?.text).toContain("exempt chemical preparations");
    expect(hits.length).toBe(2);
    // Stemming still finds the singular form.
    expect(hits[1]?.text).toContain("exempt chemical preparation.");
  });

  test("a hit carries its location, offset and a short snippet around the match", async () => {
    const [hit] = await search(db, { workspaceId: A, documentIds: ["a1"], query: "quarterly revenue" });
    expect(hit.location).toEqual({ slide: 3, heading: "Results" });
    expect(hit.startOffset).toBe(0);
    expect(hit.ord).toBe(0);
    expect(hit.chunkId).toBeGreaterThan(0);
    expect(hit.snippet).toContain("quarterly revenue");
    const long = (await search(db, { workspaceId: A, documentIds: ["many"], query: "discount" }))[0];
    expect(long.snippet.length).toBeLessThanOrEqual(241);
    expect(long.snippet).toContain("discount");
  });

  test("searchMany answers each query in order", async () => {
    const results = await searchMany(db, {
      workspaceId: A,
      documentIds: ["a1", "a2"],
      queries: ["recognition policy", "question", "nothing-here"],
      k: 3,
    });
    expect(results.map((r) => r.map((h) => h.documentId))).toEqual([["a2"], ["a1"], []]);
  });
});

describe("indexing", () => {
  test("reindexing replaces the document's chunks", async () => {
    await addDocument(db, A, "re");
    expect(await indexDocument(db, { workspaceId: A, documentId: "re", doc: textDoc([{ text: "alpha version of the playbook" }]) })).toBe(1);
    expect((await search(db, { workspaceId: A, documentIds: ["re"], query: "alpha" })).length).toBe(1);
    const n = await indexDocument(db, { workspaceId: A, documentId: "re", doc: textDoc([{ text: "beta playbook" }, { text: "beta appendix" }]) });
    expect(n).toBe(2);
    expect(await chunkCount("re")).toBe(2);
    expect(await search(db, { workspaceId: A, documentIds: ["re"], query: "alpha" })).toEqual([]);
    expect((await search(db, { workspaceId: A, documentIds: ["re"], query: "beta" })).map((h) => h.ord).sort()).toEqual([0, 1]);
  });

  test("deleting a document's chunks removes them from search and keeps the index consistent", async () => {
    await addDocument(db, A, "gone");
    await indexDocument(db, { workspaceId: A, documentId: "gone", doc: textDoc([{ text: "ephemeral rubric" }]) });
    expect(await deleteDocumentChunks(db, "gone")).toBe(1);
    expect(await chunkCount("gone")).toBe(0);
    expect(await search(db, { workspaceId: A, documentIds: ["gone"], query: "ephemeral" })).toEqual([]);
    expect(await deleteDocumentChunks(db, "gone")).toBe(0);
    // FTS5's own check that chunks_fts matches chunks (the triggers kept it in step); PostgreSQL has no such index.
    if (dialectOf(db) === "sqlite") await tx(db, (t) => exec(t, sql`INSERT INTO chunks_fts(chunks_fts) VALUES ('integrity-check')`));
  });

  test("indexing joins a caller's transaction, and rolls back with it", async () => {
    await addDocument(db, A, "outer");
    expect(
      tx(db, async (t) => {
        await indexDocument(t, { workspaceId: A, documentId: "outer", doc: textDoc([{ text: "rolled back words" }]) });
        expect(await countChunks(t, "outer")).toBe(1);
        throw new Error("caller failed");
      }),
    ).rejects.toThrow("caller failed");
    expect(await chunkCount("outer")).toBe(0);
    await tx(db, (t) => indexDocument(t, { workspaceId: A, documentId: "outer", doc: textDoc([{ text: "committed words" }]) }));
    expect((await search(db, { workspaceId: A, documentIds: ["outer"], query: "committed" })).length).toBe(1);
  });

  test("a 41-page PDF is indexed well under a second", async () => {
    const doc = await extractCorpus("pdf/tika-testPDF-protected.pdf");
    await addDocument(db, A, "speech");
    const t0 = performance.now();
    const n = await indexDocument(db, { workspaceId: A, documentId: "speech", doc });
    await indexDocument(db, { workspaceId: A, documentId: "speech", doc }); // and again, replacing
    const ms = performance.now() - t0;
    expect(n).toBeGreaterThan(41);
    expect(await chunkCount("speech")).toBe(n);
    expect(ms).toBeLessThan(1000);
  });
});

describe("rankChunks (text that is not indexed)", () => {
  test("ranks like search over the same chunks", async () => {
    const doc = await extractCorpus("md/mammoth-README.md");
    const solo = await freshDb();
    await addWorkspace(solo, "w");
    await addDocument(solo, "w", "d");
    await indexDocument(solo, { workspaceId: "w", documentId: "d", doc });
    const chunks = chunkDocument(doc);
    const queries = ["style map paragraph", "convert docx to HTML", "embedded style map", "images", "zzzz"];
    const many = rankChunksMany(chunks, queries, 4);
    for (const [i, query] of queries.entries()) {
      const viaDb = await search(solo, { workspaceId: "w", documentIds: ["d"], query, k: 4 });
      const inMemory = rankChunks(chunks, query, 4);
      expect(many[i].map((r) => r.chunk.ord)).toEqual(inMemory.map((r) => r.chunk.ord));
      if (dialectOf(solo) === "sqlite") {
        // The same bm25 over the same chunks: the same hits, scores and snippets.
        expect(inMemory.map((r) => r.chunk.ord)).toEqual(viaDb.map((h) => h.ord));
        inMemory.forEach((r, j) => {
          expect(r.score).toBeCloseTo(viaDb[j].score, 6);
          expect(r.snippet).toBe(viaDb[j].snippet);
        });
      } else {
        // PostgreSQL's index ranks by ts_rank, so the order may differ; a chunk both find gets the same snippet.
        expect(viaDb.length > 0).toBe(inMemory.length > 0);
        const byOrd = new Map(viaDb.map((h) => [h.ord, h.snippet]));
        for (const r of inMemory) if (byOrd.has(r.chunk.ord)) expect(r.snippet).toBe(byOrd.get(r.chunk.ord) as string);
      }
    }
    expect(many[4]).toEqual([]);
  });

  test("empty inputs give empty results", async () => {
    expect(rankChunks([], "anything", 3)).toEqual([]);
    expect(rankChunks(chunkDocument(textDoc([{ text: "some words" }])), '"*()', 3)).toEqual([]);
  });
});

describe("a large index (common terms left out of the query)", () => {
  // 24,000 chunks, every one holding "common" and "frequent"; "rare" in a few; "sometimes" in every third.
  let big: Db;
  beforeAll(async () => {
    big = await freshDb();
    await addWorkspace(big, A);
    await addDocument(big, A, "big");
    const sections = Array.from({ length: 24_000 }, (_, i) => ({
      text: `Row ${i} is common and frequent${i % 3 === 0 ? " sometimes" : ""}${i % 5_000 === 7 ? " with a rare finding" : ""}.`,
      location: { row: i },
    }));
    await indexDocument(big, { workspaceId: A, documentId: "big", doc: textDoc(sections), chunking: { targetChars: 50 } });
  });

  test("a rare term still finds its chunks first among terms every chunk holds", async () => {
    const hits = await search(big, { workspaceId: A, documentIds: ["big"], query: "common frequent rare finding", k: 10 });
    expect(hits.length).toBe(5);
    expect(hits.every((h) => h.text.includes("rare finding"))).toBe(true);
  });

  test("a query of common terms only still answers (its rarest term is kept)", async () => {
    const hits = await search(big, { workspaceId: A, documentIds: ["big"], query: "common frequent sometimes", k: 10 });
    expect(hits.length).toBe(10);
    expect(hits.every((h) => h.text.includes("sometimes"))).toBe(true);
  });

  test("an exact phrase of common words is still found first", async () => {
    const hits = await search(big, { workspaceId: A, documentIds: ["big"], query: "Row 4242 is common", k: 3 });
    expect(hits[0].text).toContain("Row 4242 is common");
  });
});
