// Evaluation by an OpenAI-compatible model: the messages (task, reference excerpts, input text, output contract) and the call.
import type { Config } from "../config";
import { formatLocation } from "../lib/location";
import { EngineError } from "./errors";
import type { ContextPlan, Excerpt } from "./policy";
import { type ChatMessage, chatJson, ModelError, openAIConfig } from "./providers/openai";
import { compileSchema, EVALUATION_SCHEMA } from "./schema";

export interface ModelRequest {
  llm: NonNullable<Config["llm"]>;
  plan: ContextPlan;
  prompt: string | null;
  /** The workflow's output schema; null means the standard evaluation object. */
  outputSchema: object | null;
  /** Stops the call when the run was taken away from this worker. */
  signal?: AbortSignal;
}

export interface ModelAnswer {
  value: unknown;
  usage: { input_tokens: number; output_tokens: number };
  model: string;
}

const DEFAULT_TASK = "Evaluate the input documents against the criteria in the reference documents.";

const EVALUATION_CONTRACT = [
  "Answer with one JSON object, the evaluation:",
  "- summary: a few sentences on the overall result, naming the strongest and weakest criteria.",
  "- criteria: one entry per criterion of the reference documents (if they state none, the criteria the task names; " +
    "else relevance, evidence and clarity), each {id, title, score, max_score, rationale, evidence}. Use the reference's " +
    "own scale for max_score (its points or marks; 10 when it gives none) and 0 <= score <= max_score. id is a short " +
    "snake_case name of the criterion.",
  "- score: 0-100, the points earned as a share of the points available.",
  "- verdict: pass (score 70 or more), needs_review (50-69, or when the evidence is thin or contradictory), fail (under 50).",
  "- evidence: up to 3 items per criterion, {document_id, quote, location}. quote is copied verbatim, character for character, " +
    "from one input document: a sentence or a short passage, never paraphrased, merged or shortened with ellipses. " +
    "document_id is that document's id and location is the location printed above the passage (copy its JSON). " +
    "When the input has no evidence for a criterion, give an empty list and say so in the rationale.",
].join("\n");

const CUSTOM_CONTRACT =
  "Answer with one JSON value that matches the output schema. Where it asks for quotations, copy them character " +
  "for character from the input documents.";

/** The chat messages for a plan: system = role and output contract; user = task, reference excerpts, input text. */
function buildMessages(plan: ContextPlan, prompt: string | null, custom: boolean): ChatMessage[] {
  const system = [
    "You are Assay, a careful evaluator of documents. You judge the input documents against the reference documents " +
      "(a rubric, criteria, checklist or playbook) and the task. Base every judgement on the documents; never invent facts or quotes.",
    custom ? CUSTOM_CONTRACT : EVALUATION_CONTRACT,
  ].join("\n\n");

  const referenceNote: Record<ContextPlan["strategy"], string> = {
    fulltext: "the complete text of each reference document",
    hybrid: "the passages of the reference documents most relevant to the input, retrieved by search",
    file_search: "passages retrieved from the reference documents for each part of the input",
  };
  const blocks: string[] = [`# Task\n${prompt?.trim() || DEFAULT_TASK}`];
  blocks.push(
    plan.references.length > 0
      ? `# Reference documents (${referenceNote[plan.strategy]})\n\n${plan.references.map(label).join("\n\n")}`
      : "# Reference documents\n(none: judge the input against the task)",
  );
  blocks.push(`# Input documents (complete text; quote evidence from here)\n\n${plan.inputs.map(label).join("\n\n")}`);
  return [
    { role: "system", content: system },
    { role: "user", content: blocks.join("\n\n") },
  ];
}

function label(e: Excerpt): string {
  const where = formatLocation(e.location);
  return `## ${e.documentId} "${e.name}"${where ? ` — ${where}` : ""}\nlocation: ${JSON.stringify(e.location)}\n${e.text}`;
}

/** Asks the model; ModelError becomes EngineError with the same code. */
export async function evaluateWithModel(req: ModelRequest): Promise<ModelAnswer> {
  const custom = req.outputSchema !== null;
  const schema = (req.outputSchema ?? EVALUATION_SCHEMA) as Record<string, unknown>;
  let validate: (v: unknown) => string | null;
  try {
    validate = compileSchema(schema).validate;
  } catch (e) {
    throw new EngineError("output_invalid", `The workflow's output schema cannot be used: ${e instanceof Error ? e.message : String(e)}`);
  }
  try {
    const answer = await chatJson(openAIConfig(req.llm, req.signal), {
      messages: buildMessages(req.plan, req.prompt, custom),
      schema,
      schemaName: custom ? "output" : "evaluation",
      validate,
    });
    return answer;
  } catch (e) {
    if (e instanceof ModelError) throw new EngineError(e.code, e.message);
    throw e;
  }
}
