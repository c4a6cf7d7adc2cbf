// Writing signals of the input (development, evidence, organisation, language, mechanics, argument), each 0..1, for criteria about how work is written.
import { isEnglishWord } from "../../lib/english-words";
import type { Passage } from "../passages";
import { stemWord, tokenize } from "./terms";

export type Facet =
  | "evidence"
  | "organisation"
  | "language"
  | "mechanics"
  | "argument"
  | "counter"
  | "conclusion"
  | "narrative"
  | "dialogue"
  | "sensory";

export interface WritingSignals {
  words: number;
  sentences: number;
  paragraphs: number;
  /** Length against the length the task asks for (or a default). */
  development: number;
  facets: Record<Facet, number>;
  /** Plain-language notes on what was counted, per facet, for rationales. */
  notes: Record<Facet, string>;
}

// Vocabulary that marks a criterion as being about one facet of writing. A criterion's words
// found here are judged by the facet's signal, not by whether the input repeats the word.
const FACET_WORDS: Record<Facet, string> = {
  evidence:
    "evidence support supporting supported example examples source sources citation citations cite cited data research fact facts " +
    "detail details quote quotation quotations reference references statistic statistics proof illustrate justify specific " +
    "documentation substantiate substantiated",
  organisation:
    "organisation organization organised organized structure structured coherence coherent flow paragraph paragraphs transition " +
    "transitions logical sequence order cohesion cohesive introduction layout progression unity",
  language:
    "clarity clear language style fluency fluent voice word words vocabulary sentence sentences tone concise concision " +
    "readability readable expression audience diction syntax",
  // Conventions of written English: judged by spelling against a word list and by capitalisation, not by style.
  mechanics:
    "grammar grammatical mechanics spelling spelled misspelled misspellings punctuation conventions capitalization " +
    "capitalisation usage proofreading errors error",
  argument:
    "thesis argument arguments argue claim claims position stance focus purpose reasoning reason reasons persuasive persuade " +
    "persuasion opinion perspective analysis analyse analyze critical logic justification insight view views viewpoint arguable",
  counter: "counterargument counterarguments counterclaim counterclaims rebuttal rebut refute refutation opposing objection objections alternative",
  conclusion: "conclusion conclusions concluding conclude summary summarise summarize closing",
  // A rubric that asks for a story ("Tells a story", "narrative") is judged on whether the work tells one.
  narrative: "story stories storytelling narrative narratives narrate narrated narrator narration tell tells telling told plot anecdote",
  // A story's talking and its details of the senses, as story rubrics ask for them ("At least one line of dialogue",
  // "Sensory details: what I saw, heard, smelled …").
  dialogue: "dialogue dialogues dialog talking conversation conversations",
  sensory: "sensory senses sensation sensations",
};

/**
 * Argument words any genre's rubric uses ("Focus", "Purpose", "Insight"): in a story's rubric they ask for a story's
 * focus, not a thesis.
 */
export const GENRE_NEUTRAL_STEMS = new Set(
  "focus focused purpose perspective insight view views viewpoint analysis critical".split(" ").map(stemWord),
);

export const FACET_STEMS: Record<Facet, Set<string>> = Object.fromEntries(
  Object.entries(FACET_WORDS).map(([facet, words]) => [facet, new Set(words.split(/\s+/).map(stemWord))]),
) as Record<Facet, Set<string>>;

/** Every stem that belongs to writing craft rather than to a subject. */
export const WRITING_STEMS = new Set([
  ...Object.values(FACET_STEMS).flatMap((s) => [...s]),
  // Words rubrics use about any work, whatever its subject: no facet, but never a subject word either.
  ..."idea ideas topic topics body content understanding depth thorough thoroughly complete completeness accurate accuracy correct correctly relevant relevance original originality creative creativity effective effectiveness purposeful development developed develops overall main central key task prompt question answer answers"
    .split(" ")
    .map(stemWord),
  // The names of levels and the degrees level descriptors grade by ("Exceeds | Meets | Approaching | Below", "a sharp
  // claim … a vague claim"): they say how well, never what about.
  ..."level levels score scores criterion criteria rubric exceeds exceed meets approaching approaches below beginning developing emerging proficient proficiency exemplary excellent satisfactory unsatisfactory competent novice advanced accomplished distinguished partial partially minimal minimally adequate adequately inadequate sharp vague somewhat mostly none"
    .split(" ")
    .map(stemWord),
]);

// Markers counted in the text. Lower-case, matched on word boundaries.
const EVIDENCE_MARKERS = [
  "for example",
  "for instance",
  "such as",
  "according to",
  "e.g",
  "research",
  "study",
  "studies",
  "survey",
  "report",
  "data",
  "percent",
  "evidence",
  "found that",
  "shows that",
  "showed that",
  "statistics",
  "source",
  "cited",
  "quoted",
];
const TRANSITIONS = [
  "first",
  "firstly",
  "second",
  "secondly",
  "third",
  "finally",
  "furthermore",
  "moreover",
  "however",
  "therefore",
  "thus",
  "consequently",
  "in addition",
  "additionally",
  "for example",
  "for instance",
  "in conclusion",
  "to conclude",
  "in summary",
  "overall",
  "on the other hand",
  "nevertheless",
  "meanwhile",
  "similarly",
  "likewise",
  "as a result",
  "although",
  "whereas",
  "instead",
  "next",
  "ultimately",
  "in contrast",
  "specifically",
  "indeed",
  "above all",
  "in particular",
  "also",
  "so",
  "then",
  "after that",
  "another",
  "besides",
  "for this reason",
  "in fact",
  "of course",
  "to begin with",
];
const STANCE_MARKERS = [
  // A report's position is its hypothesis and what the results say of it.
  "hypothesis was",
  "hypothesis is",
  "my hypothesis",
  "our hypothesis",
  "i predict",
  "we predict",
  "the results show",
  "the data show",
  "the results suggest",
  "the data suggest",
  "the purpose of this",
  // An academic judgement takes its position without "I": how far, and what matters most.
  "to a large extent",
  "to a great extent",
  "to some extent",
  "to a limited extent",
  "above all",
  "more important than",
  "most important",
  "the main cause",
  "the main reason",
  "the decisive",
  "i argue",
  "i believe",
  "in my opinion",
  "i think",
  "should",
  "must",
  "need to",
  "it is clear",
  // An essay's announced claim ("In this essay I will argue that …"), not its announced subject ("I will talk about
  // what happens") nor a story's future ("I will never forget").
  "i will argue",
  "i will show",
  "i will prove",
  "i will demonstrate",
  "this essay argues",
  "this essay will argue",
  "this essay shows",
  "this essay will show",
  "we should",
  "ought",
  "i contend",
  "i propose",
  "it is essential",
  "it is important",
  "the best",
  "clearly",
];
const REASONING_MARKERS = [
  "because",
  "therefore",
  "thus",
  "since",
  "as a result",
  "consequently",
  "this means",
  "which shows",
  "so that",
  "hence",
  "due to",
  "leads to",
  "led to",
  "this shows",
  "which means",
  "in turn",
  "this is why",
];
const COUNTER_MARKERS = [
  "however",
  "although",
  "some argue",
  "some people",
  "critics",
  "opponents",
  "on the other hand",
  "while some",
  "despite",
  "admittedly",
  "nevertheless",
  "others believe",
  "others argue",
  "counter",
  "it is true that",
  "skeptics",
  "sceptics",
  "some may",
  "some might",
  "one might",
  "even though",
  "granted",
  // An objection named and answered: "The most serious objection is cost", "Coaches worry that …", "These concerns are
  // real, but …".
  "objection",
  "objections",
  "these concerns",
  "this concern",
  "worry that",
  "worries that",
  "it could be argued",
  "to be fair",
];
// What a story lets the reader see, hear, smell, taste and touch: the verbs of the senses and the commonest words for
// what they take in. Set from the senses, not fitted.
const SENSORY_WORDS = (
  "saw see seen heard hear sound sounds smell smells smelled smelt taste tastes tasted touched touch bright dark glowing " +
  "shiny sparkling loud quiet silent whisper whispered crunch crunched splash buzz roar soft rough smooth sticky slimy " +
  "wet hot cold warm icy sweet sour bitter salty burned burning scent stink"
).split(" ");
// A story is told in the past, in a sequence of moments. Common irregular past forms (regular ones end in -ed) against
// the present forms that carry an explanation or an argument; and the phrases that move a story along in time.
const PAST_FORMS = new Set(
  (
    "was were had did went said got came saw made took told thought felt knew found gave left began became brought bought " +
    "kept sat stood ran heard met put read sent spent lost won wrote"
  ).split(" "),
);
const PRESENT_FORMS = new Set("is are am does has can will should must don't doesn't isn't aren't won't can't".split(" "));
const TIME_MARKERS = [
  "one day",
  "that day",
  "the next day",
  "next day",
  "that night",
  "that morning",
  "last year",
  "last summer",
  "last week",
  "ago",
  "then",
  "after",
  "afterwards",
  "later",
  "before",
  "finally",
  "suddenly",
  "at first",
  "at last",
  "once",
  "while",
  "until",
  "soon",
  "when i",
  "when we",
  "when she",
  "when he",
];
const CONCLUSION_HEADING =
  /^[ \t]*(?:#{1,6}[ \t]*)?(?:\d+(?:\.\d+)*\.?[ \t]+)?(?:conclusions?|summary|concluding remarks|(?:discussion|summary) and conclusions?|conclusions? and (?:recommendations|evaluation|discussion))[ \t]*:?[ \t]*\n+[ \t]*\S[^\n]{40,}/im;
const CONCLUSION_MARKERS = ["in conclusion", "to conclude", "in summary", "to sum up", "overall", "ultimately", "in short", "all in all"];

function markerRegex(markers: string[]): RegExp {
  const alternatives = markers.map((m) => m.replace(/[.*+?^${}()|[\]\\]/g, "\\$&").replace(/ /g, "\\s+"));
  return new RegExp(`(?<![\\p{L}\\p{N}])(?:${alternatives.join("|")})(?![\\p{L}\\p{N}])`, "giu");
}
const RE = {
  evidence: markerRegex(EVIDENCE_MARKERS),
  transition: markerRegex(TRANSITIONS),
  stance: markerRegex(STANCE_MARKERS),
  reasoning: markerRegex(REASONING_MARKERS),
  counter: markerRegex(COUNTER_MARKERS),
  conclusion: markerRegex(CONCLUSION_MARKERS),
  time: markerRegex(TIME_MARKERS),
  sensory: markerRegex(SENSORY_WORDS),
};
/** Words said aloud in quotation marks: "Next!", “I didn't think you would jump,” he said. */
const SPOKEN = /["“][^"”\n]{1,300}["”]/g;
const CITATION = /\([A-Z][\p{L}'-]+(?: et al\.?| and [A-Z][\p{L}'-]+)?,? (?:\d{4}|n\.d\.)[a-z]?(?:, p+\. ?\d+)?\)|\[\d{1,3}\]/gu;
const QUOTED = /["“][^"”\n]{8,300}["”]/g;
const FIGURE = /(?<![\p{L}\p{N}])\d+(?:[.,]\d+)*\s*(?:%|percent\b)?/gu;

/** How many times a facet's markers occur in a passage (used to pick evidence for craft criteria). */
export function facetMarkers(facet: Facet, text: string): number {
  const count = (re: RegExp) => text.match(re)?.length ?? 0;
  switch (facet) {
    case "evidence":
      return count(RE.evidence) + count(CITATION) + count(QUOTED) + count(FIGURE);
    case "organisation":
      return count(RE.transition);
    case "language":
    case "mechanics":
      return 0;
    case "argument":
      return count(RE.stance) + count(RE.reasoning);
    case "counter":
      return count(RE.counter);
    case "conclusion":
      return count(RE.conclusion);
    case "narrative":
      return count(RE.time);
    case "dialogue":
      return count(SPOKEN);
    case "sensory":
      return count(RE.sensory);
  }
}

/** The length assumed when the task names none: an essay's, a story's or a letter's. */
const DEFAULT_TARGET_WORDS = 350;
/** A response, an answer or a paragraph is shorter than an essay (a constructed response runs to about 100–250 words). */
const SHORT_FORM_WORDS = 200;
const SHORT_FORM =
  /\b(?:write|give|provide|compose)\s+(?:a|an|one)\s+(?:(?:short|brief|written|constructed|one-paragraph)\s+)*(?:response|answer|paragraph|summary|explanation|reply)\b/i;

/** The length a task implies by the form it asks for ("Write a response that explains …"); null for the usual essay. */
export function formTargetWords(texts: (string | null)[]): number | null {
  return texts.some((t) => t && SHORT_FORM.test(t)) ? SHORT_FORM_WORDS : null;
}

/** The length the task asks for ("at least 500 words", "a 300-word essay"), when it says. */
export function targetWords(texts: (string | null)[]): number | null {
  for (const t of texts) {
    if (!t) continue;
    const m = /(\d{2,5})(?:\s*(?:-|–|to)\s*\d{2,5})?[\s-]*words?\b/i.exec(t);
    if (m) return Math.min(20_000, Math.max(50, Number(m[1])));
  }
  return null;
}

const SENTENCE_END = /[.!?:"”’)]$/;

/**
 * A document's text as paragraphs, one a line, the way TXT and DOCX give it. A PDF's text breaks every line where the
 * page did, so a one-paragraph essay read as twenty "paragraphs" and another as the PDF of its DOCX scored differently.
 * A PDF line goes on to the next unless it ends a sentence with room left for the next line's first word (a
 * paragraph's last line: a wrapped line is only as short as the word that did not fit), or a blank line follows.
 */
export function proseOf(content: { format: string; text: string }): string {
  if (content.format !== "pdf") return content.text;
  const lines = content.text.split("\n").map((l) => l.trim());
  const lengths = lines
    .filter((l) => l.length >= 20)
    .map((l) => l.length)
    .sort((a, b) => a - b);
  const usual = lengths.length ? lengths[Math.floor(lengths.length * 0.75)] : 0;
  const paragraphs: string[] = [];
  let current: string[] = [];
  const end = () => {
    if (current.length) paragraphs.push(current.join(" "));
    current = [];
  };
  for (const [i, line] of lines.entries()) {
    if (line === "") {
      // A blank line in a PDF's text is a page break as often as a paragraph's end: a sentence left open goes on.
      if (!SENTENCE_END.test(current.at(-1) ?? ".")) continue;
      end();
      continue;
    }
    current.push(line);
    const nextWord = lines[i + 1]?.split(" ")[0] ?? "";
    if (SENTENCE_END.test(line) && line.length + 1 + nextWord.length < 0.9 * usual) end();
  }
  end();
  return paragraphs.join("\n");
}

/**
 * Where the writing begins: after the short lines above its first sentence, a student's name, teacher, class and
 * date, and a title ("Maya Torres / Ms. Alvarez / English 8 / 14 October 2026 / Trees for Our City"); 0 when there
 * are none. They are not the writing: their dates counted as figures, their capitals as care and their words as the
 * subject, and five such lines lifted a weak essay from 12 to 26.
 */
export function frontMatterEnd(content: { format: string; text: string }): number {
  // Written work comes as prose documents; a slide's title or a sheet's first row is part of the document.
  if (!PROSE_FORMATS.has(content.format)) return 0;
  const text = content.text;
  let at = 0;
  for (const line of text.split("\n")) {
    if (line.trim() !== "" && !frontLine(line.trim())) break;
    at += line.length + 1;
  }
  // Only when prose follows: a text of short lines is all there is to judge.
  return at > 0 && at < text.length && text.slice(at).split(/\s+/).length >= 50 ? at : 0;
}
const PROSE_FORMATS = new Set(["txt", "md", "docx", "pdf"]);
const frontLine = (line: string) => line.split(/\s+/).length <= 6 && !/[.!?,;:]$/.test(line);

const sat = (x: number, scale: number) => 1 - Math.exp(-Math.max(0, x) / scale);
const clamp01 = (x: number) => Math.min(1, Math.max(0, x));
const distinctMatches = (text: string, re: RegExp) => new Set((text.match(re) ?? []).map((m) => m.toLowerCase().replace(/\s+/g, " "))).size;

/** Signals over all input documents together. */
export function writingSignals(texts: string[], passages: Passage[], target: number | null): WritingSignals {
  const text = texts.join("\n\n");
  const tokens = tokenize(text);
  const words = tokens.length;
  const per100 = Math.max(1, words / 100);

  // Paragraphs: blank-line blocks of some length; DOCX text has one paragraph per line.
  let blocks = text.split(/\n\s*\n/).filter((b) => b.split(/\s+/).length >= 8);
  if (blocks.length <= 1) blocks = text.split("\n").filter((b) => b.split(/\s+/).length >= 8);
  const paragraphs = Math.max(words > 0 ? 1 : 0, blocks.length);
  const prose = passages.filter((p) => /\s/.test(p.text) && p.text.split(/\s+/).length >= 3);
  const sentences = Math.max(1, prose.length);

  const goal = target ?? DEFAULT_TARGET_WORDS;
  const development = clamp01(sat(words, goal / 2) / sat(goal, goal / 2));

  // Evidence: figures, citations, quotations and example/source phrases per 100 words, plus named things.
  const evidenceCount = facetMarkers("evidence", text);
  const properNouns = (text.match(/(?<=[\p{Ll},;:]\s)\p{Lu}[\p{Ll}]{2,}/gu) ?? []).length;
  const reasoning = distinctMatches(text, RE.reasoning);
  // Reasons given ("because…") are support too, if weaker than figures and sources.
  const evidence = 0.75 * sat((evidenceCount + 0.3 * properNouns) / per100, 2.5) + 0.25 * sat(reasoning, 3);

  // Organisation: paragraphing, distinct transitions, a concluding move in the last paragraph.
  const transitions = distinctMatches(text, RE.transition);
  const last = blocks.at(-1) ?? "";
  // A report names its conclusion instead: a "Conclusion" (or "Summary", "Conclusions and recommendations") heading
  // over a paragraph, wherever it stands (an evaluation or the references may follow it).
  const concludes = blocks.length >= 2 && ((last.match(RE.conclusion)?.length ?? 0) > 0 || CONCLUSION_HEADING.test(text));
  // Text with no line break at all (a transcribed or pasted essay) has lost its paragraphing: absence of evidence is
  // not evidence of one block, so only its transitions are judged.
  const paragraphingKnown = text.trim().includes("\n") || words < 120;
  const organisation = paragraphingKnown
    ? clamp01(0.45 * clamp01((paragraphs - 1) / 3) + 0.4 * sat(transitions, 3) + 0.15 * (concludes ? 1 : 0))
    : sat(transitions, 3);

  // Language: sentence length in a readable range, varied vocabulary, longer words, sentences that start with a capital.
  const asl = words / sentences;
  const aslScore = asl < 12 ? clamp01((asl - 4) / 8) : asl > 26 ? clamp01((45 - asl) / 19) : 1;
  // Vocabulary: Guiraud's index (distinct words over the square root of all words), the lexical-richness measure that
  // holds best across text lengths; about 4 for a young or struggling writer's short text, 9 and up for a
  // practised writer's.
  const diversity = clamp01((guiraud(tokens.map((t) => t.word)) - 4) / 5);
  const longShare = tokens.filter((t) => t.word.length >= 7).length / Math.max(1, words);
  const longScore = clamp01((longShare - 0.08) / 0.14);
  const capitalised = prose.filter((p) => /^["'“‘(]?[\p{Lu}\p{N}]/u.test(p.text)).length / Math.max(1, prose.length);
  const lowerI = (text.match(/(?<![\p{L}])i(?![\p{L}'’])/gu) ?? []).length;
  const language = clamp01(0.3 * aslScore + 0.3 * diversity + 0.25 * longScore + 0.15 * capitalised - Math.min(0.2, lowerI * 0.05));
  // Mechanics: spelling above all (the one convention a word list can check), then capitalisation. Set before any
  // measurement, not fitted: no unknown words is full credit, one word in ten unknown is none.
  const spelling = spellingCheck(text);
  const spellingScore = spelling.checked > 0 ? clamp01(1 - spelling.unknown / spelling.checked / 0.1) : 0.5;
  // Punctuation inside sentences: edited English prose carries about one comma per 20 words; a long text with none has
  // run-on or unpunctuated sentences. Set from that rule of thumb, not fitted.
  const commas = (text.match(/,/g) ?? []).length;
  const punctuation = words < 40 ? 0.5 : clamp01(commas / per100 / 5);
  const mechanics = clamp01(0.5 * spellingScore + 0.25 * punctuation + 0.25 * capitalised - Math.min(0.2, lowerI * 0.05));

  // Argument: a stated position and reasons for it; counterargument: opposing views raised.
  const stance = distinctMatches(text, RE.stance);
  // A position stated early (in the first paragraph) is what a thesis is.
  const early = (blocks[0]?.match(RE.stance)?.length ?? 0) > 0 ? 1 : 0;
  const argument = 0.4 * sat(stance, 1.5) + 0.35 * sat(reasoning, 2) + 0.25 * early;
  const counter = sat(distinctMatches(text, RE.counter), 1.5);
  const conclusion = concludes ? 1 : blocks.length >= 3 ? 0.4 : 0.1;
  // Narrative: the share of past forms among past and present ones (0.3 or less is telling about, 0.7 or more is a
  // story told), and moments in sequence (two time phrases per 100 words is a story moving along). Set, not fitted.
  let past = 0;
  let present = 0;
  for (const t of tokens) {
    if (PAST_FORMS.has(t.word) || (t.word.length > 4 && t.word.endsWith("ed"))) past++;
    else if (PRESENT_FORMS.has(t.word)) present++;
  }
  const pastShare = past + present > 0 ? past / (past + present) : 0;
  const moments = facetMarkers("narrative", text);
  const narrative = 0.6 * clamp01((pastShare - 0.3) / 0.4) + 0.4 * sat(moments / per100, 2);
  // Dialogue: lines said aloud (two or three carry a scene); sensory detail: distinct words of the senses (four or so).
  const spoken = facetMarkers("dialogue", text);
  const dialogue = sat(spoken, 1.5);
  const senses = distinctMatches(text, RE.sensory);
  const sensory = sat(senses, 3);

  return {
    words,
    sentences,
    paragraphs,
    development,
    facets: { evidence, organisation, language, mechanics, argument, counter, conclusion, narrative, dialogue, sensory },
    notes: {
      evidence: `${evidenceCount} figures, citations, quotations or example phrases`,
      organisation: `${paragraphs} paragraph${paragraphs === 1 ? "" : "s"}, ${transitions} distinct transitions${concludes ? ", a concluding paragraph" : ""}`,
      language: `average sentence length ${asl.toFixed(0)} words, ${Math.round(longShare * 100)}% long words`,
      mechanics: `${spelling.unknown} of ${spelling.checked} lower-case words not in the English word list${spelling.examples.length ? ` (${spelling.examples.join(", ")})` : ""}`,
      argument: `${stance} position markers, ${reasoning} reasoning markers`,
      counter: `${distinctMatches(text, RE.counter)} markers of opposing views`,
      conclusion: concludes ? "a concluding paragraph" : "no clear concluding paragraph",
      narrative: `${Math.round(pastShare * 100)}% of verbs in the past, ${moments} phrases that move through time`,
      dialogue: `${spoken} line${spoken === 1 ? "" : "s"} in quotation marks`,
      sensory: `${senses} distinct words of the senses`,
    },
  };
}

/**
 * Lower-case words of two letters or more that are not in the word list. Words with a capital (names, acronyms,
 * sentence starts) and with an apostrophe are not checked: a word list cannot tell a name from a misspelling.
 */
function spellingCheck(text: string): { checked: number; unknown: number; examples: string[] } {
  let checked = 0;
  const unknown: string[] = [];
  for (const m of text.matchAll(/(?<![\p{L}\p{N}'’@-])\p{L}+(?![\p{L}\p{N}'’-])/gu)) {
    const w = m[0];
    if (w.length < 2 || w !== w.toLowerCase()) continue;
    checked++;
    if (!isEnglishWord(w)) unknown.push(w);
  }
  return { checked, unknown: unknown.length, examples: [...new Set(unknown)].slice(0, 5) };
}

/** Guiraud's index of lexical richness: distinct words / √words. */
function guiraud(words: string[]): number {
  return words.length === 0 ? 0 : new Set(words).size / Math.sqrt(words.length);
}
