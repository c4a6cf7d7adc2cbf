// `assay extract FILE [--json]`: prints a document's extracted text (or its structure as JSON) for debugging.
// console.log, not process.stdout.write: the CLI exits right after, and under Bun an exit drops what a pipe has not
// taken yet from process.stdout (all but the first 64 kB of `assay extract big.csv | less`); console.log writes at once.
import { basename } from "node:path";
import { ExtractError } from "./types.ts";
import { extractInWorker } from "./worker-client.ts";

export async function extractCli(path: string, json: boolean): Promise<number> {
  const file = Bun.file(path);
  if (!(await file.exists())) {
    console.error(`extract: no such file: ${path}`);
    return 1;
  }
  try {
    const bytes = new Uint8Array(await file.arrayBuffer());
    const doc = await extractInWorker(bytes, { filename: basename(path) });
    if (json) {
      const { format, mime_type, page_count, sections } = doc;
      console.log(JSON.stringify({ format, mime_type, page_count, sections }, null, 2));
    } else {
      console.log(doc.text);
    }
    return 0;
  } catch (err) {
    if (err instanceof ExtractError) {
      console.error(`extract: ${err.code}: ${err.message}`);
      return 1;
    }
    throw err;
  }
}
