// The words a rubric is written in, shared by the readers of its shapes (criteria.ts: headings, lists, point lines;
// rubric-tables.ts: tables): its lines, the points a line states, the names of levels, the headings that organise a
// rubric rather than name a criterion, and a candidate criterion as a reader finds it.

export interface Level {
  value: number;
  descriptor: string;
}

export type Line =
  | { kind: "heading"; level: number; text: string }
  | { kind: "item"; indent: number; text: string; open?: boolean; numbered?: boolean }
  | { kind: "row"; cells: string[] }
  | { kind: "text"; text: string }
  | { kind: "blank" };

/** A short line that names what follows, as a heading would: at most six words, capitalised, no closing stop. */
export const titleLike = (text: string) => /^\p{Lu}/u.test(text) && !/[.,;:!?]$/.test(text) && text.split(/\s+/).length <= 6;

// ---------------------------------------------------------------------------
// Points

const NUM = String.raw`(\d{1,4}(?:\.\d+)?)`;
const UNIT = String.raw`(?:points?|pts?\.?|marks?|%|percent)`;
// Each pattern's last capture group is the maximum.
const POINT_PATTERNS: RegExp[] = [
  new RegExp(
    String.raw`[(\[]\s*(?:max(?:imum)?\.?\s*|up to\s*|worth\s*|weight(?:ing)?\s*:?\s*|0\s*[-–]\s*)?${NUM}\s*${UNIT}?\s*(?:total)?\s*[)\]]`,
    "i",
  ),
  new RegExp(String.raw`\b${NUM}\s*[-–]\s*${NUM}\s*${UNIT}`, "i"),
  new RegExp(String.raw`(?:^|[\s:–—-])${NUM}\s*${UNIT}(?![\p{L}])`, "iu"),
  new RegExp(String.raw`(?:out of|max(?:imum)?(?: of)?|worth|weight(?:ing)?\s*:?)\s*${NUM}\s*${UNIT}?`, "i"),
  new RegExp(String.raw`(?:^|\s)/\s*${NUM}\b`, "i"),
  // Leader dots to a number at the line's end, as a printed scoring sheet sets them: "Organization ........ 25".
  new RegExp(String.raw`(?:\s*\.){3,}\s*${NUM}\s*${UNIT}?\s*$`, "i"),
];

/** The maximum points a line states ("(20 points)", "— 10 marks", "20%", "/10", "0-4 pts"), and the line without them (untidied). */
export function parsePoints(text: string): { points: number | null; rest: string } {
  for (const re of POINT_PATTERNS) {
    const m = re.exec(text);
    if (!m) continue;
    const value = Number(m[m.length - 1]);
    if (!Number.isFinite(value) || value <= 0 || value > 1000) continue;
    // A share of something a sentence goes on to name is no weight: "plus a 5% shift allowance", "6% matched pension"
    // (but "30% of the mark", "20% weighting").
    const after = text.slice(m.index + m[0].length);
    if (/(?:%|percent)\s*$/i.test(m[0]) && /^\s+\p{Ll}/u.test(after) && !/^\s+(?:of|weight|weighting|weighted)\b/i.test(after)) continue;
    const rest = `${text.slice(0, m.index)} ${text.slice(m.index + m[0].length)}`.replace(/\s+/g, " ").trim();
    return { points: value, rest };
  }
  return { points: null, rest: text };
}

// A level's cell that opens with its points: "10 points: five sources", "7 pts – three sources", "18-20 pts: …" (worth
// the top of its band).
// Blackboard's level cell: "Points Range: 9 (22.5%) - 10 (25%) Identifies all key problems", worth the top of its range.
export const POINTS_RANGE = /^\s*points?\s+range:\s*\d+(?:\.\d+)?\s*(?:\([^)]*\))?\s*[-–]\s*(\d+(?:\.\d+)?)/i;
export const LEADING_POINTS = /^\s*(?:\d{1,3}\s*[-–]\s*)?(\d{1,3}(?:\.\d+)?)\s*(?:(?:points?|pts?|marks?)\b\s*[:\-–—.)]?|:\s)/i;

/** A table cell that is only a number of points ("20", "20 pts", "15%", "/20" for a mark to be written in). */
export function cellPoints(cell: string): number | null {
  const m = new RegExp(String.raw`^\s*(?:\/\s*|\d{1,4}(?:\.\d+)?\s*[-–]\s*)?${NUM}\s*${UNIT}?\s*$`, "i").exec(cell.replace(/\*/g, ""));
  if (!m) return null;
  const v = Number(m[1]);
  return v > 0 && v <= 1000 ? v : null;
}

export function tidyTitle(s: string): string {
  return s
    .replace(/\*\*|__|`/g, "")
    .replace(/^\s*(?:\[\s?[xX✓✔]?\s?\]|[☐☑☒□])\s*/, "") // a box to tick before the item: "[ ] 1. FOCUS"
    .replace(
      /^\s*(?:criterion|criteria|category|dimension|competency|competence|trait|domain|part|section|question|q)\s*(?:\d+|[A-Z](?![a-z]))?\s*[:.)\-–—]\s*/i,
      "",
    )
    .replace(/^\s*(?:\d{1,2}(?:\.\d{1,2})*[.)]?|[A-Z][.)]|[ivxIVX]{1,4}[.)])\s+/, "")
    .replace(/\s*[:\-–—|,;]+\s*$/, "")
    .replace(/\s*(?:\.\s*){3,}$|\s*…+$/, "") // leader dots: "Thesis statement ........ 10 pts"
    .replace(/^\s*[:\-–—|,;]+\s*/, "")
    .replace(/[,;]\s*\)/g, ")") // "(levels of response, )" once its marks are taken out
    .replace(/\(\s*\)|\[\s*\]|\(\s*(?:yes|y)\s*\/\s*(?:no|n)\s*\)/gi, "") // "(Yes/No)": how a checklist is answered
    .replace(/\s+/g, " ")
    .trim();
}

export interface Candidate {
  title: string;
  description: string;
  points: number | null;
  levels?: Level[];
  /**
   * The criterion's weight in the overall score, where the rubric gives one apart from its scale ("Weight 30%" beside
   * "Score (1–5)"). While no scale is known the weight is its points too.
   */
  weight?: number;
  /** A list item that is one level of a scale ("- Excellent (4): …", "- 1 point: …"), not a criterion of its own. */
  level?: boolean;
  optional?: boolean;
}

export interface CandidateSet {
  kind: "table" | "heading" | "pointline" | "list";
  items: Candidate[];
  /** Set when the items are the levels of one holistic scale (found under this heading). */
  scaleTitle?: string;
  /**
   * A table of a course's grade components ("Component | Weight": essays 40 %, quizzes 20 %) or of its grade bands
   * ("Distinction | 75–84%"), not a rubric's criteria when a rubric stands beside it.
   */
  breakdown?: boolean;
  /** A job advert's requirement lists: its criteria, before its section headings. */
  requirements?: boolean;
}

/**
 * What a mark scheme tells its markers beside its criteria, as a heading or an item of its own: "Indicative content",
 * "Notes for markers", "What your mark means", "Grade boundaries".
 */
const MARKERS_NOTES =
  "indicative (?:content|answers?)|notes? (?:for|to) (?:markers|examiners)|(?:markers?|examiners?)['’]? notes|what (?:your|the|a) (?:mark|score|grade|result)s? means?|(?:grade|mark) boundar(?:y|ies)";
// ("Indicative content (not a checklist: credit any relevant point)": what its brackets add is no part of the name.)
export const markersNotes = (title: string) => new RegExp(`^(?:${MARKERS_NOTES})$`, "i").test(headingName(title).replace(/\s+\([^()]*\)?$/u, ""));
// Headings that organise a rubric rather than name a criterion.
export const META_HEADING = new RegExp(
  String.raw`^(?:overview|introduction to (?:the )?rubric|instructions?|how to use(?: this| the)? (?:checklist|rubric|guide|form)|directions|notes?|total(?: score| points)?|scoring(?: guide)?|grading(?: scale| guide)?|rubric|marking (?:scheme|guide|rubric)|criteria|assessment criteria|(?:table of )?contents|summary|purpose|background|references|appendix|fact sheet|submission(?: guidelines| instructions)?|format(?:ting)?(?: requirements)?|deadline|due date|levels?|performance levels|scale|key|legend|flag.*|output|what to check.*|check|checklist|decision(?: rules?| criteria| guide)?|outcomes?(?: rules?)?|pass(?:ing)? (?:rules?|marks?)|grade (?:breakdown|distribution|weighting)|(?:course )?grading breakdown|assessment (?:breakdown|weighting)|what we offer|benefits|perks|about (?:us|the (?:role|company|team))|how to apply|compensation|salary(?: and benefits)?|how to use(?: it| this| the)?(?: \w+)?|escalations?(?: notes?| rules?| route)?|what you(?:['’]ll| will) get|what we(?:['’]ll| will) give you|in return|rewards?|working for us)$|^(?:${MARKERS_NOTES})$`,
  "i",
);
/** A label over the reviewer's own notes ("Review record", "Reviewer notes"): what to do, not what to find. */
export const REVIEW_NOTES =
  /^(?:review(?:er)?(?:['’]?s)? (?:record|notes?|guidance)|notes? (?:for|to) (?:the )?reviewers?|guidance (?:for|to) reviewers?|how to review)$/i;
/**
 * Sections of a job advert or a person specification that list what a candidate must (or may) bring, and of a
 * contract checklist what a contract must (or may) contain ("Required clauses", "MUST INCLUDE", "Should have"): each
 * item is a criterion. Bare "Skills" or "Experience" are left out: a rubric names its criteria so too.
 */
export const REQUIREMENT_SECTION =
  /^(?:the (?:items|standards|requirements|checklist)|(?:checklist )?items)$|^(?:(?:key|essential|minimum|basic|required|preferred|desired|desirable|additional|core|technical)\s+)?(?:requirements|qualifications|skills (?:and|&) (?:experience|qualifications)|experience (?:and|&) (?:skills|qualifications))$|^(?:essential|desirable|required|preferred)\s+criteria$|^(?:requirements (?:and|&) qualifications|must[- ]haves?|nice[- ]to[- ]haves?|should[- ]haves?|essential|desirable|preferred|required|mandatory|optional|recommended|(?:if|where) (?:applicable|relevant)|must (?:include|contain|have)|should (?:include|contain|have)|(?:required|mandatory|essential|optional|recommended|desirable|preferred)\s+(?:clauses|provisions|terms|items|elements|requirements|points)|(?:what )?you(?:['’]ll| will) (?:need|bring)|good to have|great to have|(?:it(?:['’]s| is| would be| will be) )?(?:a )?(?:bonus|plus|great|nice|an advantage) if you (?:have|had|also have)|what we(?:['’]re| are) looking for|who you are|about you|you (?:have|bring|will have)|bonus points|person specification|the ideal candidate(?: will have)?)$/i;
/** Sections that list requirements only in a job advert (beside its JOB_SECTION headings): a rubric's "Skills" is a criterion. */
export const ADVERT_REQUIREMENT_SECTION =
  /^(?:(?:technical|key|core|required|essential)\s+)?(?:skills|experience|education(?: and experience)?|certifications?|licen[cs]es?)$|^what you need$/i;
/** Of those, the sections whose items a candidate may lack ("Nice to have", "Desirable", "Preferred qualifications"). */
export const OPTIONAL_SECTION =
  /(?:nice|good|great)[- ]to[- ]have|bonus|preferred|desir|great if|nice if|a plus|advantage|optional|recommended|(?:if|where) (?:applicable|relevant)|should[- ]have|should (?:include|contain)/i;
/** The other sections of a job advert: beside one of them, a lone "Requirements" list is the advert's, not a brief's. */
export const JOB_SECTION =
  /^(?:(?:key |main )?(?:responsibilities|duties)|what you(?:['’]ll| will) do|(?:the|your) (?:role|job)|(?:pay|salary) and (?:benefits|conditions)|about (?:us|the (?:role|company|team|job))|benefits|perks|what we offer|what you(?:['’]ll| will) get|what we(?:['’]ll| will) give you|in return|rewards?|working for us|how to apply|compensation|salary(?: and benefits)?|job (?:description|summary|purpose|details)|what the (?:job|role) involves)$/i;
/**
 * A job advert's key facts, each a label beside its value ("Salary | £36,500", "Closing date | 12 January 2027"), and an
 * assignment brief's ("Assessor | Mr L. Ashworth", "Issue date | …", "Learning aims covered | …").
 */
export const JOB_FACT =
  /^(?:start|travel|shifts?|overtime|pension|holidays?|annual leave|benefits?|perks|assessment(?: title| type| number| task)?|word (?:limit|count)|length|referencing(?: style)?|case study|confidentiality|academic (?:integrity|misconduct)|late (?:work|submissions?|penalt(?:y|ies))|extensions?|how it is marked|assessor|internal verifier|issue date|date issued|hand[- ]in (?:date|deadline)|submission (?:date|deadline)|deadline|learning (?:aims?|outcomes?)(?: covered)?|unit(?: title| number)?|qualification|programme|course|module(?: code| leader| title)?|tutor|lecturer|learner(?: name)?|salary|pay|rate of pay|wage|hours|working (?:hours|pattern)|contract(?: type)?|job type|location|base|closing date|interviews?|interview date|start date|job title|post(?: title| reference)?|(?:job |vacancy )?ref(?:erence)?(?: no\.?| number)?|directorate|service|department|team|division|grade|band|responsible to|reports? to|line manager|dbs(?: level| check)?|duration|term|employer|organisation|sector|vacancies|number of posts)$/i;
// "Overall" alone or as "Overall score" sums the rubric; "Overall impression" or "Overall quality" is a criterion.
// ("Total cost of ownership" is a criterion: "total" names the sum only alone or with what it sums.)
export const TOTAL_ROW =
  /^(?:(?:(?:grand\s+)?total|sum|overall)(?:\s+(?:score|total|points?|marks?|grade|rating|result|possible|available|earned|awarded|weighted))*(?!\s*\p{L})|weighted (?:total|score)|final (?:score|grade|result)|(?:result|outcome)(?!\s*\p{L}))/iu;
const TASK_WORD = String.raw`(?:the\s+)?(?:writing\s+|essay\s+)?(?:prompt|task|assignment|question|topic)`;
/** A heading (or "Task:" line) that states the assignment: the work's task, never a criterion of it. */
export const TASK_HEADING = new RegExp(String.raw`^\s*(?:#{1,6}\s*)?${TASK_WORD}\s*:?\s*$`, "i");
/** "Prompt: Write about …": the label on the task's own line (a bold label in a DOCX). */
export const TASK_LABEL = new RegExp(String.raw`^\s*(?:\*\*|__)?${TASK_WORD}\s*:\s*(?:\*\*|__)?\s*(?=\S)`, "i");
/** "How the essay is scored": notes on scoring (raters, sums), not a criterion. */
const SCORING_NOTE = /^how\b.*\b(?:scored|graded|marked|assessed|evaluated|rated)\b/i;
/** Headings that organise a rubric or state its task: neither they nor the lists under them are criteria. */
export const organising = (title: string) => {
  const name = headingName(title);
  return META_HEADING.test(name) || TASK_HEADING.test(title) || SCORING_NOTE.test(name) || REVIEW_NOTES.test(name);
};
/** A heading without the count or total after its name, which says how much, not what ("Checklist (7 clauses)"), nor a "The" before it ("The checklist"). */
export const headingName = (title: string) =>
  title
    .trim()
    .replace(/\s*\(\s*\d+\s*\p{L}*\s*\)$/u, "")
    .replace(/^the\s+(?=\p{L})/iu, "");

// Words that name a level of a scale rather than a criterion, from best to worst: the order tells which way a scale
// named only in words runs.
const LEVEL_WORDS = [
  "exemplary",
  "exceptional",
  "outstanding",
  "excellent",
  // The grade words of French, German and Spanish marking, at their English places ("Très bien" … "Insuffisant").
  "tr[eè]s bien",
  "sehr gut",
  "sobresaliente",
  // Polish school grades, 6 down to 1 ("celujący" … "niedostateczny").
  "celuj[aą]cy",
  "bardzo dobry",
  "distinguished",
  "exceeds(?: expectations| standards?)?",
  "advanced",
  "accomplished",
  "strong",
  "high",
  "proficient",
  "very good",
  "good",
  "bien",
  "gut",
  "dobry",
  "meets(?: expectations| standards?)?",
  "met",
  // A survey's agreement scale, strongest first ("Neutral tone" is a criterion, "Neutral" a level).
  "strongly agree",
  "agree(?![ \\t]+[a-z])",
  "satisfactory",
  "assez bien",
  "befriedigend",
  "dostateczny",
  "competent",
  "capable",
  "adequate",
  "passable",
  "ausreichend",
  "suficiente",
  "dopuszczaj[aą]cy",
  "medium",
  "fair",
  "developing",
  "approaching",
  "emerging",
  "partially meets(?: expectations)?",
  "partially met",
  "partly meets(?: expectations)?",
  "partly met",
  "neutral(?![ \\t]+[a-z])",
  "neither agree nor disagree",
  "basic",
  "limited",
  "needs improvement",
  "needs work",
  "incomplete",
  "beginning",
  "novice",
  "below(?: basic| expectations| standards?)?",
  "low",
  "weak",
  "poor",
  "inadequate",
  "insuffisant",
  "mangelhaft",
  "insuficiente",
  "niedostateczny",
  "unsatisfactory",
  "does not meet(?: expectations| standards?)?",
  "disagree(?![ \\t]+[a-z])",
  "strongly disagree",
  "not (?:yet )?(?:evident|met|demonstrated)",
  "missing",
  "absent",
  "none",
];
const LEVEL_WORD_RES = LEVEL_WORDS.map((w) => new RegExp(`^(?:${w})\\b`, "i"));
/** A level cell opening with its name and points: "Strong (5) ● Arguable", "Developing (3): clear but broad". */
export const NAMED_POINTS = new RegExp(String.raw`^\s*(?:${LEVEL_WORDS.join("|")})\s*\((\d{1,3})(?:\s*(?:points?|pts?|marks?))?\)`, "i");
// A level's title: "Level 3", "3", "3 points - …", "Excellent", "4 Excellent", "4 (Excellent)", "B+".
const LEVEL_TITLE = new RegExp(
  String.raw`^(?:(?:level|score|band|grade|tier|rating|score point)\s*\d+(?:\.\d+)?\b|\d+(?:\.\d+)?(?:\s*(?:points?|pts?|marks?))?(?:\s*[-–:—].*)?$|(?:\d+(?:\.\d+)?\s*\(?\s*)?(?:${LEVEL_WORDS.join("|")})\b|[A-F][+-]?(?:\s*[-–:—(].*)?$)`,
  "i",
);

/** Where a level's name stands from best (0) to worst; null when it names no known level. */
export function levelWordRank(title: string): number | null {
  const rank = LEVEL_WORD_RES.findIndex((re) => re.test(title.trim()));
  return rank < 0 ? null : rank;
}

export function isLevelTitle(title: string): boolean {
  return LEVEL_TITLE.test(title.trim());
}

/** "Thesis: states a claim", "Thesis — states a claim", "Is it dated? …": a short name before its description. */
export function namedFirst(raw: string): { title: string; description: string } | null {
  // "Criterion A: Argument — …": the label before the name is not the name.
  const text = raw.replace(/^(?:criterion|part|section|question|task)\s+[A-Z0-9]{1,3}\s*[:.)\-–—]\s*/i, "");
  // (Not a colon between figures: "BS 7671:2018", "8:45".)
  const sep = /\s*(?::(?!\d)|\s[-–—]\s|\?)\s*/.exec(text);
  const head = sep ? text.slice(0, sep.index) : "";
  if (!sep || head.length === 0 || head.length > 70 || head.split(/\s+/).length > 8) return null;
  // A question is its own description.
  return { title: head, description: sep[0].includes("?") ? text : text.slice(sep.index).replace(/^\s*[:\-–—]\s*/, "") };
}

/** A short name closed by a stop, its description going on after it on the same line. */
const RUN_IN_NAME = /^(\p{Lu}[^.!?]{2,60})\.\s+\p{Lu}/u;

/**
 * "The particular claims being settled. The agreement must identify …", "1. Claim. States a clear …": a short first
 * sentence names the item (its name was bold where the text came from); null when the first sentence is no name.
 */
export function runInName(text: string): { title: string; description: string } | null {
  // (The item's code before its name: "1.", "A4)", or "A1" alone, as a checklist's lettered items have it.)
  const rest = text.replace(/^(?:(?:\d{1,2}|[A-Z]{1,2}\d{1,2})[.)]|[A-Z]{1,2}\d{1,2})\s+(?=\p{Lu})/u, "");
  const lead = RUN_IN_NAME.exec(rest);
  if (!lead || lead[1].split(/\s+/).length > 8) return null;
  return { title: lead[1], description: rest.slice(lead[1].length + 1).trim() };
}

/** The title of a holistic scale whose rubric names none. */
export const HOLISTIC_TITLE = "Overall quality";
