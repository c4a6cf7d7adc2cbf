// Issue 3's promise end to end: every corpus file uploaded as a reference document reaches ready through the real
// indexing job, and retrieval finds the chunk holding each expected phrase in the top 3; every bad file ends failed.
import { beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import path from "node:path";
import { createUploadedReference, getReadyReferenceDocuments, referenceStatuses } from "../../src/modules/reference-documents/service";
import { indexNext } from "../../src/modules/reference-documents/worker";
import { search } from "../../src/retrieval";
import { bytesStream } from "../../src/storage";
import { CORPUS, corpusFile, type Harness, harness, signUp } from "../helpers";

interface Entry {
  file: string;
  expected_phrases?: string[];
  expect?: string;
}
const manifest = JSON.parse(readFileSync(path.join(CORPUS, "manifest.json"), "utf8")) as Entry[];
const collapse = (s: string) => s.replace(/\s+/g, " ");

let h: Harness;
let workspaceId: string;
const refs = new Map<string, string>();

beforeAll(async () => {
  h = await harness();
  workspaceId = (await signUp(h)).workspaceId;
  for (const entry of manifest) {
    const row = await createUploadedReference(h.ctx, {
      workspaceId,
      name: entry.file,
      filename: path.basename(entry.file),
      stream: bytesStream(corpusFile(entry.file)),
    });
    refs.set(entry.file, row.id);
  }
  while (await indexNext(h.ctx));
}, 120_000);

describe("reference documents from the corpus", () => {
  for (const entry of manifest) {
    if (entry.expect === "error") {
      test(`${entry.file} ends failed with a reason`, async () => {
        const status = (await referenceStatuses(h.ctx.db, workspaceId, [refs.get(entry.file)!])).get(refs.get(entry.file)!);
        expect(status?.status).toBe("failed");
        expect(status?.failureReason?.length).toBeGreaterThan(10);
      });
      continue;
    }
    test(`${entry.file} is ready and each phrase's chunk ranks in the top 3`, async () => {
      const id = refs.get(entry.file)!;
      const [ready] = await getReadyReferenceDocuments(h.ctx.db, workspaceId, [id]);
      expect(ready?.id).toBe(id);
      for (const phrase of entry.expected_phrases ?? []) {
        const hits = await search(h.ctx.db, { workspaceId, documentIds: [ready.documentId], query: phrase, k: 3 });
        expect(
          hits.some((hit) => collapse(hit.text).includes(collapse(phrase))),
          `${entry.file}: ${phrase}`,
        ).toBe(true);
      }
    });
  }
});
