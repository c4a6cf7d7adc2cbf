// Retrieval test helpers: a fresh database with workspaces and document rows, and corpus extraction.
import path from "node:path";
import { type Db, openDb } from "../../src/db/client.ts";
import { documents, workspaces } from "../../src/db/schema.ts";
import { type ExtractedDocument, extract } from "../../src/extract/index.ts";
import { corpusBytes } from "../extract/helpers.ts";
import { tempDir } from "../helpers.ts";

export { collapse, manifest } from "../extract/helpers.ts";

export function freshDb(): Db {
  return openDb(path.join(tempDir("assay-retrieval-"), "assay.db"));
}

export function addWorkspace(db: Db, id: string): void {
  db.insert(workspaces).values({ id, name: id, createdAt: 0 }).run();
}

/** A document row (chunks reference documents.id); the extracted content itself is not needed here. */
export function addDocument(db: Db, workspaceId: string, id: string): void {
  db.insert(documents)
    .values({ id, workspaceId, filename: `${id}.txt`, objectKey: id, status: "extracted", createdAt: 0 })
    .run();
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
