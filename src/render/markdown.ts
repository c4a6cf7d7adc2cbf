// Markdown renderer: a readable report (verdict, score, summary, criteria table, then each criterion's rationale and quoted evidence).
import type { Evaluation, RenderedFile } from "../engine/types";
import { evidenceSource, generatedAt, isEvaluation, type RenderMeta, utf8, verdictLabel } from "./common";
import { type GenericModel, scalarText, toGenericModel } from "./generic";

export function renderMarkdown(value: unknown, meta: RenderMeta): RenderedFile {
  const text = isEvaluation(value) ? evaluationMarkdown(value, meta) : genericMarkdown(toGenericModel(value), meta);
  return { bytes: utf8.encode(text), mime_type: "text/markdown", extension: "md" };
}

function evaluationMarkdown(ev: Evaluation, meta: RenderMeta): string {
  const out: string[] = [`# ${inline(meta.title)}`, ""];
  out.push(`**Verdict:** ${verdictLabel(ev.verdict)} · **Score:** ${ev.score}/100`, "");
  out.push(...metaLines(meta));
  out.push("## Summary", "", ev.summary, "");
  if (ev.criteria.length > 0) {
    out.push("## Criteria", "", "| ID | Criterion | Score | Evidence |", "| --- | --- | ---: | ---: |");
    for (const c of ev.criteria) {
      out.push(`| ${cell(c.id)} | ${cell(c.title)} | ${c.score} / ${c.max_score} | ${c.evidence.length} |`);
    }
    out.push("");
    for (const c of ev.criteria) {
      out.push(`### ${inline(c.title)} (${c.score} / ${c.max_score})`, "", c.rationale, "");
      for (const e of c.evidence) {
        // A quote can span lines: every line needs the marker or the blockquote ends early.
        out.push(...e.quote.split(/\r\n|\r|\n/).map((l) => (l === "" ? ">" : `> ${l}`)));
        out.push(">", `> — ${inline(evidenceSource(e, meta))}`, "");
      }
    }
  }
  return `${out.join("\n").trimEnd()}\n`;
}

function genericMarkdown(model: GenericModel, meta: RenderMeta): string {
  const out: string[] = [`# ${inline(meta.title)}`, "", ...metaLines(meta)];
  if (model.fields.length > 0) {
    out.push("| Field | Value |", "| --- | --- |");
    for (const f of model.fields) out.push(`| ${cell(f.key)} | ${cell(scalarText(f.value))} |`);
    out.push("");
  }
  for (const t of model.tables) {
    out.push(`## ${inline(t.key)}`, "");
    out.push(`| ${t.columns.map(cell).join(" | ")} |`, `| ${t.columns.map(() => "---").join(" | ")} |`);
    for (const r of t.rows) out.push(`| ${r.map((v) => cell(scalarText(v))).join(" | ")} |`);
    out.push("");
  }
  return `${out.join("\n").trimEnd()}\n`;
}

function metaLines(meta: RenderMeta): string[] {
  const lines: string[] = [];
  if (meta.workflowName) lines.push(`- Workflow: ${inline(meta.workflowName)}`);
  if (meta.runId) lines.push(`- Run: \`${meta.runId}\``);
  lines.push(`- Generated: ${generatedAt(meta).toISOString()}`);
  return [...lines, ""];
}

/** Text inside a heading or list item: one line. */
function inline(text: string): string {
  return text.replace(/\s*(\r\n|\r|\n)\s*/g, " ");
}

/** Text inside a table cell: a pipe would start a new column and a newline would end the row. */
function cell(text: string): string {
  const escaped = text.replace(/\|/g, "\\|").replace(/\r\n|\r|\n/g, "<br>");
  return escaped === "" ? " " : escaped;
}
