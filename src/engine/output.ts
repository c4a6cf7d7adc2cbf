// A run's result -> the `output` object stored on the run and the output file, for every output format.
import { render, type RenderMeta } from "../render";
import { isPlainObject } from "./schema";
import type { Evaluation, OutputFormat, RenderedFile } from "./types";

export interface ShapedOutput {
  output: Record<string, unknown>;
  file: RenderedFile;
}

/**
 * json: `output` is the value itself (the evaluation, or the workflow schema's object) and the
 * file is that JSON. markdown, docx, xlsx, csv: the file is the rendered report and `output` is
 * `{format, ...evaluation}`; for a workflow with its own schema it is `{format, summary, data}`,
 * where summary is the value's own string "summary" field when it has one, else "".
 */
export async function shapeOutput(
  format: OutputFormat,
  value: Evaluation | Record<string, unknown>,
  custom: boolean,
  meta: RenderMeta,
): Promise<ShapedOutput> {
  const file = await render(format, value, meta);
  if (format === "json") return { output: value as Record<string, unknown>, file };
  if (!custom) return { output: { format, ...(value as Evaluation) }, file };
  const summary = isPlainObject(value) && typeof value.summary === "string" ? value.summary : "";
  return { output: { format, summary, data: value }, file };
}
