// Renders a run's output (the standard Evaluation or any JSON object) into the workflow's output file format, and shapes
// the `output` object stored on the run.
import { isPlainObject } from "../engine/schema";
import type { Evaluation, OutputFormat, RenderedFile } from "../engine/types";
import type { RenderMeta } from "./common";

export { isEvaluation, type RenderMeta } from "./common";

/**
 * An Evaluation gets the rich report layout; any other JSON value (a workflow with its own
 * output_schema) gets the generic layout: key/value pairs, arrays of objects as tables, nested
 * values as JSON text. Each renderer is loaded on first use: docx and exceljs are large, and
 * loading them at start would slow the server's cold start for runs that never need them.
 */
export async function render(format: OutputFormat, evaluation: Evaluation | Record<string, unknown>, meta: RenderMeta): Promise<RenderedFile> {
  switch (format) {
    case "json":
      return (await import("./json")).renderJson(evaluation);
    case "markdown":
      return (await import("./markdown")).renderMarkdown(evaluation, meta);
    case "csv":
      return (await import("./csv")).renderCsv(evaluation, meta);
    case "docx":
      return (await import("./docx")).renderDocx(evaluation, meta);
    case "xlsx":
      return (await import("./xlsx")).renderXlsx(evaluation, meta);
    default: {
      // Unreachable when callers are typed; guards a format read from the database at run time.
      const unknown: never = format;
      throw new Error(`Unsupported output format: ${String(unknown)}`);
    }
  }
}

export interface ShapedOutput {
  output: Record<string, unknown>;
  file: RenderedFile;
}

/**
 * A run's result -> the `output` object stored on the run and the output file, for every output format.
 * json: `output` is the value itself (the evaluation, or the workflow schema's object) and the file is that JSON.
 * markdown, docx, xlsx, csv: the file is the rendered report and `output` is `{format, ...evaluation}`; for a workflow
 * with its own schema it is `{format, summary, data}`, where summary is the value's own string "summary" field when it
 * has a non-empty one, else the evaluation's (`evaluated`, where one was made), else "".
 */
export async function shapeOutput(
  format: OutputFormat,
  value: Evaluation | Record<string, unknown>,
  custom: boolean,
  meta: RenderMeta,
  evaluated: string | null = null,
): Promise<ShapedOutput> {
  const file = await render(format, value, meta);
  if (format === "json") return { output: value as Record<string, unknown>, file };
  if (!custom) return { output: { format, ...(value as Evaluation) }, file };
  const own = isPlainObject(value) && typeof value.summary === "string" ? value.summary : "";
  return { output: { format, summary: own || (evaluated ?? ""), data: value }, file };
}
