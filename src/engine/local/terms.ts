// Words -> comparable terms for the local evaluator: tokenising, stopwords, British/American folding and Porter stems.
import { memoized } from "../../lib/memoized";
import { porterStem } from "./porter";

// English function words: they say nothing about what a text covers.
const STOPWORDS = new Set(
  (
    "a about above after again against all also am an and any are aren as at be because been before being below between both but by " +
    "can cannot could couldn did didn do does doesn doing don down during each either else etc few for from further had hadn has hasn " +
    "have haven having he her here hers herself him himself his how however i if in into is isn it its itself just let ll me more most " +
    "mustn my myself neither no nor not now of off on once only or other ought our ours ourselves out over own re same shan she should " +
    "shouldn so some such than that the their theirs them themselves then there these they this those through thus to too under until " +
    "up upon us ve very via was wasn we were weren what when where which while who whom whose why will with within without won would " +
    "wouldn yet you your yours yourself yourselves one two three may might must shall also e g eg ie i.e non"
  ).split(/\s+/),
);

// Words a rubric uses to talk about scoring and levels rather than about the subject:
// a criterion's key terms leave them out, or every criterion would "match" every text.
const RUBRIC_WORDS = new Set(
  (
    "score scores scored scoring point points pts mark marks marking marked grade grades graded grading criterion criteria rubric " +
    "level levels band bands descriptor descriptors excellent exemplary outstanding proficient accomplished competent good fair poor " +
    "satisfactory unsatisfactory adequate adequately inadequate inadequately weak strong strongly developing emerging beginning novice " +
    "advanced basic exceeds exceed meets meet partially partial fully full mostly somewhat little limited minimal many several lacks " +
    "lack lacking missing absent clearly effectively appropriately consistently generally frequently occasionally rarely student " +
    "students writer writers author authors essay essays paper papers response responses submission submissions work piece document " +
    "documents demonstrates demonstrate demonstrated shows show shown provides provide provided uses use used using includes include " +
    "included contains contain present presents presented address addresses addressed total weight weighting weighted max maximum " +
    "minimum per every overall well highly high low quality attempt attempts needs need needed requirement requirements expectation " +
    "expectations standard standards may must should evaluate evaluation assess assessment assessed review check checks " +
    "given give makes make made way ways number numbers across either whether throughout able ability reader readers " +
    "state states stated identifies identify identified explains explain explained describes describe described discusses discuss " +
    "discussed gives offers offer offered follows follow following appropriate relevant specific related"
  ).split(/\s+/),
);

// Words of an instruction to a reviewer (the workflow prompt's boilerplate), never topic words.
const INSTRUCTION_WORDS = new Set(
  (
    "evaluate evaluating evaluation assess assessing assessment review reviewing reviewer check checking attached reference " +
    "input inputs document documents file files rubric criteria criterion quote quotes quoted verbatim location locations json " +
    "verdict summary rationale feedback output format return answer task prompt instructions instruction judge judgement " +
    "judgment flag flags flagged person actionable suggestion suggestions improvement priority priorities strengths weakness " +
    "weaknesses next draft write writing exactly written student students teacher teachers experienced meticulous careful " +
    "examiner recruiter lawyer requester goal goals words act acting reviewing giving weights levels stated silent authority " +
    "consistent fair grading grader marker marking first pass pass " +
    // How long and in what style ("500–750 words, two pages, MLA"): the form of the work, not its subject.
    "length page pages mla apa"
  ).split(/\s+/),
);

/** A figure that is not a year: a task's "250–400 words" or "100 marks" says how much, never what about. */
const isCount = (word: string) => /^\p{N}+$/u.test(word) && !/^(?:1[5-9]|20)\d\d$/.test(word);

// Everyday words that say little about a subject: they count for less in a criterion and not at all
// as topic words (a stand-in for corpus frequencies, which an offline evaluator does not have).
const GENERIC_WORDS =
  "like long far find found help helps make makes making made simple simply enough new good great different small large big " +
  "high low next early late important possible real sure better best whole certain easy hard just still even back much " +
  "really always often never sometimes already almost quite rather get gets got go goes going gone know known take takes " +
  "taken see seen come comes think look looks want wants tell ask seem seems feel try leave call called keep begin show " +
  "hear run runs move bring happen put set sets mean means turn start started thing things lot lots kind way part parts " +
  "case cases point fact time times day days year years place end side around away another able instead actually usually " +
  "first last second new old today now yet since around else anything something everything nothing someone everyone " +
  "people person many much lot little less least more most several various number numbers example examples type types " +
  "use used uses using work works worked working need needs needed etc also thus therefore however although";
const GENERIC = new Set(GENERIC_WORDS.split(" "));
const GENERIC_STEMS = new Set<string>();

/** Whether a stem is an everyday word rather than a subject word. */
export function isGenericStem(stem: string): boolean {
  if (GENERIC_STEMS.size === 0) for (const w of GENERIC) GENERIC_STEMS.add(stemWord(w));
  return GENERIC_STEMS.has(stem);
}

const TOKEN = /[\p{L}\p{N}]+(?:['’][\p{L}]+)*/gu;
const OUR_EXCEPTIONS = new Set(["contour", "devour", "detour", "paramour", "troubadour"]);

/** Spelling variants folded before stemming (organise/organize, colour/color, centre/center). */
function foldSpelling(w: string): string {
  let x = w;
  if (x.length > 5 && x.endsWith("our") && !OUR_EXCEPTIONS.has(x)) x = `${x.slice(0, -3)}or`;
  if (x.length > 5 && /our(s|ed|ing|able|ful|ite|ites)$/.test(x) && !OUR_EXCEPTIONS.has(x.replace(/(s|ed|ing|able|ful|ite|ites)$/, ""))) {
    x = x.replace(/our(s|ed|ing|able|ful|ite|ites)$/, "or$1");
  }
  if (x.length > 5) x = x.replace(/is(ation|ations|e|ed|es|ing|er|ers)$/, "iz$1");
  if (x.length > 5 && /[^aeiou]re$/.test(x) && /(ntre|tre|bre)$/.test(x)) x = `${x.slice(0, -2)}er`;
  return x;
}

/**
 * A word's comparable form: lower case, possessive dropped, spelling folded, Porter-stemmed. Remembered by the word as
 * given: most words of a text come again, and the lookup is then all the work.
 */
export const stemWord: (raw: string) => string = memoized((raw: string) => {
  const lower = raw
    .toLowerCase()
    .replace(/['’]s$/, "")
    .replace(/['’]/g, "");
  if (/^\p{N}+$/u.test(lower)) return lower;
  const folded = foldSpelling(lower);
  return apart(folded) ?? porterStem(folded);
}, 50_000);

// Porter joins words of unrelated meaning that rubrics, adverts and checklists use side by side: "Excel" and
// "excellent" (a level name, so an advert's Excel skills went unread), "experiment" and "experience", "organ" and
// "organisation", "community" and "communication", "news" and "new". Each pair is kept apart by its longer stem, and
// "experienced" (Porter's "experienc") goes with "experience".
const APART: [RegExp, string][] = [
  [/^excellen/, "excellen"],
  [/^experim/, "experiment"],
  [/^experienc/, "experi"],
  [/^organi[sz]/, "organiz"],
  [/^organic/, "organic"],
  [/^communic/, "communic"],
  [/^communit/, "communit"],
  [/^generat/, "generat"],
  [/^generic/, "generic"],
  [/^universit/, "universit"],
  [/^authorit/, "authorit"],
  [/^news/, "news"],
  [/^designat/, "designat"],
  [/^animat/, "animat"],
];
function apart(word: string): string | null {
  for (const [start, stem] of APART) if (start.test(word)) return stem;
  return null;
}

export interface Token {
  word: string; // lower-cased surface form
  stem: string;
  start: number;
  end: number;
}

// The last long texts tokenized: an evaluation reads the same input for its counts, its signals and its negated
// words, and tokenizing is most of its cost. Callers only read the tokens.
const longTexts = new Map<string, readonly Token[]>();
const LONG_TEXT = 2_000;

/** Every word of `text` with its offsets (read-only: a long text's tokens are shared between callers). */
export function tokenize(text: string): readonly Token[] {
  if (text.length < LONG_TEXT) return tokensOf(text);
  let tokens = longTexts.get(text);
  if (tokens === undefined) {
    tokens = tokensOf(text);
    if (longTexts.size >= 2) longTexts.delete(longTexts.keys().next().value as string);
    longTexts.set(text, tokens);
  }
  return tokens;
}

function tokensOf(text: string): Token[] {
  const out: Token[] = [];
  for (const m of text.matchAll(TOKEN)) {
    const word = m[0].toLowerCase();
    out.push({ word, stem: stemWord(word), start: m.index, end: m.index + m[0].length });
  }
  return out;
}

/** Whether a (lower-cased) word carries content: not a function word, not a single letter, not a bare short number. */
function isContentWord(word: string): boolean {
  if (word.length < 2 || STOPWORDS.has(word)) return false;
  if (/^\p{N}+$/u.test(word)) return word.length >= 3; // years and figures, not list numbers
  // A rubric's code for an item ("E1", "D2", "A4") says where it stands, not what to look for.
  return !/^[a-z]{1,2}\d{1,2}$/.test(word);
}

/**
 * Abbreviations a CV and a job advert (or a contract, an essay) write for the same thing: "k8s" and "Kubernetes",
 * "AWS" and "Amazon Web Services", "ICU" and "intensive care". An abbreviation counts as its own stem and as the
 * words it stands for, so either side may use either form. Written in capitals here, it must be in capitals in the
 * text too ("ML", not the "ml" of a dose; "AI", "BA").
 */
const ABBREVIATIONS: Record<string, string> = {
  k8s: "kubernetes",
  postgres: "postgresql",
  js: "javascript",
  ts: "typescript",
  golang: "go",
  reactjs: "react",
  nodejs: "node",
  aws: "amazon web services",
  gcp: "google cloud platform",
  ML: "machine learning",
  AI: "artificial intelligence",
  NLP: "natural language processing",
  CI: "continuous integration",
  CD: "continuous delivery deployment",
  SRE: "site reliability engineering",
  QA: "quality assurance",
  UX: "user experience",
  UI: "user interface",
  RN: "registered nurse",
  ICU: "intensive care unit",
  BLS: "basic life support",
  ACLS: "advanced cardiac life support",
  PALS: "paediatric advanced life support",
  CPR: "cardiopulmonary resuscitation",
  EHR: "electronic health records",
  EMR: "electronic medical records",
  BSN: "bachelor science nursing",
  CPA: "certified public accountant",
  GAAP: "generally accepted accounting principles",
  IFRS: "international financial reporting standards",
  AP: "accounts payable",
  AR: "accounts receivable",
  KPI: "key performance indicators",
  KPIs: "key performance indicators",
  ROI: "return on investment",
  SEO: "search engine optimisation",
  PPC: "pay per click",
  CRM: "customer relationship management",
  SFDC: "salesforce",
  B2B: "business to business",
  B2C: "business to consumer",
  GA4: "google analytics",
  HR: "human resources",
  HRIS: "human resources information system",
  PMP: "project management professional",
  // (A degree's letters name a degree: "BSc (Hons) Chemistry" meets "a degree in chemistry".)
  MBA: "master business administration degree",
  bsc: "bachelor science degree",
  msc: "master science degree",
  BA: "bachelor arts degree",
  MA: "master arts degree",
  beng: "bachelor engineering degree",
  meng: "master engineering degree",
  BEd: "bachelor education degree",
  mphil: "master philosophy degree",
  phd: "doctorate doctor philosophy degree",
  LLB: "bachelor laws degree",
  JD: "juris doctor",
  NDA: "non disclosure agreement",
  SLA: "service level agreement",
  GDPR: "general data protection regulation",
  // (Contracts.)
  IP: "intellectual property",
  IPR: "intellectual property rights",
  DPA: "data processing agreement",
  PL: "public liability insurance",
  PI: "professional indemnity insurance",
  EL: "employers liability insurance",
  PTO: "paid time off holiday",
  AST: "assured shorthold tenancy",
  SOW: "statement work",
  hrs: "hours",
  hols: "holidays",
  LDs: "liquidated damages",
  LADs: "liquidated ascertained damages",
};

/**
 * Phrases a contract (or a CV) writes for the thing a checklist names in one word: "trial period" for probation,
 * "hold harmless" for an indemnity, "annual leave" for holiday. A phrase counts as its own words and as the stems of
 * the word it stands for, as an abbreviation does.
 */
const EQUIVALENTS: Record<string, string> = {
  "trial period": "probation",
  "probationary period": "probation",
  "hold harmless": "indemnify",
  harmless: "indemnify",
  "annual leave": "holiday",
  "paid leave": "holiday",
  vacation: "holiday",
  "equitable relief": "injunctive",
  "specific performance": "injunctive",
  "beyond reasonable control": "force majeure",
  "beyond its reasonable control": "force majeure",
  "act of god": "force majeure",
  "option to break": "break",
  "early termination": "break",
  "break option": "break",
  underlet: "sublet",
  "non disclosure": "confidentiality",
  "governed by": "governing law",
  "return or destroy": "return destruction",
  "return or delete": "return destruction",
  "notice to quit": "notice",
};
const EQUIVALENT_BY_FIRST = new Map<string, { words: string[]; stems: string[] }[]>();
for (const [phrase, meaning] of Object.entries(EQUIVALENTS)) {
  const words = phrase.split(" ");
  const list = EQUIVALENT_BY_FIRST.get(words[0]) ?? [];
  list.push({ words, stems: meaning.split(" ").map(stemWord) });
  EQUIVALENT_BY_FIRST.set(words[0], list);
}
const ABBREVIATED = new Map(
  Object.entries(ABBREVIATIONS).map(([abbr, words]) => [
    abbr.toLowerCase(),
    { capitals: abbr !== abbr.toLowerCase() ? abbr : null, stems: words.split(" ").map(stemWord) },
  ]),
);

/**
 * Stems of the words of `text` that `keep` keeps, in order, with repeats; an abbreviation adds the stems of its words,
 * an equivalent phrase those of the word it stands for.
 */
function stemsOf(text: string, keep: (word: string) => boolean): string[] {
  const out: string[] = [];
  const tokens = tokenize(text);
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i];
    const phrases = EQUIVALENT_BY_FIRST.get(t.word);
    if (phrases) for (const p of phrases) if (p.words.every((w, k) => tokens[i + k]?.word === w)) out.push(...p.stems);
    if (!keep(t.word)) continue;
    out.push(t.stem);
    const abbreviation = ABBREVIATED.get(t.word);
    if (abbreviation && (abbreviation.capitals === null || text.slice(t.start, t.end) === abbreviation.capitals)) out.push(...abbreviation.stems);
  }
  return out;
}

/** A thing a requirement names: its stem, or all the words its abbreviation stands for ("AWS": amazon, web, services). */
export interface Name {
  stem: string;
  words: string[] | null;
}

/**
 * The things a text names, written with capitals where a common word would not be: "Python", "Kubernetes", "AWS",
 * "PostgreSQL", "Ohio" (not its first word, which any sentence capitalises, nor scoring words). Examples are not what
 * is named: "(gradient boosting, Prophet)", "such as Jira or Asana".
 */
export function namesOf(given: string): Name[] {
  const text = given.replace(/\([^)]*\)/g, " ").replace(/\b(?:such as|e\.g\.|for example|for instance)[^.;\n]*/gi, " ");
  const names = new Map<string, Name>();
  for (const t of tokenize(text)) {
    const raw = text.slice(t.start, t.end);
    const sentenceStart = /(?:^|[.!?:;•\n-]\s*|\(\s*)$/.test(text.slice(Math.max(0, t.start - 3), t.start)) || t.start === 0;
    const capitals = /\p{Lu}/u.test(raw.slice(1)) || /\d/.test(raw);
    if (!/^\p{Lu}/u.test(raw) || (sentenceStart && !capitals) || !isContentWord(t.word) || RUBRIC_WORDS.has(t.word)) continue;
    const abbreviation = ABBREVIATED.get(t.word);
    names.set(t.stem, { stem: t.stem, words: abbreviation ? abbreviation.stems : null });
  }
  return [...names.values()];
}

/** Whether a document's terms include the name, as itself or as every word it abbreviates. */
export const named = (terms: Map<string, number>, name: Name) => terms.has(name.stem) || (name.words?.every((w) => terms.has(w)) ?? false);

/**
 * Whether a document's terms include the stem or one of its root that Porter leaves apart ("audit" and "auditor",
 * "probat" and "probationari", "indemnif" and "indemn"): the shorter, of five letters or more, opens the longer.
 */
export function namedByRoot(terms: Map<string, number>, stem: string): boolean {
  if (terms.has(stem)) return true;
  for (const t of terms.keys()) if (sameRoot(t, stem)) return true;
  return false;
}

/**
 * Whether two stems are of one root: equal, or the shorter, of five letters or more, opens the longer. (Porter ends
 * "prepay" as "prepai" and leaves "prepayment" "prepay": a last i or y is set aside.)
 */
export function sameRoot(a: string, b: string): boolean {
  if (a === b) return true;
  // (The first five letters decide most pairs at once.)
  if (a.length < 5 || b.length < 5 || a.slice(0, 5) !== b.slice(0, 5)) return false;
  const bare = (s: string) => (s.length >= 6 && (s.endsWith("i") || s.endsWith("y")) ? s.slice(0, -1) : s);
  const [x, y] = [bare(a), bare(b)];
  const [short, long] = x.length < y.length ? [x, y] : [y, x];
  return short === long || long.startsWith(short);
}

/** Stems of the content words of `text`, in order, with repeats. */
export function contentTerms(text: string): string[] {
  return stemsOf(text, isContentWord);
}

/** Stems of the words a criterion is about: content words that are not rubric or scoring vocabulary. */
export function keyTermsOf(text: string): string[] {
  return stemsOf(text, (w) => isContentWord(w) && !RUBRIC_WORDS.has(w));
}

// A criterion's title names its subject ("Work ethic", "Presentation"): only scoring words are left out of it.
const TITLE_NOISE = new Set(
  "score scores point points pts mark marks criterion criteria level levels band weight weighting total max maximum out of per cent percent".split(
    " ",
  ),
);

/** Stems of a criterion title's words, scoring words left out. */
export function titleTermsOf(text: string): string[] {
  return stemsOf(text, (w) => isContentWord(w) && !TITLE_NOISE.has(w));
}

/**
 * Stems of the topic words of an instruction (the workflow prompt): no rubric words, no reviewer instructions, no
 * everyday words, no figures but years. Everyday by the word as written, not its stem: "setting", "kindness" and "feelings" name a subject,
 * though Porter stems them to "set", "kind" and "feel".
 */
export function topicTermsOf(text: string): string[] {
  return stemsOf(text, (w) => isContentWord(w) && !RUBRIC_WORDS.has(w) && !INSTRUCTION_WORDS.has(w) && !GENERIC.has(w) && !isCount(w));
}

// A negating prefix before a word of four letters or more: "impatient", "unfair", "dishonest", "irresponsible".
const NEGATING = /^(?:un|in|im|il|ir|dis|non)(?=\p{L}{4,}$)/u;

/**
 * For each word of the texts that negates another ("impatient"), its stem and its base's stem ("impati" → "patient").
 * A story about being impatient is about patience, but Porter leaves the two no stem in common.
 */
export function negatedBases(texts: string[]): Map<string, string> {
  const bases = new Map<string, string>();
  for (const text of texts) {
    for (const t of tokenize(text)) {
      const prefix = NEGATING.exec(t.word)?.[0];
      if (prefix && isContentWord(t.word)) bases.set(t.stem, stemWord(t.word.slice(prefix.length)));
    }
  }
  return bases;
}

/** term -> count */
export function termCounts(terms: Iterable<string>): Map<string, number> {
  const m = new Map<string, number>();
  for (const t of terms) m.set(t, (m.get(t) ?? 0) + 1);
  return m;
}
