// Retrieval test helpers: a fresh database with workspaces and document rows, and corpus extraction.
import path from "node:path";
import { count, eq } from "drizzle-orm";
import { type Db, openDb, tx } from "../../src/db/client.ts";
import { chunks, documents, workspaces } from "../../src/db/schema.ts";
import { type ExtractedDocument, extract } from "../../src/extract/index.ts";
import { corpusBytes } from "../extract/helpers.ts";
import { tempDir } from "../helpers.ts";
import { testDatabaseUrl } from "../postgres.ts";

export { collapse, manifest } from "../extract/helpers.ts";

/** A fresh, empty database: SQLite in a temp dir, or with ASSAY_TEST_DATABASE_URL a fresh PostgreSQL database. */
export async function freshDb(): Promise<Db> {
  return openDb((await testDatabaseUrl()) ?? path.join(tempDir("assay-retrieval-"), "assay.db"));
}

export async function addWorkspace(db: Db, id: string): Promise<void> {
  await tx(db, (t) => t.insert(workspaces).values({ id, name: id, createdAt: 0 }));
}

/** A document row (chunks reference documents.id); the extracted content itself is not needed here. */
export async function addDocument(db: Db, workspaceId: string, id: string): Promise<void> {
  await tx(db, (t) => t.insert(documents).values({ id, workspaceId, filename: `${id}.txt`, objectKey: id, status: "extracted", createdAt: 0 }));
}

/** How many chunks the document has (all documents without one). */
export async function chunkCount(db: Db, documentId?: string): Promise<number> {
  const q = db.select({ n: count() }).from(chunks);
  const [row] = await (documentId === undefined ? q : q.where(eq(chunks.documentId, documentId)));
  return row.n;
}

export async function extractCorpus(file: string): Promise<ExtractedDocument> {
  return extract(await corpusBytes(file), { filename: path.basename(file) });
}

/** A plain-text document built by hand: sections joined with blank lines, as the extractors do. */
export function textDoc(
  sections: Array<{ text: string; location?: ExtractedDocument["sections"][number]["location"] }>,
  format: ExtractedDocument["format"] = "txt",
): ExtractedDocument {
  const secs = sections.map((s) => ({ location: s.location ?? {}, text: s.text }));
  return { format, mime_type: "text/plain", text: secs.map((s) => s.text).join("\n\n"), page_count: null, sections: secs };
}
