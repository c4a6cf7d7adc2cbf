// `assay extract FILE [--json]`: prints a document's extracted text (or its structure as JSON) for debugging.
import { basename } from "node:path";
import { ExtractError } from "./types.ts";
import { extractInWorker } from "./worker-client.ts";

export async function extractCli(path: string, json: boolean): Promise<number> {
  const file = Bun.file(path);
  if (!(await file.exists())) {
    process.stderr.write(`extract: no such file: ${path}\n`);
    return 1;
  }
  try {
    const bytes = new Uint8Array(await file.arrayBuffer());
    const doc = await extractInWorker(bytes, { filename: basename(path) });
    if (json) {
      const { format, mime_type, page_count, sections } = doc;
      process.stdout.write(`${JSON.stringify({ format, mime_type, page_count, sections }, null, 2)}\n`);
    } else {
      process.stdout.write(`${doc.text}\n`);
    }
    return 0;
  } catch (err) {
    if (err instanceof ExtractError) {
      process.stderr.write(`extract: ${err.code}: ${err.message}\n`);
      return 1;
    }
    throw err;
  }
}
