// The evaluation engine's one entry: documents + workflow -> policy -> provider (local, OpenAI-compatible or test stub) -> validated output.
// Rendering the output into a file is the run worker's job (render/), not the engine's.
import type { Config } from "../config";
import type { Db } from "../db/client";
import type { Section } from "../extract/types";
import { verifyCitations } from "./citations";
import { evaluateLocallyInWorker, fillInWorker, stubInWorker, validateInWorker } from "./compute";
import { EngineError } from "./errors";
import { findCriteria } from "./local/criteria";
import { DEFAULT_PASS_PERCENT } from "./local/verdict";
import { evaluateWithModel } from "./model";
import { placeSections, sectionAt } from "./passages";
import { type ContextPlan, planContext } from "./policy";
import { gradeByRubric } from "./rubric-grading";
import { compileSchema, isPlainObject } from "./schema";
import { stubEvaluation } from "./stub";
import type { EngineDocument, EngineReference, Evaluation, ModelPolicy, RunUsage } from "./types";

export { EngineError } from "./errors";
export { resolveOutputSchema } from "./output-schema";

interface EvaluateWorkflow {
  userPrompt: string | null;
  outputSchema: object | null;
  modelPolicy: ModelPolicy;
  productCode: string;
}

export interface EvaluateInput {
  /** With db, file_search/hybrid search the FTS5 index of the references' chunks; without, the same BM25 runs in memory. */
  db?: Db;
  workspaceId: string;
  /** test: a svc_test_ key; stub output, no model call. */
  mode: "live" | "test";
  workflow: EvaluateWorkflow;
  /** Reference documents, extracted; `documentId` is the documents.id their chunks are indexed under (for ref_… ids). */
  references: EngineReference[];
  /** Input documents, extracted. */
  inputs: EngineDocument[];
  /** null: the built-in local evaluator. */
  llm: Config["llm"];
  contextBudgetChars: number;
  /** ASSAY_PASS_THRESHOLD: percent of the maximum that passes when neither the prompt nor the rubric says (default 60). */
  passThreshold?: number;
  /** Seeds test-mode stubs. */
  runId?: string;
  /** Aborted when the work must stop (the run's lease was lost): the model call ends and evaluate rejects. */
  signal?: AbortSignal;
}

export interface EvaluateResult {
  /** The standard Evaluation, or (a workflow with an output_schema) an object valid against that schema. */
  value: Evaluation | Record<string, unknown>;
  /** True when `value` follows the workflow's own output schema. */
  custom: boolean;
  /** The evaluation's summary in words, where one was made (not a model's own-schema answer): a report's summary. */
  summary: string | null;
  usage: RunUsage;
}

/** Products whose work is written at length (essays, reports): there shorter work scores lower when no length is named. */
const LENGTH_COUNTS = new Set(["education", "essay-v1"]);
/** Products whose criteria are named clauses a document must contain (a contract review checklist). */
const TITLES_NAMED = new Set(["legal"]);
/** Products whose criteria must each be shown for a pass (a contract's clauses, a job's must-haves), unless optional. */
const ALL_REQUIRED = new Set(["legal", "hr"]);

/** References longer than this are a knowledge base, not a rubric: under file_search the local evaluator reads only retrieved sections. */
const LOCAL_WHOLE_REFERENCE_CHARS = 20_000;

/** Evaluates a run's inputs. Throws EngineError (output_invalid, model_error, context_too_large, no_input_text). */
export async function evaluate(input: EvaluateInput): Promise<EvaluateResult> {
  const { workflow } = input;
  if (input.inputs.length === 0 || input.inputs.every((d) => d.content.text.trim() === "")) {
    throw new EngineError("no_input_text", "The run has no input text: attach at least one input document with extractable text.");
  }
  const custom = workflow.outputSchema !== null && workflow.outputSchema !== undefined;
  // Compiled here so that an unusable schema fails at once; the validation itself runs in a worker below.
  if (custom) compileOutputSchema(workflow.outputSchema as object);
  const referenceChars = input.references.reduce((n, r) => n + r.content.text.length, 0);
  const provider = input.mode === "test" ? "test" : input.llm ? "model" : "local";
  // A model grades a rubric criterion by criterion (docs/models.md): under auto and hybrid, when the references hold a
  // rubric and the output is the standard evaluation. fulltext sends everything in one call, by design; file_search
  // treats references as a knowledge base to retrieve from; a custom schema needs the model to write its shape.
  const rubric =
    provider === "model" && !custom && (workflow.modelPolicy === "auto" || workflow.modelPolicy === "hybrid")
      ? findCriteria(
          input.references.map((r) => r.content),
          workflow.userPrompt,
        )
      : null;
  const byCriterion = rubric !== null && rubric.source === "references" && rubric.criteria.length > 0;
  const needsRetrieval =
    (provider === "model" && !byCriterion) ||
    (provider === "local" && workflow.modelPolicy === "gemini-file-search" && referenceChars > LOCAL_WHOLE_REFERENCE_CHARS);

  // Every provider goes through the policy: a test key meets the same context_too_large a live key would.
  const plan = await planContext({
    policy: workflow.modelPolicy,
    references: input.references,
    inputs: input.inputs,
    budget: input.contextBudgetChars,
    db: input.db,
    workspaceId: input.workspaceId,
    retrieve: needsRetrieval,
  });

  input.signal?.throwIfAborted();
  let value: unknown;
  let summary: string | null = null;
  const usage: RunUsage = { input_tokens: null, output_tokens: null, model: null, rag_strategy: plan.strategy, unresolved_quotes: null };
  if (provider === "test") {
    usage.model = "test";
    const seed = input.runId ?? "test";
    if (custom) {
      value = await stubInWorker(workflow.outputSchema as object, seed);
    } else {
      const { criteria } = findCriteria(
        input.references.map((r) => r.content),
        workflow.userPrompt,
      );
      value = stubEvaluation(seed, { criteria: criteria.map((c) => ({ id: c.id, title: c.title })), documents: input.inputs });
    }
  } else if (provider === "local") {
    usage.model = "local";
    const sources = localReferenceSources(input.references, plan, needsRetrieval);
    // In a worker (findCriteria + evaluateLocally, see compute-worker.ts): the CPU work runs on another core.
    const { evaluation, optional } = await evaluateLocallyInWorker(
      {
        sources,
        prompt: workflow.userPrompt,
        inputs: input.inputs,
        passThreshold: input.passThreshold,
        lengthCounts: LENGTH_COUNTS.has(workflow.productCode),
        titlesNamed: TITLES_NAMED.has(workflow.productCode),
        allRequired: ALL_REQUIRED.has(workflow.productCode),
      },
      input.signal,
    );
    value = evaluation;
    if (custom) {
      // (Kept for a report beside the workflow's own shape, which may have no summary of its own.)
      summary = evaluation.summary;
      // No model to write the workflow's own shape: the evaluation is mapped onto its fields by name, type and description.
      const text = input.inputs.map((d) => d.content.text).join("\n\n");
      const filled = await fillInWorker(workflow.outputSchema as object, input.runId ?? "local", { evaluation, text, optional });
      if (filled.problem !== null) {
        throw new EngineError(
          "output_invalid",
          `No output can satisfy this workflow's output schema, so the built-in local evaluator cannot produce one: ${filled.problem}. Change that part of the schema.`,
        );
      }
      value = filled.value;
    }
  } else if (byCriterion && rubric) {
    const graded = await gradeByRubric({
      llm: input.llm as NonNullable<Config["llm"]>,
      criteria: rubric.criteria,
      inputs: input.inputs,
      prompt: workflow.userPrompt,
      referenceTexts: input.references.map((r) => r.content.text),
      passThreshold: input.passThreshold ?? DEFAULT_PASS_PERCENT,
      allRequired: ALL_REQUIRED.has(workflow.productCode),
      signal: input.signal,
    });
    usage.input_tokens = graded.usage.input_tokens;
    usage.output_tokens = graded.usage.output_tokens;
    usage.model = graded.model;
    usage.unresolved_quotes = graded.unresolvedQuotes;
    value = graded.evaluation;
  } else {
    const answer = await evaluateWithModel({
      llm: input.llm as NonNullable<Config["llm"]>,
      plan,
      prompt: workflow.userPrompt,
      outputSchema: custom ? (workflow.outputSchema as object) : null,
      signal: input.signal,
    });
    usage.input_tokens = answer.usage.input_tokens;
    usage.output_tokens = answer.usage.output_tokens;
    usage.model = answer.model;
    if (custom) value = answer.value;
    else {
      const checked = verifyCitations(answer.value as Evaluation, [...input.inputs, ...input.references]);
      value = checked.evaluation;
      usage.unresolved_quotes = checked.dropped;
    }
  }

  input.signal?.throwIfAborted();
  if (custom) {
    const problem = await validateInWorker(workflow.outputSchema as object, value);
    if (problem !== null) {
      throw new EngineError("output_invalid", `The output does not match the workflow's output schema: ${problem}`);
    }
    if (!isPlainObject(value)) throw new EngineError("output_invalid", "The output is not a JSON object; a run's output must be one.");
  }

  if (!custom) summary = (value as Evaluation).summary;
  return { value: value as Evaluation | Record<string, unknown>, custom, summary, usage };
}

function compileOutputSchema(schema: object): (v: unknown) => string | null {
  try {
    return compileSchema(schema).validate;
  } catch (e) {
    throw new EngineError("output_invalid", `The workflow's output schema cannot be used: ${e instanceof Error ? e.message : String(e)}`);
  }
}

/**
 * What the local evaluator reads criteria from: whole references (a rubric must be read whole:
 * retrieval would leave out the criteria the input never touches and inflate the score), except
 * under file_search with references over LOCAL_WHOLE_REFERENCE_CHARS, where only the sections
 * holding the retrieved passages are read.
 */
function localReferenceSources(references: EngineDocument[], plan: ContextPlan, retrieved: boolean): { sections: Section[] }[] {
  if (!retrieved) return references.map((r) => r.content);
  return references.flatMap((r) => {
    const placed = placeSections(r);
    const keep = new Set<number>();
    for (const e of plan.references) {
      if (e.documentId !== r.id) continue;
      const s = sectionAt(placed, e.start);
      if (s) keep.add(placed.indexOf(s));
    }
    const sections = [...keep].sort((a, b) => a - b).map((i) => r.content.sections[i]);
    return sections.length > 0 ? [{ sections }] : [];
  });
}
