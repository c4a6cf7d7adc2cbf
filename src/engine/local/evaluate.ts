// The built-in local evaluator: scores each rubric criterion from the input's coverage of its key terms and from writing signals, with verbatim evidence.
import { type Chunk, chunkDocument, rankChunksMany } from "../../retrieval";
import { type Passage, passagesOf } from "../passages";
import type { Criterion, EngineDocument, Evaluation, Evidence } from "../types";
import { belowLevel, deniedInWords, excludingSentence, otherKind, overLimit, type Sentence, sentencesOf } from "./clauses";
import type { RubricCriterion } from "./criteria";
import { type YearsShown, yearsAskedBy, yearsFor, yearsShown } from "./experience";
import { HOLISTIC_TITLE, TASK_HEADING, TASK_LABEL } from "./rubric-words";
import {
  FACET_STEMS,
  type Facet,
  facetMarkers,
  formTargetWords,
  frontMatterEnd,
  GENRE_NEUTRAL_STEMS,
  proseOf,
  targetWords,
  WRITING_STEMS,
  type WritingSignals,
  writingSignals,
} from "./signals";
import {
  contentTerms,
  isGenericStem,
  keyTermsOf,
  type Name,
  named,
  namedByRoot,
  namesOf,
  negatedBases,
  stemWord,
  termCounts,
  titleTermsOf,
  tokenize,
  topicTermsOf,
} from "./terms";
import {
  ABSENT,
  DEFAULT_PASS_PERCENT,
  nothingUnmet,
  overallScore,
  type PassLevel,
  passLevel,
  requiredPart,
  settleUnmet,
  shareOf,
  type Unmet,
  unmetRequirements,
  unmetSentences,
  withWeightsNoted,
} from "./verdict";

export interface LocalInput {
  criteria: RubricCriterion[];
  inputs: EngineDocument[];
  prompt: string | null;
  /** Reference text the task's topic and length are read from (the same text the criteria came from). */
  referenceTexts: string[];
  /** ASSAY_PASS_THRESHOLD: percent of the maximum that passes when neither the prompt nor the rubric says (default 60). */
  passThreshold?: number;
  /**
   * Whether shorter work scores lower when neither the prompt nor the rubric names a length: true for written
   * compositions (essays, reports), false for documents checked for what they contain (CVs, contracts, exam answers).
   * Default true.
   */
  lengthCounts?: boolean;
  /**
   * Whether a criterion's title names what the document must contain, so that a document naming none of its words
   * does not meet it: a contract's clauses ("Limitation of liability"). Not a CV's skill areas ("Cloud and
   * infrastructure", shown by "AWS" and "Docker"), nor an essay's qualities. Default false.
   */
  titlesNamed?: boolean;
  /**
   * Whether a pass needs every criterion the rubric does not mark optional to be shown, so that one seemingly absent
   * leaves the verdict to a person: a contract's clauses, a job's must-have requirements. Default false.
   */
  allRequired?: boolean;
  /** Today, for a CV's roles held "to Present" (default: the time of the call). */
  now?: Date;
}

/**
 * The evidence strength (0..1) at which a criterion's top level counts as met. The strength multiplies saturating
 * signals, so even work that meets every descriptor stays below 1: the engine's own exemplar (the strong essay of
 * test/engine/fixtures.ts, written to meet each top descriptor of its rubric) reads 0.79–0.91. A criterion's share
 * of its maximum is its strength over this anchor, capped at 1.
 */
const MEETS_TOP = 0.75;
const MAX_KEY_TERMS = 25;
const MAX_EVIDENCE = 3;
const TOPIC_TERMS = 30;
const INPUT_TERMS = 40;
/**
 * Words every contract uses, whatever its clauses: they name no clause ("Audit rights", "Holiday entitlement", "Term of
 * confidentiality" are found by their other words).
 */
const CLAUSE_STEMS = new Set(
  "right rights entitlement entitlements obligation obligations provision provisions clause clauses term terms agreement party parties period arrangements general other additional requirement requirements"
    .split(" ")
    .map(stemWord),
);
/** What a criterion's words count for when the document names none of the things its requirement names (a job's, LocalInput.allRequired). */
const TITLE_MISSING = 0.3;
/** Consecutive passages in which a criterion's terms are looked for together. */
const WINDOW = 10;

interface Term {
  stem: string;
  word: string; // how the rubric wrote it, for rationales
  weight: number;
  craft: boolean;
}

interface Prepared {
  criterion: RubricCriterion;
  terms: Term[];
  facets: Facet[];
  /** Whether the facets come from the title ("Organisation"), not only from the descriptors. */
  named: boolean;
  /** The rubric's one scale, whose levels describe the whole work. */
  holistic: boolean;
  /**
   * What the criterion names that the document must name too: its title's subject words where titles name what to
   * find (a contract's clauses, LocalInput.titlesNamed), the things a job's requirement names (LocalInput.allRequired),
   * else nothing.
   */
  titleSubject: Name[];
  /** Whether the title names a clause: a document naming none of its subject words is taken not to contain it. */
  clause: boolean;
  /** Whether it is a requirement a CV must meet (every one required, the input not written work): one it denies is unmet. */
  requirement: boolean;
  /**
   * The facets judged for a criterion whose craft words name none ("relevant", "complete"): any essay's writing; in a
   * CV or a contract, none (its words are judged by what the document says).
   */
  usual: Facet[];
  /** The years of experience the criterion asks for ("5+ years of …"), outside written work; else null. */
  yearsAsked: number | null;
}

/**
 * The part of an input that is its writing, as text for the counts and as a test for its passages. Never the comments
 * on it (someone else's words: a teacher's note naming the topic and a figure lifted a weak essay from 12 to 44). In
 * written work, not its page header and footer (a name, a date, a page number) nor the heading above its first
 * sentence (frontMatterEnd); a CV's or a contract's first lines (a name, contact lines, a list of skills) are its content.
 */
function writingOf(d: EngineDocument, written: boolean): { text: string; lines: string; holds: (p: Passage) => boolean } {
  // (Office documents name these parts so; a JSON or XML input's "comments" is a path of its own content.)
  const office = d.content.format === "docx" || d.content.format === "pptx";
  const aside = new Set(!office ? [] : written ? ["comments", "header", "footer"] : ["comments"]);
  const body = d.content.sections.filter((s) => !aside.has(s.location.section ?? ""));
  const text = body.map((s) => s.text).join("\n\n");
  // The body comes first in content.text (the parts set aside follow it), so one offset serves the text and passages.
  const start = written ? frontMatterEnd({ format: d.content.format, text }) : 0;
  const lines = text.slice(start);
  return {
    text: proseOf({ format: d.content.format, text: lines }),
    lines,
    holds: (p) => p.start >= start && !aside.has(d.content.sections[p.section]?.location.section ?? ""),
  };
}

/**
 * Evaluates the inputs against the criteria. Deterministic: the same documents always give the same result (on the
 * same day: a CV's role held "to Present" counts up to `now`).
 */
export function evaluateLocally(input: LocalInput): Evaluation {
  // Written work (essays, reports) rather than documents checked for what they contain (CVs, contracts).
  const written = input.lengthCounts !== false;
  const writing = input.inputs.map((d) => writingOf(d, written));
  const passages = input.inputs.flatMap((d, i) => passagesOf(d).filter(writing[i].holds));
  const passageTerms = passages.map((p) => new Set(contentTerms(p.text)));
  const prose = writing.map((w) => w.text);
  const docCounts = termCounts(prose.flatMap((text) => contentTerms(text)));
  const task = [input.prompt, ...input.referenceTexts];
  const target = targetWords(task);
  const measured = writingSignals(prose, passages, target ?? formTargetWords(task));
  // A CV or a contract is not better for being longer: length is judged where a length is asked for, or in essays.
  const signals = target === null && !written ? { ...measured, development: 1 } : measured;
  const relevance = topicRelevance(input, docCounts, negatedBases(prose));
  // A task that asks for a story ("Write a true story …", "personal narrative") asks for a story's focus.
  const story = (task.join("\n").match(/\b(?:story|stories|narrative|narratives)\b/gi)?.length ?? 0) >= 2;
  const prepared = prepare(input.criteria, written, input.titlesNamed === true, input.allRequired === true, story);
  // Each input's lines as written (a CV's table rows included), for its years, limits and title.
  const lines = writing.map((w) => w.lines);
  // A CV's years of work, for requirements that ask for some ("5+ years of …"); an essay's dates are its subject.
  const years = written ? null : yearsShown(lines.join("\n"), input.now ?? new Date());
  const ranked = rankedPassages(input.inputs, passages, prepared);
  const markers = markerCounts(passages);

  // A contract's sentences, where a clause named only to be excluded is looked for.
  const sentences = prepared.some((p) => p.titleSubject.length > 0 || p.requirement) ? sentencesOf(prose) : [];
  // (Years "as an HR adviser" are the years of the roles named so: an HR assistant's are not.)
  const yearsOf = (p: Prepared) =>
    written || p.yearsAsked === null ? years : yearsFor(p.criterion, lines.join("\n"), input.now ?? new Date(), years);
  const scores = prepared.map((p) => scoreCriterion(p, docCounts, passageTerms, signals, relevance, yearsOf(p), sentences, lines));
  const scored: Criterion[] = prepared.map((p, i) => {
    const s = scores[i];
    const evidence = pickEvidence(p, passages, passageTerms, ranked[i], relevance.topic, markers);
    return {
      id: p.criterion.id,
      title: p.criterion.title,
      score: s.score,
      max_score: p.criterion.maxScore,
      rationale: rationale(p, s, signals, relevance),
      evidence,
    };
  });
  const criteria = withWeightsNoted(scored, input.criteria);

  // The share of the rubric's maximum the evidence supports.
  const score = overallScore(criteria, input.criteria);
  const pass = passLevel(input.criteria, input.prompt, input.referenceTexts, input.passThreshold ?? DEFAULT_PASS_PERCENT);
  // Optional criteria (a job's nice-to-haves) add to the score but are no part of the pass: a candidate with every
  // must-have and none of the extras passes.
  const required = requiredPart(criteria, input.criteria);
  // Where every requirement must be met (a contract's clauses, a job's must-haves), one the document seems to lack
  // holds a pass back, and so do years of experience its dated roles do not reach.
  const unmet: Unmet<Criterion> = {
    ...(input.allRequired
      ? unmetRequirements(
          criteria,
          input.criteria,
          prepared.map((p) => p.yearsAsked),
          scores.map((s) => s.tenure?.shown ?? null),
          scores.map((s) => s.excluding),
          !input.titlesNamed,
        )
      : nothingUnmet<Criterion>()),
    // A contract of another kind than the checklist's shares its words: its title tells it apart.
    otherKind: input.titlesNamed ? otherKind(input.referenceTexts, lines) : null,
  };
  const verdict = settleUnmet(decide(required?.score ?? score, pass, required?.criteria ?? criteria, relevance), unmet);
  return { summary: summary(criteria, score, verdict, signals, relevance, pass, unmet, required?.score ?? null), score, verdict, criteria };
}

const TENURE_FROM: Record<YearsShown["from"], string> = {
  dates: "its dated roles",
  stated: "as it states",
  role: "its dated roles of the kind asked",
};

/** Points (of 100) either side of the pass line within which disagreeing criteria leave the verdict to a person. */
const REVIEW_MARGIN = 4;

/**
 * pass at or above the pass line, fail below it; needs_review when the evidence cannot decide: the score sits at the
 * line while the criteria contradict each other (one at its top, another at its bottom), a pass rests on criteria
 * for which no passage of the input could be quoted, or a pass rests on how the work is written while it says little
 * about its task (off-topic work, or on-topic work in other words: only a person can tell which). (Requirements
 * that must each be met are settled after: `settleUnmet`.)
 */
export function decide(score: number, pass: PassLevel, criteria: Criterion[], relevance: Pick<Relevance, "little">): Evaluation["verdict"] {
  const line = 100 * pass.share;
  const shares = criteria.map(shareOf);
  // Near the top is four fifths of the maximum or more, near the bottom a fifth or less (on 0–3: 3 against 0).
  const contradictory = shares.length > 1 && Math.max(...shares) >= 0.8 && Math.min(...shares) <= 0.2;
  if (Math.abs(score - line) <= REVIEW_MARGIN && contradictory) return "needs_review";
  if (score >= line) {
    const unquoted = criteria.filter((c) => c.score > 0 && c.evidence.length === 0).length;
    return unquoted * 2 > criteria.length || relevance.little ? "needs_review" : "pass";
  }
  return "fail";
}

/** The highest score on the criterion's own scale that is at most `share` of its maximum (its lowest level at least). */
function atMost(criterion: RubricCriterion, share: number): number {
  const cap = share * criterion.maxScore + 1e-9;
  if (criterion.levels && criterion.levels.length >= 2) {
    const under = criterion.levels.filter((l) => l.value <= cap).map((l) => l.value);
    return under.length > 0 ? Math.max(...under) : Math.min(...criterion.levels.map((l) => l.value));
  }
  return criterion.maxScore >= 5 ? Math.floor(cap) : Math.floor(cap * 2) / 2;
}

/** A strength (0..1) on the criterion's own scale: its levels when the rubric states them, else whole or half points. */
function toScale(criterion: RubricCriterion, strength: number): number {
  const share = Math.min(1, Math.max(0, strength / MEETS_TOP));
  const max = criterion.maxScore;
  if (criterion.levels && criterion.levels.length >= 2) {
    const target = share * max;
    // The nearest level the rubric defines (a tie goes to the lower: the higher level is not shown to be met).
    return criterion.levels.reduce((best, l) => (Math.abs(l.value - target) < Math.abs(best.value - target) - 1e-9 ? l : best)).value;
  }
  return max >= 5 ? Math.round(max * share) : Math.round(max * share * 2) / 2;
}

// ---------------------------------------------------------------------------
// Criteria -> weighted key terms and facets

function prepare(criteria: RubricCriterion[], written: boolean, titlesNamed: boolean, allRequired: boolean, story = false): Prepared[] {
  const raw = criteria.map((c) => {
    // The name Assay gives a holistic scale ("Overall quality") is not the rubric's: its words are not to be found.
    const title = c.title === HOLISTIC_TITLE ? [] : titleTermsOf(c.title);
    const description = keyTermsOf(c.description);
    const words = new Map<string, string>();
    for (const t of tokenize(`${c.title} ${c.description}`)) if (!words.has(t.stem)) words.set(t.stem, t.word);
    return { c, title: new Set(title), counts: termCounts([...title, ...description]), words };
  });
  // Words of an essay's argument ("data", "claim", "proof", "purpose", "closing") name a contract's or a CV's subject:
  // only in written work do they point to writing signals. (How any document is written, its language, mechanics
  // and organisation, stays a craft.)
  const craftStem = (stem: string) => WRITING_STEMS.has(stem) && (written || !ARGUMENT_STEMS.has(stem));
  // idf across criteria: a word every criterion uses ("essay", "topic") tells them apart least.
  const df = new Map<string, number>();
  for (const r of raw) for (const stem of r.counts.keys()) df.set(stem, (df.get(stem) ?? 0) + 1);
  const n = criteria.length;
  return raw.map((r) => {
    const terms: Term[] = [...r.counts].map(([stem, count]) => ({
      stem,
      word: r.words.get(stem) ?? stem,
      // The title names the criterion: its words count double; repeats in the descriptors count a little more.
      weight: Math.log(1 + n / (df.get(stem) ?? 1)) * (r.title.has(stem) ? 2 : 1) * (1 + 0.25 * Math.log(count)) * (isGenericStem(stem) ? 0.35 : 1),
      craft: craftStem(stem),
    }));
    terms.sort((a, b) => b.weight - a.weight || a.stem.localeCompare(b.stem));
    // A rubric of one scale is holistic: its levels describe the whole work, so every facet they grade is judged. So
    // is a scale named for the whole work beside others ("Writing applications" beside "Language conventions", ASAP
    // set 2): judged by relevance as a subject, every on-topic essay got 6 of 6. (A lone criterion named after a
    // craft, "Organisation", stays about that craft; levels that name no craft, "a full grasp of the text", grade
    // what the work says.)
    const found = facetsOf(r.title, r.counts, written ? ALL_FACETS : DOCUMENT_FACETS);
    // ("Focus" in a story's checklist is the story's focus: told as a story, not argued. "Thesis" stays an argument.)
    const neutral = [...r.title].every((s) => !FACET_STEMS.argument.has(s) || GENRE_NEUTRAL_STEMS.has(s));
    const own =
      story && neutral && found.facets.includes("argument")
        ? { ...found, facets: [...new Set(found.facets.map((f): Facet => (f === "argument" ? "narrative" : f)))] }
        : found;
    // (In written work: a CV's "Overall impression" beside "Skills" is about the candidate, not the writing.)
    const whole = criteria.length === 1 || (written && WHOLE_WORK.test(r.c.title));
    // (A title that names a craft names the scale's own subject, unless it says the scale is of the whole work:
    // "Persuasive letter (holistic)", "Argument writing".)
    const graded = whole && (r.c.levels?.length ?? 0) >= 2 && (!own.named || WHOLE_WORK.test(r.c.title)) ? gradedFacets(r.c.levels ?? []) : [];
    const holistic = graded.length > 0;
    // (A clause's title names it by its subject words, not by the words every contract uses, "rights" or "period". Where
    // every requirement must be met, a job's, the things a requirement names are what must be there: "Production
    // experience with AWS" is not met by "production experience" alone.)
    const titleSubject = titlesNamed
      ? [...r.title].filter((stem) => !craftStem(stem) && !isGenericStem(stem) && !CLAUSE_STEMS.has(stem)).map((stem) => ({ stem, words: null }))
      : allRequired && !written
        ? namesOf(`${r.c.title}\n${r.c.description}`)
        : [];
    const usual: Facet[] = written ? ["evidence", "organisation", "language", "argument"] : [];
    return {
      criterion: r.c,
      terms: terms.slice(0, MAX_KEY_TERMS),
      ...(holistic ? { facets: graded, named: false } : own),
      holistic,
      titleSubject,
      clause: titlesNamed,
      requirement: allRequired && !written && !titlesNamed,
      usual,
      yearsAsked: written ? null : yearsAskedBy(r.c),
    };
  });
}

const ALL_FACETS = Object.keys(FACET_STEMS) as Facet[];
/** The facets of any document's writing; the others (evidence, argument, counterargument, conclusion, story) are an essay's. */
const DOCUMENT_FACETS: Facet[] = ["language", "mechanics", "organisation"];
const ARGUMENT_STEMS = new Set(
  ALL_FACETS.filter((f) => !DOCUMENT_FACETS.includes(f))
    .flatMap((f) => [...FACET_STEMS[f]])
    .filter((stem) => !DOCUMENT_FACETS.some((f) => FACET_STEMS[f].has(stem))),
);

/** A criterion title that names the work as a whole: "Writing", "Overall impression", "Holistic score", "Composition". */
const WHOLE_WORK = /\b(?:writing|overall|holistic|composition)\b/i;

/** The facets any of these stems names. */
function facetsNamedBy(stems: Iterable<string>): Facet[] {
  const list = [...stems];
  return ALL_FACETS.filter((f) => list.some((s) => FACET_STEMS[f].has(s)));
}

/** The facets a scale grades: each named by two of its levels or more (one mention is a detail of one level). */
function gradedFacets(levels: { descriptor: string }[]): Facet[] {
  const named = levels.map((l) => facetsNamedBy(keyTermsOf(l.descriptor)));
  return ALL_FACETS.filter((f) => named.filter((facets) => facets.includes(f)).length >= 2);
}

/** The facets a criterion is about: those its title names, else those its descriptors keep returning to. */
function facetsOf(title: Set<string>, counts: Map<string, number>, among: Facet[]): { facets: Facet[]; named: boolean } {
  const inTitle = facetsNamedBy(title).filter((f) => among.includes(f));
  if (inTitle.length > 0) return { facets: inTitle, named: true };
  const hits = among.map((f) => ({ f, n: [...counts].reduce((sum, [s, c]) => sum + (FACET_STEMS[f].has(s) ? c : 0), 0) }));
  const top = Math.max(0, ...hits.map((h) => h.n));
  return { facets: top >= 2 ? hits.filter((h) => h.n === top).map((h) => h.f) : [], named: false };
}

// ---------------------------------------------------------------------------
// Relevance to the task

interface Relevance {
  /** Share of the task's topic words the input uses, or null when the task names no topic. */
  coverage: number | null;
  gate: number;
  /** The input says little about the task's topic (a coverage under a sixth): a pass is left to a person. */
  little: boolean;
  missing: string[];
  /** The task's topic words (stems) the coverage was measured on; empty when the task names no topic. */
  topic: Set<string>;
}

/**
 * How much the input is about the task's topic, from both sides: the share of the task's topic
 * words (the prompt's first paragraph's, else the references') the input uses, and the share of the input's own
 * most frequent words the task uses. The second keeps a long document that happens to contain
 * many words from counting as on-topic. Their geometric mean is the coverage. A word that negates a topic word
 * ("impatient" for "patience", in `bases`) uses it.
 */
function topicRelevance(input: LocalInput, docCounts: Map<string, number>, bases: Map<string, string>): Relevance {
  const topicOf = (text: string) => topicTermsOf(text).filter((s) => !WRITING_STEMS.has(s));
  const taskText = [input.prompt ?? "", ...input.referenceTexts].join("\n");
  // The prompt's first paragraph states the task ("Grade essays on urban tree planting"); the rest is
  // reviewing guidance that names no topic.
  const statement = (input.prompt ?? "").trim().split(/\n\s*\n/)[0] ?? "";
  let counts = termCounts(topicOf(statement));
  // A rubric that carries the task ("## Prompt", "Task:") names the topic there, not in its scoring words.
  let fromTask = false;
  if (counts.size < 3) {
    counts = termCounts(input.referenceTexts.flatMap((t) => topicOf(taskSection(t))));
    fromTask = counts.size >= 3;
  }
  if (counts.size < 3) counts = termCounts(input.referenceTexts.flatMap(topicOf));
  if (counts.size < 3) return { coverage: null, gate: 1, little: false, missing: [], topic: new Set() };
  const words = new Map<string, string>();
  for (const t of tokenize(taskText)) if (!words.has(t.stem)) words.set(t.stem, t.word);

  const byCount = (m: Map<string, number>) => [...m].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  let total = 0;
  let found = 0;
  const missing: string[] = [];
  const topic = new Set<string>();
  const used = new Set([...docCounts.keys(), ...bases.values()]);
  for (const [stem, count] of byCount(counts).slice(0, TOPIC_TERMS)) {
    topic.add(stem);
    const w = 1 + Math.log(count);
    total += w;
    if (used.has(stem)) found += w;
    else missing.push(words.get(stem) ?? stem);
  }
  const taskTerms = new Set(contentTerms(taskText));
  const own = new Map([...docCounts].filter(([s]) => !WRITING_STEMS.has(s) && !isGenericStem(s)));
  let ownTotal = 0;
  let ownFound = 0;
  for (const [stem, count] of byCount(own).slice(0, INPUT_TERMS)) {
    const w = 1 + Math.log(count);
    ownTotal += w;
    if (taskTerms.has(stem) || taskTerms.has(bases.get(stem) ?? "")) ownFound += w;
  }
  const taskSide = found / total;
  const ownSide = ownTotal > 0 ? ownFound / ownTotal : 0;
  // A short task statement ("Write a story about patience") leaves a response's own words (its story) unnamed: the
  // input's side counts only when the task's topic comes from the whole prompt or references, or from a task stated
  // in many topic words ("… closing the Harlow Park outdoor swimming pool to save money …"), whose responses are about
  // what it names: a letter on the task's town and council whose own words are phones and lunch is about something else.
  const oneSided = fromTask && counts.size < TOPIC_TERMS / 2;
  const coverage = oneSided ? Math.sqrt(taskSide * Math.max(ownSide, taskSide)) : Math.sqrt(taskSide * ownSide);
  // Work that shares almost no words with its task is off-topic: every criterion is held down.
  const gate = 0.4 + 0.6 * Math.min(1, coverage / 0.25);
  return { coverage, gate, little: gate < 0.8, missing, topic };
}

/** A line that reads as a heading: capitalised, at most eight words, no punctuation at its end or inside. */
const titleLine = (line: string) => /^\p{Lu}[^.,;:!?]*$/u.test(line) && line.split(/\s+/).length <= 8;

/** The text under a reference's task heading ("## Prompt", "Task:"), up to the next heading; empty when it has none. */
function taskSection(text: string): string {
  const lines = text.split("\n");
  // A spreadsheet's row "Prompt | Write about …": the task is the rest of the row.
  for (const line of lines) {
    const cells = line.split(" | ");
    if (cells.length >= 2 && TASK_HEADING.test(cells[0])) return cells.slice(1).join("\n");
  }
  // "Prompt: Write about …" on one line (a bold label in a DOCX): the task begins after the label.
  const inline = lines.some((l) => TASK_HEADING.test(l)) ? -1 : lines.findIndex((l) => TASK_LABEL.test(l));
  if (inline >= 0) lines.splice(inline, 1, "Prompt", lines[inline].replace(TASK_LABEL, ""));
  const at = lines.findIndex((l) => TASK_HEADING.test(l));
  if (at < 0) return "";
  // Markdown ends the task at the next heading. Text without heading marks (DOCX, PDF, TXT) ends it where the next
  // part of the rubric begins: a blank line after its words (as a prompt's task is its first paragraph), or a short
  // capitalised line without punctuation after a finished sentence (a PDF's next heading: "How the essay is scored").
  const heading = /^\s*#{1,6}\s/;
  // A labelled task ("Task: …") is its paragraph, whatever headings the rubric has elsewhere.
  const marked = inline < 0 && lines.some((l) => heading.test(l));
  const out: string[] = [];
  for (const line of lines.slice(at + 1)) {
    if (heading.test(line)) break;
    const last = out.findLast((l) => l.trim() !== "")?.trim();
    if (!marked && last !== undefined && (line.trim() === "" || (/[.!?]$/.test(last) && titleLine(line.trim())))) break;
    out.push(line);
  }
  return out.join("\n");
}

// ---------------------------------------------------------------------------
// Scoring

interface CriterionScore {
  score: number;
  found: Term[];
  missing: Term[];
  supporting: number;
  lexical: number | null;
  craft: number | null;
  /** The years of work the criterion asks for and those the input shows (null: it shows none), when it asks. */
  tenure: { asked: number; shown: YearsShown | null } | null;
  /** The sentence that excludes the clause ("There is no probationary period"), when every one naming it does. */
  excluding: string | null;
}

const sat = (x: number, scale: number) => 1 - Math.exp(-x / scale);
/** Whether a criterion's levels describe the work (two descriptors of three words or more), not only number or name it. */
const described = (c: RubricCriterion) => (c.levels ?? []).filter((l) => l.descriptor.split(/\s+/).filter(Boolean).length >= 3).length >= 2;
/** Coverage -> credit: a rubric's descriptors are never all repeated by good work, so credit rises fast then levels off. */
const credit = (coverage: number) => sat(coverage, 0.4) / sat(1, 0.4);

function scoreCriterion(
  p: Prepared,
  docCounts: Map<string, number>,
  passageTerms: Set<string>[],
  signals: WritingSignals,
  relevance: Relevance,
  years: YearsShown | null,
  sentences: Sentence[],
  lines: string[],
): CriterionScore {
  const gate = relevance.gate;
  const content = p.terms.filter((t) => !t.craft);
  const craftWeight = p.terms.filter((t) => t.craft).reduce((n, t) => n + t.weight, 0);
  const contentWeight = content.reduce((n, t) => n + t.weight, 0);

  // Subject words: does the input use them, and how often (one mention is not full coverage).
  let lexical: number | null = null;
  let supporting = 0;
  if (contentWeight > 0) {
    let got = 0;
    for (const t of content) got += t.weight * (sat(docCounts.get(t.stem) ?? 0, 1) / sat(3, 1));
    // Half the credit needs the terms together in one stretch of the input: a long document
    // mentions many words somewhere, work that addresses a criterion discusses them in one place.
    lexical = Math.min(1, 0.5 * (got / contentWeight) + (0.5 * bestWindow(content, passageTerms)) / contentWeight);
    for (const terms of passageTerms) {
      let w = 0;
      let distinct = 0;
      for (const t of content) {
        if (terms.has(t.stem)) {
          w += t.weight;
          distinct++;
        }
      }
      if (distinct >= 2 || (content.length <= 2 && distinct >= 1) || w >= 0.3 * contentWeight) supporting++;
    }
  }
  // Terms that never meet in one passage are weak evidence that the criterion is addressed.
  if (lexical !== null) lexical *= 0.6 + 0.4 * Math.min(1, supporting / 2);
  // A clause or a skill the document never names ("Limitation of liability" with neither word) is not shown by the
  // other words of its description ("months", "paid"): it earns a fraction of them.
  const unnamed =
    p.titleSubject.length > 0 && !p.titleSubject.some((name) => (p.clause ? namedByRoot(docCounts, name.stem) : named(docCounts, name)));
  if (lexical !== null && unnamed && !p.clause) lexical *= TITLE_MISSING;
  // A criterion with level descriptors ("clearly focused on the topic", "connections between events") describes
  // qualities of the work, not words it must repeat: its subject side is how much the work is about the task.
  // (Levels that only number or name a rating, "1–5" or "5 = Exceptional", describe nothing: the words are still to find.)
  if (lexical !== null && described(p.criterion) && relevance.coverage !== null) lexical = Math.max(lexical, Math.min(1, relevance.coverage / 0.25));
  // Craft words ("evidence", "organisation"): judged by the writing signals of the facets the criterion is about.
  const facets: Facet[] = p.facets.length > 0 ? p.facets : craftWeight > 0 ? p.usual : [];
  const facetMean = (held: (f: Facet) => number) =>
    facets.length > 0 ? facets.reduce((n, f) => n + signals.facets[f] * held(f), 0) / facets.length : null;
  const craft = facetMean(() => 1);
  // An essay's argument, evidence and story answer its task: a thesis on another question is none for this one ("cannot
  // earn points for Thesis, Evidence or Analysis"), so where the craft alone judges a criterion, relevance holds those
  // facets down; how any document is written (language, mechanics, organisation) it does not. (Where the subject side
  // shares the judgement, relevance holds it down there; a holistic scale is held down as a whole.)
  const craftAlone = facetMean((f) => (DOCUMENT_FACETS.includes(f) ? 1 : gate));

  // The subject side (and its boost for several supporting passages) is what relevance to the task holds down.
  const subject = lexical === null ? null : credit(lexical) * gate;
  let base: number;
  // A holistic scale's levels describe qualities of the writing: relevance to the task is what holds them down
  // (off-topic work), not one more quality that all on-topic work has.
  if (p.holistic) base = (craft ?? 0) * gate;
  else if (subject === null && craft === null) base = 0;
  else if (subject === null) base = craftAlone as number;
  else if (craft === null) base = subject;
  else {
    const share = craftWeight / (craftWeight + contentWeight);
    // A criterion named after a craft ("Organisation") leans on its signals even when its descriptors name subjects;
    // with level descriptors ("clear and logically sequenced"), which describe degrees of that craft, only on them.
    const craftShare = p.facets.length === 0 ? share : p.named && p.criterion.levels ? 1 : Math.max(share, 0.35);
    base = craftShare === 1 ? (craftAlone as number) : (1 - craftShare) * subject + craftShare * craft;
  }
  // A holistic scale is judged by its qualities: subject words in its levels earn nothing for being repeated.
  const boost = subject === null || p.holistic ? 0 : Math.min(0.1, 0.035 * Math.max(0, supporting - 1)) * gate;
  const development = 0.3 + 0.7 * signals.development;
  // "5+ years of …" is met in proportion to the years the input shows; a CV that dates none cannot be checked, and
  // the rationale says so.
  const asked = p.yearsAsked;
  const tenure = asked === null ? null : { asked, shown: years };
  const served = tenure?.shown ? Math.min(1, tenure.shown.years / tenure.asked) : 1;
  const fraction = Math.min(1, Math.max(0, (base + boost) * development));
  // (Scaled past the anchor: two years of the three asked are two thirds of the top level, however strong the words.)
  const scaled = toScale(p.criterion, served < 1 ? Math.min(fraction, MEETS_TOP) * served : fraction);
  // A clause the contract never names ("Insurance" with no word of insurance) is taken as missing, however many of its
  // description's words ("evidence", "levels") the contract uses elsewhere: a person checks it is not worded otherwise.
  // So is one it names only to exclude it ("There is no probationary period"), a job's requirement a CV names only
  // to deny it ("I don't yet hold a CIPP qualification"), and one whose limit the CV passes ("9 points" against "no
  // more than 6 penalty points").
  const spec = `${p.criterion.title} ${p.criterion.description}`;
  const names = p.titleSubject.map((n) => n.stem);
  const namesThere = names.length > 0 && !unnamed;
  const excluding =
    (namesThere ? excludingSentence(p.criterion.title, names, sentences, docCounts, p.clause ? "contract" : "cv", p.criterion.description) : null) ??
    // (A CV's requirement passed over a limit, "9 points" against "no more than 6", or held below the level asked.)
    (namesThere && !p.clause ? (overLimit(spec, lines) ?? belowLevel(spec, names, lines)) : null) ??
    // (A requirement denied in its own words, where its names do not find the sentence: "I do not currently hold a full
    // driving licence" against "Full UK driving licence and access to a car", whose only name is "UK"; or where the CV
    // names none of them: "I do not yet hold a full category C licence" against "… category C (rigid HGV / class 2)".)
    (p.requirement
      ? deniedInWords(
          content.map((t) => t.stem),
          sentences,
        )
      : null);
  const score = (p.clause && unnamed) || excluding ? Math.min(scaled, atMost(p.criterion, ABSENT)) : scaled;

  const found = content.filter((t) => docCounts.has(t.stem));
  const missing = content.filter((t) => !docCounts.has(t.stem));
  return { score, found, missing, supporting, lexical, craft, tenure, excluding };
}

/** The largest weight of distinct terms found within WINDOW consecutive passages (of one document). */
function bestWindow(terms: Term[], passageTerms: Set<string>[]): number {
  let best = 0;
  for (let i = 0; i < passageTerms.length; i++) {
    let w = 0;
    for (const t of terms) {
      for (let j = i; j < Math.min(passageTerms.length, i + WINDOW); j++) {
        if (passageTerms[j].has(t.stem)) {
          w += t.weight;
          break;
        }
      }
    }
    if (w > best) best = w;
  }
  return best;
}

// ---------------------------------------------------------------------------
// Evidence

/** For each criterion, the input chunks BM25 ranks best for its title and descriptors (rank 0 is best). */
function rankedPassages(inputs: EngineDocument[], passages: Passage[], prepared: Prepared[]): Map<Passage, number>[] {
  const chunks: { documentId: string; chunk: Chunk }[] = inputs.flatMap((d) =>
    chunkDocument(d.content).map((chunk) => ({ documentId: d.id, chunk })),
  );
  const owner = new Map(chunks.map((c) => [c.chunk, c.documentId]));
  const queries = prepared.map((p) => `${p.criterion.title}\n${p.criterion.description}`);
  const results = rankChunksMany(
    chunks.map((c) => c.chunk),
    queries,
    8,
  );
  return results.map((hits) => {
    const rank = new Map<Passage, number>();
    hits.forEach((hit, r) => {
      const doc = owner.get(hit.chunk);
      const start = hit.chunk.startOffset;
      const end = start + hit.chunk.text.length;
      for (const p of passages) {
        if (p.documentId === doc && p.start < end && p.end > start && !rank.has(p)) rank.set(p, r);
      }
    });
    return rank;
  });
}

/** A facet's marker count in each passage, counted once for all the criteria that look for that facet. */
function markerCounts(passages: Passage[]): (facet: Facet, i: number) => number {
  const counts = new Map<Facet, number[]>();
  return (facet, i) => {
    let byPassage = counts.get(facet);
    if (byPassage === undefined) {
      byPassage = passages.map((p) => facetMarkers(facet, p.text));
      counts.set(facet, byPassage);
    }
    return byPassage[i];
  };
}

function pickEvidence(
  p: Prepared,
  passages: Passage[],
  passageTerms: Set<string>[],
  rank: Map<Passage, number>,
  topic: Set<string>,
  markers: (facet: Facet, i: number) => number,
): Evidence[] {
  const hasWords = (x: { passage: Passage }, words: number) => x.passage.text.split(/\s+/).length >= words;
  const scored = passages.map((passage, i) => {
    let s = 0;
    for (const t of p.terms) if (passageTerms[i].has(t.stem)) s += t.craft ? 0.5 * t.weight : t.weight;
    for (const f of p.facets) s += 0.6 * Math.min(3, markers(f, i));
    const r = rank.get(passage);
    if (s > 0 && r !== undefined) s += 0.5 / (r + 1);
    return { passage, s, i };
  });
  const top = (xs: typeof scored) =>
    xs
      .sort((a, b) => b.s - a.s || a.i - b.i)
      .slice(0, MAX_EVIDENCE)
      .sort((a, b) => a.i - b.i);
  let chosen = top(scored.filter((x) => x.s > 0 && hasWords(x, 3)));
  // A criterion with level descriptors ("understanding of the complexities of the text") names qualities, not words
  // to find, and is scored on how much the work is about its task: the sentences most about the task show that (two of
  // its topic words, or one when a short task names four or fewer: "the features of the setting affect the cyclist").
  if (chosen.length === 0 && p.criterion.levels && topic.size > 0) {
    const onTopic = scored.map((x) => ({ ...x, s: [...passageTerms[x.i]].filter((stem) => topic.has(stem)).length }));
    const least = topic.size <= 4 ? 1 : 2;
    chosen = top(onTopic.filter((x) => x.s >= least && hasWords(x, 5)));
  }
  // Criteria about language have no words to find: the opening sentences show how the input is written.
  if (chosen.length === 0 && (p.facets.includes("language") || p.facets.includes("mechanics"))) {
    chosen = scored.filter((x) => hasWords(x, 8)).slice(0, 2);
  }
  return chosen.map(({ passage }) => ({ document_id: passage.documentId, quote: passage.text, location: { ...passage.location } }));
}

// ---------------------------------------------------------------------------
// Words

function list(terms: Term[], max = 6): string {
  const words = terms.slice(0, max).map((t) => t.word);
  return terms.length > max ? `${words.join(", ")} and ${terms.length - max} more` : words.join(", ");
}

const FACET_LABEL: Record<Facet, string> = {
  evidence: "evidence",
  organisation: "organisation",
  language: "language",
  mechanics: "spelling and mechanics",
  argument: "argument",
  counter: "counterargument",
  conclusion: "conclusion",
  narrative: "telling a story",
  dialogue: "dialogue",
  sensory: "sensory detail",
};

function rationale(p: Prepared, s: CriterionScore, signals: WritingSignals, relevance: Relevance): string {
  const parts: string[] = [];
  const total = s.found.length + s.missing.length;
  // A holistic scale is judged by its qualities, not by the words of its levels.
  if (total > 0 && !p.holistic) {
    parts.push(
      s.found.length === 0
        ? `None of its ${total} key terms appear in the input (${list(s.missing)}).`
        : `The input uses ${s.found.length} of its ${total} key terms (${list(s.found)})` +
            (s.missing.length ? `; missing: ${list(s.missing)}.` : "."),
    );
    if (s.supporting > 0) parts.push(`${s.supporting} passage${s.supporting === 1 ? "" : "s"} address${s.supporting === 1 ? "es" : ""} it.`);
  }
  if (s.craft !== null) {
    const facets = p.facets.length > 0 ? p.facets : p.usual;
    parts.push(`Writing signals for ${facets.map((f) => FACET_LABEL[f]).join(", ")}: ${facets.map((f) => signals.notes[f]).join("; ")}.`);
  }
  if (s.tenure) {
    const { asked, shown } = s.tenure;
    parts.push(
      shown === null
        ? `It asks for ${asked} year${asked === 1 ? "" : "s"} of experience; the input dates no roles to count them from.`
        : `It asks for ${asked} year${asked === 1 ? "" : "s"} of experience; the input shows about ${shown.years} (${TENURE_FROM[shown.from]}).`,
    );
  }
  if (s.excluding) parts.push(`The input names it only to ${p.clause ? "exclude it" : "say it is not held"}: "${s.excluding}"`);
  if (signals.development < 0.6) parts.push(`The input is short for the task (${signals.words} words).`);
  if (relevance.little) parts.push("Little of the input is about the task's topic.");
  return parts.join(" ");
}

const PASS_SOURCE: Record<PassLevel["source"], string> = {
  prompt: "the pass mark the workflow's prompt states",
  rubric: "the pass mark the rubric states",
  levels: "the level the rubric calls adequate",
  setting: "the server's default threshold",
};

function summary(
  criteria: Criterion[],
  score: number,
  verdict: Evaluation["verdict"],
  signals: WritingSignals,
  relevance: Relevance,
  pass: PassLevel,
  unmet: Unmet<Criterion>,
  requiredScore: number | null,
): string {
  const label = verdict === "needs_review" ? "needs review" : verdict;
  const line = `${Math.round(100 * pass.share)}${requiredScore === null ? "" : ` on the required criteria (${requiredScore}/100; the optional ones add to the score only)`}`;
  const parts = [
    `Overall ${score}/100 (${label}; passes at ${line}, ${PASS_SOURCE[pass.source]}) on ${criteria.length} criteri${criteria.length === 1 ? "on" : "a"}, scored by the built-in local evaluator.`,
  ];
  if (criteria.length > 1) {
    const order = criteria.map((c, i) => ({ c, i })).sort((a, b) => shareOf(b.c) - shareOf(a.c) || a.i - b.i);
    const best = order[0].c;
    const worst = order[order.length - 1].c;
    if (shareOf(best) > shareOf(worst)) {
      parts.push(`Strongest: ${best.title} (${best.score}/${best.max_score}). Weakest: ${worst.title} (${worst.score}/${worst.max_score}).`);
    } else parts.push("Every criterion scored the same share of its maximum.");
  }
  if (relevance.coverage === 0) {
    parts.push(
      `The input shares no words with the task's topic (such as ${relevance.missing.slice(0, 4).join(", ")}): a person should check that it answers the task.`,
    );
  } else if (relevance.little) {
    parts.push(
      `The input says little about the task's topic (missing words such as ${relevance.missing.slice(0, 4).join(", ")})${verdict === "needs_review" ? ": a person should check that it answers the task" : ""}.`,
    );
  }
  if (signals.development < 0.6) parts.push(`At ${signals.words} words it is short for the task.`);
  parts.push(...unmetSentences(unmet));
  parts.push("The local evaluator matches the rubric's terms and counts writing signals; it does not judge correctness.");
  return parts.join(" ");
}
