// Deterministic prompt generation (POST /prompt-templates/generate without a model server): goal + catalog templates -> an evaluation prompt.
import type { OutputFormat } from "./types";

type TemplateCategory = "education" | "legal" | "grading" | "hr" | "general";

/**
 * One entry of src/catalog/prompt-templates.json (the spec's PromptTemplate).
 * Fields are typed as the JSON import infers them (plain strings), so the imported
 * array can be passed in without a cast.
 */
export interface PromptTemplate {
  id: string;
  slug: string;
  title: string;
  description: string | null;
  category: string;
  user_prompt_seed: string;
  recommended_output_format: string | null;
  locale: string;
}

export interface GenerateInput {
  goal: string;
  category?: TemplateCategory;
  output_format?: OutputFormat;
}

export interface GeneratedPrompt {
  user_prompt: string;
  recommended_output_format: string | null;
}

/** A template with its relevance to a goal; `matched` lists the goal words that earned the score. */
export interface TemplateMatch {
  template: PromptTemplate;
  score: number;
  matched: string[];
}

// Words that say nothing about which template fits: English function words and the
// generic verbs/nouns every evaluation goal uses ("review the attached document").
const STOPWORDS = new Set(
  (
    "a an and are as at be but by can could do does for from has have i if in into is it its me my of on or our " +
    "should so that the their them then there these this those to us was we what when which who will with would you your " +
    "want need needs please help using use based about each every all any also more most than very " +
    "evaluate evaluation review reviewing check checking assess assessment document documents attached file files " +
    "against give make get whether how"
  )
    .split(" ")
    .filter(Boolean),
);

/** Lower-cased word stems of a text, stopwords removed. The stemming only folds plurals, so matches stay explainable. */
function keywords(text: string): string[] {
  const out: string[] = [];
  for (const raw of text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
    if (raw.length < 2 || STOPWORDS.has(raw)) continue;
    let w = raw;
    if (w.length > 4 && w.endsWith("ies")) w = `${w.slice(0, -3)}y`;
    else if (w.length > 2 && w.endsWith("s") && !w.endsWith("ss") && !w.endsWith("us") && !w.endsWith("is")) w = w.slice(0, -1);
    if (!STOPWORDS.has(w)) out.push(w);
  }
  return out;
}

/**
 * Ranks templates by word overlap with the goal. Each distinct goal word scores once:
 * 3 if it appears in the template's title or slug, 2 in its description, 1 in its seed.
 * With a category, only that category's templates compete (all of them if it has none).
 * Ties keep catalog order, so the result is deterministic.
 */
export function rankTemplates(goal: string, templates: PromptTemplate[], category?: string): TemplateMatch[] {
  const inCategory = category ? templates.filter((t) => t.category === category) : [];
  const candidates = inCategory.length > 0 ? inCategory : templates;
  const goalWords = [...new Set(keywords(goal))];
  const scored = candidates.map((template, index) => {
    const title = new Set(keywords(`${template.title} ${template.slug}`));
    const description = new Set(keywords(template.description ?? ""));
    const seed = new Set(keywords(template.user_prompt_seed));
    let score = 0;
    const matched: string[] = [];
    for (const w of goalWords) {
      const weight = title.has(w) ? 3 : description.has(w) ? 2 : seed.has(w) ? 1 : 0;
      if (weight > 0) {
        score += weight;
        matched.push(w);
      }
    }
    return { template, score, matched, index };
  });
  scored.sort((a, b) => b.score - a.score || a.index - b.index);
  return scored.map(({ template, score, matched }) => ({ template, score, matched }));
}

/** A seed split into its parts: the opening paragraph, the bullets under "Check:", the other guidance, the bullets under "Flag:". */
interface SeedParts {
  intro: string;
  checks: string[];
  guidance: string[];
  flags: string[];
}

function parseSeed(seed: string): SeedParts {
  const parts: SeedParts = { intro: "", checks: [], guidance: [], flags: [] };
  let section: "checks" | "flags" = "checks";
  const paragraphs = seed.replace(/\r\n?/g, "\n").split(/\n\s*\n/);
  for (const paragraph of paragraphs) {
    for (const rawLine of paragraph.split("\n")) {
      const line = rawLine.trim();
      if (!line) continue;
      const bullet = /^(?:[-*•]|\d+[.)])\s+(.*)$/.exec(line);
      if (bullet) {
        parts[section].push(bullet[1].trim());
      } else if (/^[A-Za-z][\w ]{0,40}:$/.test(line)) {
        // A heading such as "Check:" or "Flag:" decides where the following bullets go.
        section = /^(flag|red flag|watch|escalat)/i.test(line) ? "flags" : "checks";
      } else if (!parts.intro) {
        parts.intro = line;
      } else {
        parts.guidance.push(line);
      }
    }
  }
  return parts;
}

const ROLES: Record<TemplateCategory, string> = {
  education: "an experienced teacher reviewing student work and giving feedback the student can act on",
  grading: "a fair and consistent examiner marking work against a mark scheme",
  legal: "a careful lawyer doing a first-pass review of legal documents",
  hr: "an experienced recruiter who assesses candidates only on job-related evidence",
  general: "a meticulous reviewer who checks documents against stated criteria",
};

// Used when the catalog has nothing to offer (an empty template list).
const FALLBACK_CHECKS = [
  "Identify each criterion in the reference documents and decide whether the input meets it fully, partly or not at all.",
  "Check that facts, figures, names and dates in the input are consistent and supported.",
  "Note anything the reference requires that the input does not address.",
];

const FORMAT_LINES: Record<OutputFormat, string> = {
  json:
    "Return only a JSON object with summary, score (0-100), verdict (pass, fail or needs_review) and criteria: an array of " +
    "{id, title, score, max_score, rationale, evidence: [{document_id, quote, location}]}. No text outside the JSON.",
  markdown:
    "Write the result as a Markdown report: a short summary with the overall score and verdict first, then one section per " +
    "criterion with its score, rationale and quoted evidence, then the flagged issues as a list.",
  docx:
    "Write the result as a report for a Word document: a summary paragraph with the overall score and verdict, one heading per " +
    "criterion with its score, rationale and quoted evidence, and a closing section of flagged issues. Use headings and plain paragraphs, not Markdown tables.",
  xlsx:
    "Lay the result out for a spreadsheet: one row per criterion with the columns criterion, score, max score, rationale, " +
    "evidence quote and location, then a final row with the overall score and verdict.",
  csv:
    "Lay the result out as CSV rows: one row per criterion with the columns criterion_id, title, score, max_score, rationale, " +
    "quote, location, each field on a single line, then a final row with the overall score and verdict.",
};

function isOutputFormat(value: string | null | undefined): value is OutputFormat {
  return value != null && Object.hasOwn(FORMAT_LINES, value);
}

function isCategory(value: string | undefined): value is TemplateCategory {
  return value != null && Object.hasOwn(ROLES, value);
}

/** The goal as the user wrote it, tidied: trimmed lines, no blank-line runs, ending in punctuation. */
function tidyGoal(goal: string): string {
  const text = goal
    .replace(/\r\n?/g, "\n")
    .split("\n")
    .map((l) => l.replace(/[ \t]+/g, " ").trim())
    .join("\n")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
  if (!text) return "evaluate the input documents against the attached reference documents.";
  return /[.!?:;)"'”’]$/.test(text) ? text : `${text}.`;
}

/** The sentences of a template's opening paragraph after the first (the first restates the task, which the goal replaces). */
function introNotes(intro: string): string {
  const sentences = intro.match(/[^.!?]+[.!?]+(?:\s+|$)/g) ?? [];
  return sentences.slice(1).join("").trim();
}

/** Picks the template that best fits the goal; without a category and without any overlap, a general one. */
export function chooseTemplate(input: GenerateInput, templates: PromptTemplate[]): PromptTemplate | null {
  const ranked = rankTemplates(input.goal, templates, input.category);
  if (ranked.length === 0) return null;
  if (!input.category && ranked[0].score === 0) {
    return templates.find((t) => t.category === "general") ?? ranked[0].template;
  }
  return ranked[0].template;
}

/** Composes an evaluation prompt from the goal and the best-matching catalog template, with no model involved. */
export function composePrompt(input: GenerateInput, templates: PromptTemplate[]): GeneratedPrompt {
  const template = chooseTemplate(input, templates);
  const recommended = input.output_format ?? template?.recommended_output_format ?? "json";
  const category = isCategory(input.category) ? input.category : isCategory(template?.category) ? template.category : "general";
  const seed = template ? parseSeed(template.user_prompt_seed) : { intro: "", checks: [], guidance: [], flags: [] };
  const checks = seed.checks.length > 0 ? seed.checks : FALLBACK_CHECKS;

  const blocks: string[] = [];
  const notes = introNotes(seed.intro);
  blocks.push(`You are ${ROLES[category]}. Your goal, in the requester's words: ${tidyGoal(input.goal)}${notes ? `\n${notes}` : ""}`);
  blocks.push(
    "Evaluate the input documents against the attached reference documents (rubric/criteria). Treat them as the authority: " +
      "use their criteria, weights and level descriptors as written; where they are silent, apply the checks below and say that you did.",
  );
  blocks.push(`What to check${template ? ` (${template.title})` : ""}:\n${checks.map((c) => `- ${c}`).join("\n")}`);
  if (seed.guidance.length > 0) blocks.push(seed.guidance.join("\n"));
  if (seed.flags.length > 0) blocks.push(`Flag for a person to look at:\n${seed.flags.map((f) => `- ${f}`).join("\n")}`);
  blocks.push(
    "Evidence:\n" +
      "- Support every judgement with a quote copied verbatim from the input document, and give its location (page, section or clause, sheet and cell, or paragraph).\n" +
      "- If there is no evidence for a criterion, say so; never invent, merge or paraphrase a quote.",
  );
  blocks.push(
    "Scoring:\n" +
      "- Score each criterion of the reference on its own scale, stating the maximum, with a one- or two-sentence rationale.\n" +
      "- Give an overall score from 0 to 100 and a verdict: pass, fail or needs_review. Use needs_review when the evidence is thin " +
      "or contradictory, or the input falls outside what the reference covers.",
  );
  blocks.push(isOutputFormat(recommended) ? FORMAT_LINES[recommended] : FORMAT_LINES.json);

  return { user_prompt: blocks.join("\n\n"), recommended_output_format: recommended };
}
