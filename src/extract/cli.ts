// `assay extract FILE [--json]`: prints a document's extracted text (or its structure as JSON) for debugging.
import { basename } from "node:path";
import { ExtractError } from "./types.ts";
import { extractInWorker } from "./worker-client.ts";

const USAGE = "usage: extract FILE [--json]";

export async function extractCli(args: string[]): Promise<number> {
  const json = args.includes("--json");
  const files = args.filter((a) => a !== "--json");
  if (files.length !== 1 || files[0].startsWith("-")) {
    process.stderr.write(`${USAGE}\n`);
    return 2;
  }
  const path = files[0];
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
