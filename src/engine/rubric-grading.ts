// Model grading that follows the rubric: one call per criterion with that criterion's levels and the input passages
// retrieved for it; the model names the matching level descriptor before the number; N samples give a median, and
// samples spread over more than one level make the run needs_review. Quotes are checked against the input.
import type { Config } from "../config";
import { formatLocation } from "../lib/location";
import { type Chunk, chunkDocument, rankChunks } from "../retrieval";
import { verifyCitations } from "./citations";
import { EngineError } from "./errors";
import type { RubricCriterion } from "./local/criteria";
import { yearsAskedBy, yearsFor, yearsShown } from "./local/experience";
import {
  nothingUnmet,
  overallScore,
  passLevel,
  requiredPart,
  settleUnmet,
  shareOf,
  type Unmet,
  unmetRequirements,
  unmetSentences,
  withWeightsNoted,
} from "./local/verdict";
import { type ChatMessage, chatJson, ModelError, openAIConfig } from "./providers/openai";
import { compileSchema } from "./schema";
import type { Criterion, EngineDocument, Evaluation, Evidence } from "./types";

export interface RubricGradingInput {
  llm: NonNullable<Config["llm"]>;
  criteria: RubricCriterion[];
  inputs: EngineDocument[];
  prompt: string | null;
  /** The references' text, where a stated pass mark is looked for. */
  referenceTexts: string[];
  /** ASSAY_PASS_THRESHOLD, when neither the prompt nor the rubric states a pass line. */
  passThreshold: number;
  /**
   * Whether every criterion not marked optional must be met (a contract's clauses, a job's must-haves): the same rules
   * as the local evaluator's hold the model's verdict back (docs/models.md).
   */
  allRequired?: boolean;
  /** Today, for a CV's roles held "to Present" (default: the time of the call). */
  now?: Date;
  signal?: AbortSignal;
}

export interface RubricGradingResult {
  evaluation: Evaluation;
  usage: { input_tokens: number; output_tokens: number };
  model: string;
  /** Quotes the model gave that are not text of the input: dropped. */
  unresolvedQuotes: number;
}

/**
 * Input text shown per criterion. A short input (an essay) fits whole; a long one is cut to the passages that match
 * the criterion best, so every criterion's call stays small enough for a 7–13B model's context.
 */
const CRITERION_EVIDENCE_CHARS = 8_000;
/** Calls in flight at once: local servers mostly serve one or two at a time. */
const CONCURRENCY = 2;

interface SampleAnswer {
  evidence: { document_id: string; quote: string; location?: Record<string, unknown> }[];
  rationale: string;
  level_descriptor?: string;
  score: number;
}

/** Grades every criterion with the model and assembles the evaluation. Throws EngineError (model_error, output_invalid). */
export async function gradeByRubric(req: RubricGradingInput): Promise<RubricGradingResult> {
  const samples = Math.max(1, req.llm.samples ?? 1);
  const chunks = req.inputs.flatMap((d) => chunkDocument(d.content, { overlapChars: 0 }).map((c) => ({ doc: d, chunk: c })));
  const usage = { input_tokens: 0, output_tokens: 0 };
  let model = req.llm.model ?? "";

  const jobs = req.criteria.flatMap((_, ci) => Array.from({ length: samples }, (_, si) => ({ ci, si })));
  const answers: SampleAnswer[][] = req.criteria.map(() => new Array<SampleAnswer>(samples));
  const prepared = req.criteria.map((c) => {
    const schema = criterionSchema(c);
    const evidence = evidenceFor(c, chunks);
    return {
      schema,
      validate: compileSchema(schema).validate,
      messages: criterionMessages(c, req.prompt, evidence, evidence.length === chunks.length),
    };
  });

  // The first failure fails the run: the calls still waiting are not made, and those in flight are stopped.
  const stop = new AbortController();
  const signal = req.signal ? AbortSignal.any([req.signal, stop.signal]) : stop.signal;
  let next = 0;
  const worker = async () => {
    while (next < jobs.length && !signal.aborted) {
      const { ci, si } = jobs[next++];
      const p = prepared[ci];
      try {
        const answer = await chatJson(openAIConfig(req.llm, signal), {
          messages: p.messages,
          schema: p.schema,
          schemaName: "criterion_grade",
          validate: p.validate,
        });
        usage.input_tokens += answer.usage.input_tokens;
        usage.output_tokens += answer.usage.output_tokens;
        model = answer.model;
        answers[ci][si] = answer.value as SampleAnswer;
      } catch (e) {
        stop.abort(e);
        if (e instanceof ModelError) throw new EngineError(e.code, e.message);
        throw e;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, jobs.length) }, worker));
  // The run was taken away from this worker: its reason, not a half-graded evaluation.
  req.signal?.throwIfAborted();

  const disputed: string[] = [];
  const graded: Criterion[] = req.criteria.map((c, ci) => {
    const scores = answers[ci].map((a) => snap(c, a.score));
    const median = medianOnScale(c, scores);
    const chosen = answers[ci][scores.indexOf(median)] ?? answers[ci][0];
    const spread = new Set(scores).size > 1;
    if (spread) disputed.push(c.title);
    const rationale = [
      chosen.level_descriptor ? `Level ${median}: ${chosen.level_descriptor.trim()}.` : "",
      chosen.rationale.trim(),
      spread ? `The ${samples} samples disagreed (${scores.join(", ")}); the median is kept.` : "",
    ]
      .filter(Boolean)
      .join(" ");
    const evidence: Evidence[] = (chosen.evidence ?? []).map((e) => ({
      document_id: e.document_id,
      quote: e.quote,
      location: (e.location ?? {}) as Evidence["location"],
    }));
    return { id: c.id, title: c.title, score: median, max_score: c.maxScore, rationale, evidence };
  });
  const criteria = withWeightsNoted(graded, req.criteria);

  const score = overallScore(criteria, req.criteria);
  const pass = passLevel(req.criteria, req.prompt, req.referenceTexts, req.passThreshold);
  const line = 100 * pass.share;
  // (Optional criteria, a job's nice-to-haves, add to the score but are no part of the pass.)
  const required = requiredPart(criteria, req.criteria)?.score ?? null;
  const judged = required ?? score;
  // Where every requirement must be met, a must-have the model scored as missing and years of work the CV's dates do
  // not reach hold the verdict back as they do the local evaluator's (the years counted from the CV's dates, not from
  // the model's reading of them): one rule on both paths, so a workflow's verdict means the same with or without a model.
  const [cvText, now] = [req.inputs.map((d) => d.content.text).join("\n"), req.now ?? new Date()];
  const all = req.allRequired ? yearsShown(cvText, now) : null;
  const unmet: Unmet<Criterion> = req.allRequired
    ? unmetRequirements(
        criteria,
        req.criteria,
        req.criteria.map(yearsAskedBy),
        req.criteria.map((c) => yearsFor(c, cvText, now, all)),
      )
    : nothingUnmet<Criterion>();
  // Samples that land on different levels mean the model cannot tell: a person decides.
  const verdict = settleUnmet(disputed.length > 0 ? "needs_review" : judged >= line ? "pass" : "fail", unmet);
  const draft: Evaluation = { summary: summarize(criteria, score, line, disputed, required, unmet), score, verdict, criteria };
  // Quotes are checked against the input only: the evidence for a grade is the work, not the rubric.
  const checked = verifyCitations(draft, req.inputs);
  return { evaluation: checked.evaluation, usage, model, unresolvedQuotes: checked.dropped };
}

// ---------------------------------------------------------------------------

interface Piece {
  doc: EngineDocument;
  chunk: Chunk;
}

/** The input passages for one criterion: best BM25 matches of its title, descriptors and levels first, then the rest, up to the budget; in document order. */
function evidenceFor(c: RubricCriterion, pieces: Piece[]): Piece[] {
  const total = pieces.reduce((n, p) => n + p.chunk.text.length, 0);
  if (total <= CRITERION_EVIDENCE_CHARS) return pieces;
  const query = [c.title, c.description, ...(c.levels ?? []).map((l) => l.descriptor)].join(" ");
  const ranked = rankChunks(
    pieces.map((p) => p.chunk),
    query,
    pieces.length,
  ).map((r) => r.chunk);
  // A criterion whose words the work never uses (conventions, style) still needs text to judge: the unranked follow in order.
  const order = [...ranked, ...pieces.map((p) => p.chunk).filter((ch) => !ranked.includes(ch))];
  const keep = new Set<Chunk>();
  let used = 0;
  for (const ch of order) {
    if (used + ch.text.length > CRITERION_EVIDENCE_CHARS) continue;
    keep.add(ch);
    used += ch.text.length;
  }
  return pieces.filter((p) => keep.has(p.chunk));
}

function criterionSchema(c: RubricCriterion): Record<string, unknown> {
  const levels = c.levels && c.levels.length >= 2 ? c.levels : null;
  // Property order is the order the model writes: quotes, reasoning, the matching level, and only then the number.
  return {
    type: "object",
    properties: {
      evidence: {
        type: "array",
        maxItems: 3,
        items: {
          type: "object",
          properties: {
            document_id: { type: "string", minLength: 1 },
            quote: { type: "string", minLength: 1 },
            location: { type: "object" },
          },
          required: ["document_id", "quote", "location"],
          additionalProperties: false,
        },
      },
      rationale: { type: "string" },
      ...(levels ? { level_descriptor: { type: "string", minLength: 1 } } : {}),
      score: levels ? { type: "number", enum: levels.map((l) => l.value) } : { type: "number", minimum: 0, maximum: c.maxScore },
    },
    required: ["evidence", "rationale", ...(levels ? ["level_descriptor"] : []), "score"],
    additionalProperties: false,
  };
}

const DEFAULT_TASK = "Evaluate the input documents against the rubric.";

function criterionMessages(c: RubricCriterion, prompt: string | null, pieces: Piece[], whole: boolean): ChatMessage[] {
  const levels = c.levels && c.levels.length >= 2 ? c.levels : null;
  const system = [
    "You are Assay, a careful evaluator of documents. You grade ONE criterion of a rubric at a time, using only the " +
      "passages of the input shown to you. Never invent facts or quotes.",
    "Answer with one JSON object:",
    "- evidence: up to 3 items {document_id, quote, location}. quote is copied verbatim, character for character, from " +
      "one passage below (a sentence or a short passage, never paraphrased or shortened with ellipses); document_id and " +
      "location are the ones printed above that passage. An empty list when the input holds no evidence.",
    "- rationale: two or three sentences comparing the work with the level descriptors.",
    levels
      ? "- level_descriptor: the descriptor of the one level the work matches, copied from the list of levels.\n" + "- score: that level's number."
      : `- score: 0 to ${c.maxScore}, the points this criterion earns.`,
  ].join("\n");
  const where = (p: Piece) => {
    const label = formatLocation(p.chunk.location);
    return `## ${p.doc.id} "${p.doc.name}"${label ? ` — ${label}` : ""}\nlocation: ${JSON.stringify(p.chunk.location)}\n${p.chunk.text}`;
  };
  const blocks = [
    `# Task\n${prompt?.trim() || DEFAULT_TASK}`,
    `# Criterion: ${c.title} (scored 0–${c.maxScore})${c.description.trim() ? `\n${c.description.trim()}` : ""}`,
    levels
      ? `## Levels\n${[...levels]
          .reverse()
          .map((l) => `- ${l.value}: ${l.descriptor}`)
          .join("\n")}`
      : "",
    `# Evidence: ${whole ? "the input" : "the passages of the input most relevant to this criterion"} (quote from here)\n\n${pieces.map(where).join("\n\n")}`,
  ];
  return [
    { role: "system", content: system },
    { role: "user", content: blocks.filter(Boolean).join("\n\n") },
  ];
}

/** A model's number on the criterion's scale: the nearest level (a tie goes to the lower), else whole or half points in 0..max. */
function snap(c: RubricCriterion, raw: number): number {
  const x = Math.min(c.maxScore, Math.max(0, Number.isFinite(raw) ? raw : 0));
  if (c.levels && c.levels.length >= 2) {
    return c.levels.reduce((best, l) => (Math.abs(l.value - x) < Math.abs(best.value - x) - 1e-9 ? l : best)).value;
  }
  return c.maxScore >= 5 ? Math.round(x) : Math.round(x * 2) / 2;
}

/** The median sample; with an even count the lower middle one, so the grade is always a score a sample gave. */
function medianOnScale(c: RubricCriterion, scores: number[]): number {
  const sorted = [...scores].sort((a, b) => a - b);
  return snap(c, sorted[Math.floor((sorted.length - 1) / 2)]);
}

function summarize(criteria: Criterion[], score: number, line: number, disputed: string[], required: number | null, unmet: Unmet<Criterion>): string {
  const sorted = [...criteria].sort((a, b) => shareOf(b) - shareOf(a));
  const best = sorted[0];
  const worst = sorted[sorted.length - 1];
  const against = required === null ? "" : ` (the required criteria ${required}/100; the optional ones add to the score only)`;
  const parts = [`Graded criterion by criterion by the model: ${score}/100 against a pass line of ${Math.round(line)}${against}.`];
  if (best && worst && best !== worst)
    parts.push(`Strongest: ${best.title} (${best.score}/${best.max_score}); weakest: ${worst.title} (${worst.score}/${worst.max_score}).`);
  if (disputed.length > 0) parts.push(`The samples disagreed on ${disputed.join(", ")}: a person should decide.`);
  parts.push(...unmetSentences(unmet));
  return parts.join(" ");
}
