// Files on disk as the engine sees them, and the engine's own entry (evaluate(), as the run worker calls it) with no
// model server: what the quality benches measure.
import { readFileSync } from "node:fs";
import path from "node:path";
import { evaluate } from "../src/engine";
import type { EngineDocument } from "../src/engine/types";
import { extract } from "../src/extract";

/** A file extracted by the server's own extractors. */
export async function documentOf(id: string, file: string): Promise<EngineDocument> {
  return { id, name: path.basename(file), content: await extract(new Uint8Array(readFileSync(file)), { filename: path.basename(file) }) };
}

/** `input` evaluated against `reference` under a product by the local evaluator, in the workflow's own schema when given. */
export async function evaluateLocally(product: string, reference: EngineDocument, input: EngineDocument, outputSchema: object | null = null) {
  const { value } = await evaluate({
    workspaceId: "ws_bench",
    mode: "live",
    runId: "run_bench",
    workflow: { userPrompt: null, outputSchema, modelPolicy: "auto", productCode: product },
    references: [reference],
    inputs: [input],
    llm: null,
    contextBudgetChars: 400_000,
  });
  return value;
}
