// Where a run passes: a pass mark the workflow's prompt states, else the rubric's own (stated, or the level its descriptors call adequate), else ASSAY_PASS_THRESHOLD.
import type { RubricCriterion } from "./criteria";
import type { YearsShown } from "./experience";

/** ASSAY_PASS_THRESHOLD's default: percent of the maximum that passes when neither the prompt nor the rubric says. */
export const DEFAULT_PASS_PERCENT = 60;

export interface PassLevel {
  /** Share of the rubric's maximum (0..1) at which the verdict is pass. */
  share: number;
  source: "prompt" | "rubric" | "levels" | "setting";
}

// "pass mark: 16/24", "passing score 60%", "pass at 16", "passes at 70 percent", "pass threshold of 3 out of 4". Not a
// story's "he passed 3 houses" or "the bus passes at 5": a reference may be the text the students read.
const MARK = String.raw`(?:at least\s*)?(\d{1,4}(?:\.\d+)?)`;
const OF = String.raw`\s*(%|percent\b|\/\s*(\d{1,4})|out of\s*(\d{1,4})|of\s*(\d{1,4}))`;
const LINK = String.raw`\s*(?:is|:|=|at|of|from|>=|≥)?\s*`;
const STATED = [
  // "pass mark is 6", "passing score: 60%": named as a mark, any number.
  // ("Pass mark for all Level 4 modules: 40": who it is for may come between.)
  new RegExp(String.raw`\bpass(?:ing)?\s+(?:mark|score|level|threshold|grade|line)(?:\s+for\s+[^:.\n]{1,40}:)?${LINK}${MARK}(?:${OF})?`, "i"),
  // "40 is a pass", "60% is the pass mark".
  /(?<![\d.])(\d{1,4}(?:\.\d+)?)(\s*%|\s*percent\b)?\s+is\s+(?:a|the)\s+pass(?:\s+mark)?\b/i,
  // "Pass at 16", "Pass: 16/24": the word itself, then the number.
  new RegExp(String.raw`\bpass\s*(?::|=|>=|≥|at least|at|from)\s*${MARK}(?:${OF})?`, "i"),
  // "passes at 70 percent", "a pass is 60%": with a share ("the pass is 3 miles long" is a mountain's).
  new RegExp(String.raw`\bpass(?:es|ing)?\s*(?::|=|>=|≥|at least|at|from|is)\s*${MARK}${OF}`, "i"),
  // "You pass this practice question with 10 marks or more out of 20."
  new RegExp(String.raw`\bpass(?:es)?\b[^.\n]{0,40}?\bwith\s+${MARK}\s*(?:marks?|points?|ticks?)?\s+or\s+(?:more|above|higher)(?:${OF})?`, "i"),
  // "12–15 | Working at the expected standard (EXS)": the band a total is judged at the standard from starts there.
  /^[ \t|]*(\d{1,3})\s*[-–]\s*\d{1,3}\b[^\n]{0,40}?\b(?:working at|at|meets?|meeting) the expected standard\b/im,
  // "An essay passes if it scores at least 32 of 80 (40 %)": a condition on what the work scores, with its scale.
  new RegExp(
    // ("… at the Grade 4 (standard pass) level if it scores 7 out of 15 or more.")
    String.raw`\bpass(?:es)?(?:\)?\s+(?:level|mark|standard|grade))?\s+(?:if|when|where|provided)\s+(?:(?:it|they|you|the\s+\w+|an?\s+\w+)\s+(?:scores?|gets?|achieves?|reaches?|earns?|receives?|obtains?|totals?|is awarded|are awarded)|(?:its|their|the)\s+(?:overall\s+)?(?:total|mark|score)\s+is)\s+${MARK}${OF}`,
    "i",
  ),
];

// "75-100  PUBLISH." / "0-74  REWRITE.": a score's two outcomes, each a band of points with its name.
const OUTCOME_BAND = /^[ \t|*-]*(\d{1,3})\s*[-–]\s*(\d{1,3})\s*(?:%|points?|pts|marks?)?\s*[|:=.—–-]?\s*\**(\p{L}[\p{L} ]{1,30})/gmu;
const NOT_A_PASS = /\b(?:fail|failed|rewrite|redo|resubmit|revise|not|below|reject|unsatisfactory|insufficient)\b/i;

/**
 * The pass a text's two outcome bands state (the upper band starts it: "75-100 PUBLISH" over "0-74 REWRITE"), as a share
 * of the scale they cover; null unless exactly two bands tile it from 0, the upper one named as no fail.
 */
export function outcomeBandsPass(text: string): number | null {
  const bands = [...text.matchAll(OUTCOME_BAND)].map((m) => ({ low: Number(m[1]), high: Number(m[2]), name: m[3] }));
  if (bands.length !== 2) return null;
  const [lower, upper] = [...bands].sort((a, b) => a.low - b.low);
  if (lower.low !== 0 || upper.low !== lower.high + 1 || upper.high <= upper.low || NOT_A_PASS.test(upper.name)) return null;
  return upper.low / upper.high;
}

/**
 * The pass a grade-boundary table gives where the text names the grade that passes ("A grade 4 is a standard pass"
 * over "Grade | 9 | 8 | … | 4 | …" and "Minimum mark (out of 15) | 14 | 13 | … | 7 | …"): that grade's minimum mark,
 * as a share of what it is out of; null otherwise.
 */
export function boundaryPass(text: string): number | null {
  const plain = text.replace(/\*\*|__/g, "");
  const grade = /\bgrade\s+([0-9A-Z][+*]?)\s+(?:is|=)\s+(?:a|the)\s+(?:standard\s+|minimum\s+)?pass\b/i.exec(plain)?.[1];
  if (!grade) return null;
  const rows = plain
    .split("\n")
    .filter((l) => l.includes("|"))
    .map((line) =>
      line
        .replace(/^\s*\||\|\s*$/g, "")
        .split("|")
        .map((c) => c.trim()),
    );
  const share = (mark: number, outOf: number) => (Number.isFinite(mark) && outOf > 0 && mark > 0 && mark <= outOf ? mark / outOf : null);
  // Across: "Grade | 9 | 8 | … | 4" over "Minimum mark (out of 15) | 14 | 13 | … | 7".
  const grades = rows.find((r) => /^grades?$/i.test(r[0] ?? "") && r.includes(grade));
  const marks = rows.find((r) => /^(?:minimum|min\.?|lowest)\s+(?:marks?|scores?|points?)\b.*\bout of\s+\d+/i.test(r[0] ?? ""));
  if (grades && marks) return share(Number(marks[grades.indexOf(grade)]), Number(/\bout of\s+(\d+)/i.exec(marks[0])?.[1]));
  // Down: "Grade | Total mark (out of 32)" over "4 | 14–16": the band's start.
  const header = rows.find((r) => /^grades?$/i.test(r[0] ?? "") && /\bout of\s+\d+/i.test(r[1] ?? ""));
  const row = header ? rows.find((r) => r[0] === grade && /^\d{1,3}\s*[-–]/.test(r[1] ?? "")) : undefined;
  if (!header || !row) return null;
  return share(Number(/^\d{1,3}/.exec(row[1])?.[0]), Number(/\bout of\s+(\d+)/i.exec(header[1])?.[1]));
}

/**
 * The pass a table of bands gives where one band's name is the adequate level ("2.5 – 3.4 | Proficient" among "3.5 –
 * 4.0 | Advanced" … "1.0 – 1.4 | Beginning"): that band's start as a share of the top band's end; null otherwise.
 */
export function adequateBandPass(text: string): number | null {
  const plain = text.replace(/\*\*|__/g, "");
  // A table's rows ("2.5 – 3.4 | Proficient"), or a list of names with their bands ("Beyond 16–18 · Secure 12–15 · …").
  const rows = [...plain.matchAll(/^[ \t|]*(\d{1,3}(?:\.\d+)?)\s*[-–]\s*(\d{1,3}(?:\.\d+)?)\s*\|\s*([^|\n]{2,60})/gm)].map((m) => ({
    low: Number(m[1]),
    high: Number(m[2]),
    name: m[3].trim(),
  }));
  const listed = [...plain.matchAll(/(?:^|[·•;:])\s*(\p{Lu}[\p{L} ]{1,30}?)\s+(\d{1,3})\s*[-–]\s*(\d{1,3})(?=\s*(?:[·•;.]|$))/gmu)].map((m) => ({
    low: Number(m[2]),
    high: Number(m[3]),
    name: m[1].trim(),
  }));
  const bands = rows.length >= 3 ? rows : listed;
  if (bands.length < 3) return null;
  const top = Math.max(...bands.map((b) => b.high));
  const adequate = bands.filter((b) => ADEQUATE.test(b.name) && !NEGATED.test(b.name)).sort((a, b) => a.low - b.low)[0];
  return adequate && top > 0 && adequate.low > 0 ? adequate.low / top : null;
}

/** A pass mark a text states, as a share of `total` (the rubric's maximum); null when it states none. */
export function statedPassShare(text: string, total: number): number | null {
  // (Emphasis marks a pass rule often wears, "**at least 32 of 80**", are no part of its words.)
  const plain = text.replace(/\*\*|__/g, "");
  const m = STATED.map((re) => re.exec(plain)).find((x) => x !== null);
  if (!m) return null;
  const value = Number(m[1]);
  const of = Number(m[3] ?? m[4] ?? m[5] ?? Number.NaN);
  let share: number;
  if (m[2] && /%|percent/i.test(m[2])) share = value / 100;
  else if (Number.isFinite(of) && of > 0) share = value / of;
  // A bare number is on the rubric's own scale when it fits it, else a percentage.
  else if (total > 0 && value <= total) share = value / total;
  else share = value / 100;
  return share > 0 && share <= 1 ? share : null;
}

// The level a descriptor calls good enough: "Adequate command…", "Proficient", "Meets expectations", "Satisfactory".
const ADEQUATE_WORDS = "adequate|adequately|proficient|meets|satisfactory|competent|sufficient|acceptable|pass|secure";
const ADEQUATE = new RegExp(`\\b(?:${ADEQUATE_WORDS})\\b`, "i");
// A level that says what falls short of adequate ("does not meet", "lacks adequate support", "too brief to provide
// sufficient development": ASAP's set 2 guide, level 2 of 6) is not the adequate level.
const NEGATED = new RegExp(
  `\\b(?:not|never|no|rarely|seldom|partially|without|lacks?|lacking|less than|fails? to|does not|doesn't|too \\w+ to)\\s+(?:\\w+\\s+){0,2}?(?:${ADEQUATE_WORDS})\\b`,
  "i",
);

/** What a criterion weighs in the overall score: the weight the rubric gives it, else its maximum. */
const weightOf = (c: Pick<RubricCriterion, "maxScore" | "weight">) => c.weight ?? c.maxScore;

/**
 * The overall score (0–100): the share of the rubric's maximum the criteria earn, each criterion's share weighed by
 * its weight where the rubric gives weights apart from its scales ("Weight 30%" beside "Score (1–5)"). `scored` are
 * the criteria graded, in the order of `rubric`.
 */
export function overallScore(
  scored: { score: number; max_score: number }[],
  rubric: Pick<RubricCriterion, "maxScore" | "weight" | "bonus">[],
): number {
  let total = 0;
  let earned = 0;
  scored.forEach((c, i) => {
    const weight = rubric[i]?.weight;
    // (A bonus earns its points on top: its maximum is no part of the rubric's.)
    const counted = rubric[i]?.bonus !== true;
    if (weight === undefined) {
      if (counted) total += c.max_score;
      earned += c.score;
    } else if (c.max_score > 0) {
      if (counted) total += weight;
      earned += (weight * c.score) / c.max_score;
    }
  });
  return total > 0 ? Math.min(100, Math.round((100 * earned) / total)) : 0;
}

/**
 * The criteria a pass is judged on, and their score: the required ones alone where the rubric marks some optional (a
 * job's nice-to-haves, "Required: No"), which add to the score but never hold a pass back; else null (all of them).
 */
export function requiredPart<T extends { score: number; max_score: number }>(
  scored: T[],
  rubric: Pick<RubricCriterion, "maxScore" | "weight" | "bonus" | "optional">[],
): { criteria: T[]; score: number } | null {
  const required = scored.map((_, i) => i).filter((i) => !rubric[i]?.optional);
  if (required.length === 0 || required.length === scored.length) return null;
  return {
    criteria: required.map((i) => scored[i]),
    score: overallScore(
      required.map((i) => scored[i]),
      required.map((i) => rubric[i]),
    ),
  };
}

/** A criterion's share at or below which what it names is taken as missing (on 0–10: 2 or less). */
export const ABSENT = 0.2;

/** A criterion's share of its maximum (0 when it has none). */
export function shareOf(c: { score: number; max_score: number }): number {
  return c.max_score > 0 ? c.score / c.max_score : 0;
}
/** The share of the years asked that a CV's years must reach for a shortfall to be a person's call, not a fail. */
const NEAR_YEARS = 0.75;

/** Requirements a document does not meet, where every one must be (a contract's clauses, a job's must-haves). */
export interface Unmet<T> {
  /** Required criteria scored a fifth of their maximum or less: seemingly absent (or worded otherwise). */
  absent: T[];
  /** Required criteria asking for more years of work than the input shows ("5+ years of …" against a year and a half). */
  short: { title: string; asked: number; shown: YearsShown }[];
  /**
   * Required clauses a contract names only to exclude them ("There is no probationary period"), or requirements a CV
   * names only to deny them ("I don't yet hold a CIPP qualification"), with that sentence.
   */
  excluded: { title: string; quote: string; denied: boolean }[];
  /** A document whose title names another kind than the checklist's (a management agreement against a lease's). */
  otherKind?: { asked: string; found: string; title: string } | null;
}

/** Nothing unmet: where not every requirement must be met, or nothing was checked. */
export function nothingUnmet<T>(): Unmet<T> {
  return { absent: [], short: [], excluded: [] };
}

/**
 * The required criteria (not optional, not a bonus) a document seems not to meet. `asked[i]`: the years of work
 * criterion i asks for, or null; `years`: those the input shows (null: none shown, nothing to compare); `excluding[i]`:
 * the sentence that excludes clause i, if any (`denied`: a CV's, which denies holding it).
 */
export function unmetRequirements<T extends { title: string; score: number; max_score: number }>(
  scored: T[],
  rubric: Pick<RubricCriterion, "optional" | "bonus">[],
  asked: (number | null)[],
  /** The years the input shows for each criterion (all its roles, or those of the kind it asks for). */
  years: (YearsShown | null)[],
  excluding: (string | null)[] = [],
  denied = false,
): Unmet<T> {
  const required = (i: number) => !rubric[i]?.optional && !rubric[i]?.bonus;
  return {
    absent: scored.filter((c, i) => required(i) && !excluding[i] && c.max_score > 0 && shareOf(c) <= ABSENT),
    excluded: scored.flatMap((c, i) => {
      const quote = excluding[i];
      return required(i) && quote ? [{ title: c.title, quote, denied }] : [];
    }),
    short: scored.flatMap((c, i) => {
      const [n, shown] = [asked[i], years[i]];
      return required(i) && n !== null && n !== undefined && shown && shown.years < n ? [{ title: c.title, asked: n, shown }] : [];
    }),
  };
}

/**
 * The verdict once unmet requirements are counted: a pass with one seemingly absent or excluded, or of a document of
 * another kind than the checklist's, is a person's call (it may be there in other words, or be the right document);
 * years short by more than a quarter of those asked fail, short by less are a person's call.
 */
export function settleUnmet(verdict: "pass" | "fail" | "needs_review", unmet: Unmet<unknown>): "pass" | "fail" | "needs_review" {
  let settled = verdict === "pass" && (unmet.absent.length + unmet.excluded.length > 0 || unmet.otherKind) ? "needs_review" : verdict;
  if (unmet.short.length > 0 && settled !== "fail") settled = unmet.short.some((t) => t.shown.years < NEAR_YEARS * t.asked) ? "fail" : "needs_review";
  return settled;
}

/** The summary's sentences on unmet requirements (none when all are met). */
export function unmetSentences(unmet: Unmet<{ title: string }>): string[] {
  const parts: string[] = [];
  const { absent, short, excluded } = unmet;
  if (absent.length > 0) {
    parts.push(
      `Not found: ${absent.map((c) => c.title).join("; ")}. A person should check ${absent.length === 1 ? "it is" : "they are"} missing, not worded otherwise.`,
    );
  }
  const quoted = (list: typeof excluded) => list.map((e) => `${e.title} ("${e.quote}")`).join("; ");
  const [denied, excludedClauses] = [excluded.filter((e) => e.denied), excluded.filter((e) => !e.denied)];
  if (excludedClauses.length > 0) parts.push(`Excluded rather than provided: ${quoted(excludedClauses)}.`);
  if (denied.length > 0) parts.push(`Said not to be held: ${quoted(denied)}.`);
  if (unmet.otherKind) {
    const { asked, found, title } = unmet.otherKind;
    parts.push(
      `The input's title ("${title}") names another kind of document than the checklist's (${found}, not ${asked}): a person should check it is the document to review.`,
    );
  }
  if (short.length > 0) {
    const shown = (t: Unmet<unknown>["short"][number]) =>
      t.shown.from === "stated"
        ? `it states ${t.shown.years}`
        : `the dated roles${t.shown.from === "role" ? " of that kind" : ""} show about ${t.shown.years}`;
    parts.push(`Fewer years than required: ${short.map((t) => `${t.title} (asks ${t.asked}, ${shown(t)})`).join("; ")}.`);
  }
  return parts;
}

/** The criteria with each one's weight stated in its rationale, where the rubric weighs them apart from their scales. */
export function withWeightsNoted<T extends { rationale: string }>(
  scored: T[],
  rubric: Pick<RubricCriterion, "maxScore" | "weight" | "bonus">[],
): T[] {
  if (!rubric.some((c) => c.weight !== undefined)) return scored;
  // (A bonus is no part of the maximum the weights share: it adds on top.)
  const total = rubric.reduce((n, c) => n + (c.bonus ? 0 : weightOf(c)), 0);
  return scored.map((c, i) => {
    const share = total > 0 && rubric[i] ? Math.round((100 * weightOf(rubric[i])) / total) : 0;
    const note = rubric[i]?.bonus ? `It adds up to ${share}% on top of the overall score.` : `It weighs ${share}% of the overall score.`;
    return { ...c, rationale: [c.rationale, note].filter(Boolean).join(" ") };
  });
}

/** The share the rubric's level descriptors put the pass line at (each criterion weighing its weight, else its maximum), or null. */
export function levelPassShare(criteria: RubricCriterion[]): number | null {
  let weight = 0;
  let sum = 0;
  for (const c of criteria) {
    if (!c.levels || c.levels.length < 2 || c.bonus) continue;
    const min = c.levels[0].value;
    const max = c.levels[c.levels.length - 1].value;
    const pass = c.levels.find((l) => ADEQUATE.test(l.descriptor) && !NEGATED.test(l.descriptor));
    if (!pass || max <= min) continue;
    weight += weightOf(c);
    sum += weightOf(c) * (pass.value / max);
  }
  return weight > 0 ? sum / weight : null;
}

/**
 * The pass line: the workflow's prompt wins (it is this workflow's own threshold), then a pass mark the rubric
 * states, then the level its descriptors call adequate, then the server's default (ASSAY_PASS_THRESHOLD percent).
 */
export function passLevel(criteria: RubricCriterion[], prompt: string | null, referenceTexts: string[], defaultPercent: number): PassLevel {
  // (A mark on the rubric's own scale is out of what the pass is judged on: the optional criteria and bonuses add on top.)
  const judged = criteria.filter((c) => !c.optional && !c.bonus);
  // (Where the rubric weighs its criteria, "Weighting 15%" beside marks out of 100, the whole is the weights' sum.)
  const total = (judged.length > 0 ? judged : criteria).reduce((n, c) => n + weightOf(c), 0);
  const fromPrompt = prompt ? statedPassShare(prompt, total) : null;
  if (fromPrompt !== null) return { share: fromPrompt, source: "prompt" };
  for (const text of referenceTexts) {
    const s = statedPassShare(text, total) ?? outcomeBandsPass(text) ?? boundaryPass(text) ?? adequateBandPass(text);
    if (s !== null) return { share: s, source: "rubric" };
  }
  const levels = levelPassShare(criteria);
  if (levels !== null) return { share: levels, source: "levels" };
  return { share: defaultPercent / 100, source: "setting" };
}
