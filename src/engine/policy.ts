// Model policies -> what text an evaluation sees: whole documents (fulltext), retrieved reference passages (file_search), or both (hybrid).
import type { Db } from "../db/client";
import type { Location } from "../extract/types";
import { chunkDocument } from "../retrieval";
import { EngineError } from "./errors";
import { type RetrievedChunk, retrieveReferences } from "./retrieve";
import type { EngineDocument, EngineReference, ModelPolicy, RagStrategy } from "./types";

/** A piece of a document as an evaluation sees it. */
export interface Excerpt {
  documentId: string;
  name: string;
  text: string;
  location: Location;
  /** Offset of `text` in the document's content.text. */
  start: number;
}

export interface ContextPlan {
  strategy: RagStrategy;
  /** Reference text in document order: whole sections (fulltext) or retrieved chunks. */
  references: Excerpt[];
  /** Input text: every section of every input, always whole. */
  inputs: Excerpt[];
  referenceChars: number;
  inputChars: number;
}

export interface PlanInput {
  policy: ModelPolicy;
  references: EngineReference[];
  inputs: EngineDocument[];
  budget: number;
  db?: Db;
  workspaceId: string;
  /** false: only decide the strategy and check the budget (the local evaluator reads references itself). */
  retrieve: boolean;
}

/** Input parts used as retrieval queries; a long input is sampled evenly, so every part of it has a say. */
const MAX_QUERY_PARTS = 24;
/** file_search: reference chunks retrieved per input part. */
const FILE_SEARCH_K = 4;
/** hybrid: candidates per query; the budget decides how many are kept. */
const HYBRID_K = 20;

function strategyFor(policy: ModelPolicy, totalChars: number, budget: number): RagStrategy {
  switch (policy) {
    case "gemini-file-search":
      return "file_search";
    case "deepseek-1m-fulltext":
      return "fulltext";
    case "hybrid":
      return "hybrid";
    default:
      return totalChars <= budget ? "fulltext" : "hybrid";
  }
}

const chars = (docs: EngineDocument[]) => docs.reduce((n, d) => n + d.content.text.length, 0);
const fmt = (n: number) => n.toLocaleString("en-US");

/** Decides the strategy, enforces the budget (EngineError context_too_large) and gathers the excerpts. */
export async function planContext(input: PlanInput): Promise<ContextPlan> {
  const referenceChars = chars(input.references);
  const inputChars = chars(input.inputs);
  const budget = input.budget;
  const strategy = strategyFor(input.policy, referenceChars + inputChars, budget);

  if (strategy === "fulltext" && referenceChars + inputChars > budget) {
    throw new EngineError(
      "context_too_large",
      `The reference and input documents hold ${fmt(referenceChars + inputChars)} characters of text ` +
        `(references ${fmt(referenceChars)}, inputs ${fmt(inputChars)}), more than the context budget of ${fmt(budget)} ` +
        "characters the fulltext policy (deepseek-1m-fulltext) may send. Use the hybrid or gemini-file-search policy, " +
        "or fewer or smaller documents.",
    );
  }
  // Every policy sends the input whole: it is what is being evaluated.
  if (inputChars > budget) {
    throw new EngineError(
      "context_too_large",
      `The input documents hold ${fmt(inputChars)} characters of text, more than the context budget of ${fmt(budget)} ` +
        "characters; inputs are always sent whole. Split the input over several runs.",
    );
  }

  const inputs = input.inputs.flatMap(sectionsOf);
  if (!input.retrieve) return { strategy, references: [], inputs, referenceChars, inputChars };
  if (strategy === "fulltext") {
    return { strategy, references: input.references.flatMap(sectionsOf), inputs, referenceChars, inputChars };
  }

  const queries = queryParts(input.inputs);
  const k = strategy === "file_search" ? FILE_SEARCH_K : HYBRID_K;
  const results = await retrieveReferences({ db: input.db, workspaceId: input.workspaceId, references: input.references, queries, k });
  const chosen = select(results, budget - inputChars);
  const names = new Map(input.references.map((r) => [r.id, r.name]));
  const order = new Map(input.references.map((r, i) => [r.id, i]));
  const references = chosen
    .sort((a, b) => (order.get(a.documentId) ?? 0) - (order.get(b.documentId) ?? 0) || a.start - b.start)
    .map((c) => ({ documentId: c.documentId, name: names.get(c.documentId) ?? c.documentId, text: c.text, location: c.location, start: c.start }));
  return { strategy, references, inputs, referenceChars, inputChars };
}

function sectionsOf(doc: EngineDocument): Excerpt[] {
  const text = doc.content.text;
  const out: Excerpt[] = [];
  let cursor = 0;
  for (const s of doc.content.sections) {
    const at = text.indexOf(s.text, cursor);
    const start = at < 0 ? cursor : at;
    out.push({ documentId: doc.id, name: doc.name, text: s.text, location: s.location, start });
    cursor = start + s.text.length;
  }
  return out;
}

/** The input's chunks as queries: all of them when few, else an even sample. */
function queryParts(inputs: EngineDocument[]): string[] {
  const parts = inputs.flatMap((d) => chunkDocument(d.content).map((c) => c.text));
  if (parts.length <= MAX_QUERY_PARTS) return parts;
  const step = parts.length / MAX_QUERY_PARTS;
  return Array.from({ length: MAX_QUERY_PARTS }, (_, i) => parts[Math.floor(i * step)]);
}

/**
 * Round-robin over the queries' ranked lists (each part's best chunk first, then each part's second…),
 * skipping chunks already taken, until the budget is spent: every part of the input gets its best
 * reference passages before any part gets its fifth.
 */
function select(results: RetrievedChunk[][], budget: number): RetrievedChunk[] {
  const taken = new Map<string, RetrievedChunk>();
  let used = 0;
  const depth = Math.max(0, ...results.map((r) => r.length));
  for (let rank = 0; rank < depth; rank++) {
    for (const list of results) {
      const c = list[rank];
      if (!c) continue;
      const key = `${c.documentId}:${c.start}`;
      if (taken.has(key)) continue;
      if (used + c.text.length > budget) continue;
      taken.set(key, c);
      used += c.text.length;
    }
  }
  return [...taken.values()];
}
