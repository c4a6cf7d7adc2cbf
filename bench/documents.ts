// A file on disk as the engine sees a document: extracted by the server's own extractors.
import { readFileSync } from "node:fs";
import path from "node:path";
import type { EngineDocument } from "../src/engine/types";
import { extract } from "../src/extract";

export async function documentOf(id: string, file: string): Promise<EngineDocument> {
  return { id, name: path.basename(file), content: await extract(new Uint8Array(readFileSync(file)), { filename: path.basename(file) }) };
}
