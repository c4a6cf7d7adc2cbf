// A contract's clause stated only to be excluded: "There is no probationary period", "Each party irrevocably waives any
// right to apply for an injunction", "nothing in this Lease shall confer on the Tenant any option to break"; a CV's
// requirement named only to be denied, "I don't yet hold a CIPP qualification". A lexical reader finds the words
// there, as in a clause or a CV that has the thing; these sentences say the opposite.
import { contentTerms, namedByRoot, sameRoot, stemWord, termCounts, tokenize } from "./terms";

/**
 * Sentence shapes that deny a thing exists or applies, and where that thing stands: after the denial ("There is no
 * probationary period", "waives any right to … an injunction") or before it ("Clause 9 shall not apply"). Not
 * prohibitions ("shall not disclose", "may not assign without consent"), which are how many clauses are written, nor
 * carve-outs ("nothing in this Agreement limits liability for death or personal injury"), which every limitation
 * clause carries.
 */
const DENIALS: { re: RegExp; thing: "after" | "before" | "either" }[] = [
  { re: /\bthere (?:is|are|will be|shall be) no\b/i, thing: "after" },
  {
    re: /\bno\s+(?:[\w'’-]+,?\s+){0,8}?(?:is|are|shall be|will be)\s+(?:payable|required|provided|given|due|available|offered|granted|applicable)\b/i,
    thing: "after",
  },
  { re: /\b(?:irrevocably |hereby )?waives?\s+(?:any|all|its|their)\b/i, thing: "after" },
  {
    re: /\bnothing in\b.{0,80}?\b(?:limits?|excludes?|restricts?|confers?|obliges?)\b(?!(?:\s+\S+){0,5}?\s+(?:for|which|that|to the extent|where)\b)/i,
    thing: "after",
  },
  { re: /\b(?:does|do|shall|will) not (?:commit|guarantee|promise|undertake|operate|impose|provide|offer|maintain)\b/i, thing: "after" },
  { re: /\b(?:no|not have any|not be entitled to any) (?:right|option|entitlement) to\b/i, thing: "after" },
  { re: /\bsole (?:and exclusive )?remedy\b/i, thing: "after" },
  { re: /["“]as is["”]|\bas[- ]is,|\bwithout (?:any )?warrant(?:y|ies)\b/i, thing: "after" },
  { re: /\b(?:shall|will|does|do) not apply\b|\bnot applicable\b/i, thing: "before" },
];
/** Denials of a right, where the checklist asks for one ("Prepayment rights"): "shall not be entitled to prepay". */
const RIGHT_DENIED = /\b(?:shall|will|may|is|are) not (?:be )?(?:entitled|permitted|allowed|have the right)\s+to\b|\bmay not\b/i;
/** A checklist item that asks for a right: "Prepayment rights", "Right to terminate", "Entitlement to …". */
const ASKS_RIGHT = /\bright(?:s)?\b|\bentitle/i;

/**
 * A CV's denials of what a requirement names: "I'm not a registered veterinary nurse", "I don't yet hold a CIPP
 * qualification", "I have not yet taught a GCSE maths class".
 */
const CV_DENIALS: typeof DENIALS = [
  {
    re: /(?:\bnot|n['’]t|\bnever)\s+(?:yet\s+|currently\s+)?(?:hold|held|have|had|got|obtained|completed|passed|taught|been|used|worked (?:with|on|in)|a|an)\b/i,
    thing: "after",
  },
  // Not held yet, or no longer: "studying for my CIPD Level 5", "AAT Level 3: in progress, due 2027", "First Aid, 2021
  // (expired August 2024)", "a provisional licence".
  {
    re: /\b(?:studying|working towards|in progress|currently (?:studying|completing|taking)|due (?:to (?:complete|finish) )?(?:in )?(?:\p{L}+ )?20\d\d|expected (?:in )?(?:\p{L}+ )?20\d\d|expired|lapsed|provisional)\b/iu,
    thing: "either",
  },
  {
    re: /\b(?:no|without (?:a|an|any))\s+(?:formal\s+)?(?:licen[cs]e|qualification|certificate|certification|degree|registration)\b/i,
    thing: "after",
  },
];

/**
 * A clause written the other way round from what the checklist asks, by what it asks: a consent or an approval ("no
 * sub-processor without our prior written authorisation") against a permission without one ("may engage
 * sub-processors without the Controller's consent", "at its sole discretion"); an assignment of copyright against the
 * other side keeping it ("The Photographer retains all copyright"); a refund or protected payment against "non-
 * refundable"; payment that must not depend on being paid by someone else against pay-when-paid. (Not a non-exclusive
 * licence: a patent licence grants one to the know-how beside the exclusive one asked for.)
 */
/** `affirms`: a sentence naming the clause that does what is asked ("assigns … all copyright"), so the other is a carve-out. */
const CONTRARY: { asks: RegExp; says: RegExp; unless?: RegExp; affirms?: RegExp }[] = [
  {
    asks: /\b(?:consent|authori[sz](?:ation|e)|approv(?:al|e)|object)\b/i,
    // (A prohibition with its exception is the clause asked for: "No other person may live at the Property without the
    // Landlord's written consent".)
    unless: /\b(?:no|not|never|nobody|none|neither|nor)\b[^.;]*\bwithout\b/i,
    says: /\bmay\b(?![^.;]{0,60}\bnot\b)[^.;]{0,200}?\bwithout\b[^.;]{0,40}?\b(?:consent|authori[sz]ation|approval|notice|agreement)\b|\b(?:at|in) its (?:sole|absolute|own) discretion\b/i,
  },
  {
    asks: /\bassign|\bexclusive\b/i,
    affirms: /\bassigns?\b(?![^.;]{0,40}\bnot\b)|\bhereby assign|\bexclusive,?\s+(?:perpetual|worldwide|irrevocable)/i,
    says: /\bretains?\s+(?:all\s+|the\s+|full\s+|sole\s+)?(?:copyright|ownership|title|intellectual property)\b|\b(?:copyright|ownership|title|intellectual property)\b[^.;]{0,80}\bremains?\s+(?:with|vested in)\b/i,
  },
  { asks: /\brefund|\bescrow\b|\bprotected\b/i, says: /\bnon[- ]?refundable\b/i },
  {
    asks: /\bnot (?:depend|be conditional)\b|\bpay[- ]when[- ]paid\b/i,
    says: /\bonly (?:once|when|after|if)\b[^.;]{0,80}?\b(?:has|have) (?:itself )?been paid\b|\bonly (?:once|when|after|if)\b[^.;]{0,80}?\breceiv(?:es|ed)\b[^.;]{0,20}\bpayment\b|\b(?:on which|when|once)\b[^.;]{0,40}\breceives payment from\b|\bno obligation to pay\b[^.;]{0,100}\bnot paid\b/i,
  },
];

/** What turns a denial into a duty: "shall ensure that there is no slavery in its supply chains". */
const DUTY_BEFORE = /\b(?:ensures?|procures?|warrants?|represents?|undertakes?|confirms?|so)\s+(?:that\s+)?$/i;

const SENTENCE = /[^.!?\n]+(?:[.!?]+|$)/gm;
/** Words a sentence needs to state something: shorter lines are headings ("8. Break clause"). */
const MIN_WORDS = 4;

export interface Sentence {
  text: string;
  counts: Map<string, number>;
}

/** The sentences of the texts that state something (headings left out), with their terms. */
export function sentencesOf(texts: string[]): Sentence[] {
  // (A line that goes on in lower case is the same sentence, hard-wrapped: "… to any person or company" / "on such
  // terms as it thinks fit, without the Author's consent".)
  return texts.flatMap((t) =>
    [...t.replace(/[ \t]*\n[ \t]*(?=\p{Ll})/gu, " ").matchAll(SENTENCE)]
      .map((m) => m[0].trim())
      .filter((s) => s.split(/\s+/).length >= MIN_WORDS)
      .map((text) => ({ text, counts: termCounts(contentTerms(text)) })),
  );
}

/**
 * The sentence that excludes the clause whose subject stems are `subject`, when every sentence naming it denies it;
 * else null. The sentences naming it are those with the most of its subject words, the rarer weighing more: "Service
 * levels (uptime)" is named where "uptime" is, not in every sentence about "the Services"; "Remedies / injunctive
 * relief" where an injunction and relief are, not only a remedy.
 */
export function excludingSentence(
  title: string,
  subject: string[],
  sentences: Sentence[],
  docCounts: Map<string, number>,
  document: "contract" | "cv" = "contract",
  asks = "",
): string | null {
  const present = subject.filter((stem) => namedByRoot(docCounts, stem));
  if (present.length === 0) return null;
  // Each subject word weighs by how rare it is in the document: "uptime" once names the clause more than "Services"
  // throughout it.
  const weight = (stem: string) => 1 / Math.max(1, docCounts.get(stem) ?? 1);
  const coverage = sentences.map((s) => present.reduce((n, stem) => n + (namedByRoot(s.counts, stem) ? weight(stem) : 0), 0));
  const most = Math.max(0, ...coverage);
  if (most === 0) return null;
  const named = sentences.filter((_, i) => coverage[i] >= most - 1e-9);
  // A clause written the other way round: one sentence naming it says so.
  const contrary = document === "contract" ? CONTRARY.filter((c) => c.asks.test(`${title} ${asks}`)) : [];
  const reversed = named.find((s) =>
    contrary.some((c) => c.says.test(s.text) && !c.unless?.test(s.text) && !named.some((o) => c.affirms?.test(o.text))),
  );
  if (reversed) return reversed.text;
  const denials = document === "cv" ? CV_DENIALS : ASKS_RIGHT.test(title) ? [...DENIALS, { re: RIGHT_DENIED, thing: "after" as const }] : DENIALS;
  if (!named.every((s) => denies(s.text, present, denials))) return null;
  return named[0].text;
}

/**
 * A CV's sentence that denies holding what a requirement asks, in the requirement's own words rather than its names:
 * "I do not currently hold a full driving licence" against "Full UK driving licence and access to a car", "Paediatric
 * First Aid (12-hour), 2021 (expired August 2024)". The denied words must be two or more of the requirement's `stems`,
 * and no other sentence may state them all without a denial ("Full UK driving licence" beside "I do not hold an HGV
 * licence"); else null.
 */
export function deniedInWords(stems: string[], sentences: Sentence[]): string | null {
  const denial = (text: string) =>
    CV_DENIALS.map(({ re, thing }) => ({ m: re.exec(text), thing })).find(
      ({ m }) => m && !DUTY_BEFORE.test(text.slice(Math.max(0, m.index - 40), m.index)),
    );
  for (const s of sentences) {
    const found = denial(s.text);
    if (!found?.m) continue;
    // What is denied: the words after the denial to the end of its clause ("…, but I learn new systems quickly"); for a
    // state that may stand either side ("studying", "expired"), the whole sentence.
    const denied = found.thing === "either" ? s.text : (s.text.slice(found.m.index).split(/[,;:]|\bbut\b/i)[0] ?? "");
    const words = tokenize(denied);
    const hit = stems.filter((stem) => words.some((t) => sameRoot(t.stem, stem)));
    if (hit.length < 2) continue;
    const stated = sentences.some((o) => o !== s && hit.every((stem) => namedByRoot(o.counts, stem)) && !denial(o.text));
    if (!stated) return s.text;
  }
  return null;
}

// "no more than 6 penalty points", "at most 2 days": a limit a requirement sets on a count of something.
const LIMIT = /\b(?:no more than|not more than|at most|a maximum of|fewer than|less than)\s+(\d{1,4})\s+((?:[a-z-]+\s+)?[a-z]+)/i;

/**
 * The line stating more of what the requirement limits ("Penalty points | 9 points" against "no more than 6 penalty
 * points"), where the requirement sets such a limit; else null. Lines, not sentences: a CV states it in a table row.
 */
export function overLimit(requirement: string, texts: string[]): string | null {
  const limit = LIMIT.exec(requirement);
  if (!limit) return null;
  const most = Number(limit[1]) - (/fewer|less/i.test(limit[0]) ? 1 : 0);
  // The counted thing's last word, stemmed ("points", "days"): "9 points", "9 penalty points".
  const unit = stemWord(limit[2].split(/\s+/).at(-1) ?? "");
  const stated = /\b(\d{1,4})\s+(?:[a-z-]+\s+)?([a-z]+)\b/gi;
  for (const line of texts.flatMap((t) => t.split("\n"))) {
    for (const m of line.matchAll(stated)) if (Number(m[1]) > most && stemWord(m[2]) === unit) return line.trim();
  }
  return null;
}

// Scales a requirement states a level on, with each level's rank: CEFR language levels ("German at C1") and the
// qualification levels of the UK's frameworks ("CIPD Level 5", "NVQ Level 3").
const LEVEL_SCALES: { re: RegExp; rank: (level: string) => number }[] = [
  { re: /\b([ABC][12])\b/g, rank: (l) => "A1A2B1B2C1C2".indexOf(l) / 2 },
  { re: /\blevel\s*(\d)\b/gi, rank: (l) => Number(l) },
];

/**
 * The line of a CV that states what a requirement names at a lower level than it asks, where no line states it at
 * that level or above: "German: B1 (intermediate)" against "Fluent German (C1 or above)", "CIPD Level 3 Foundation
 * Certificate" against "CIPD Level 5". Lines naming one of the requirement's names (`names`, stems) are compared; else
 * null.
 */
export function belowLevel(requirement: string, names: string[], texts: string[]): string | null {
  const own = names.filter((n) => n !== "level");
  if (own.length === 0) return null;
  for (const { re, rank } of LEVEL_SCALES) {
    const asked = [...requirement.matchAll(re)].map((m) => rank(m[1]));
    if (asked.length === 0) continue;
    const need = Math.min(...asked);
    const lines = texts.flatMap((t) => t.split("\n")).filter((l) => tokenize(l).some((t) => own.some((n) => sameRoot(t.stem, n))));
    const stated = lines.flatMap((line) => [...line.matchAll(re)].map((m) => ({ line, rank: rank(m[1]) })));
    if (stated.length > 0 && stated.every((x) => x.rank < need)) return stated[0].line.trim();
  }
  return null;
}

/** Whether the sentence denies the thing the stems name: a denial with one of them on its side of it. */
function denies(sentence: string, stems: string[], denials: typeof DENIALS): boolean {
  const places = tokenize(sentence)
    .filter((t) => stems.some((stem) => sameRoot(t.stem, stem)))
    .map((t) => t.start);
  return denials.some(({ re, thing }) => {
    const m = re.exec(sentence);
    if (!m || DUTY_BEFORE.test(sentence.slice(Math.max(0, m.index - 40), m.index))) return false;
    return thing === "either" ? places.length > 0 : thing === "after" ? places.some((at) => at >= m.index) : places.some((at) => at < m.index);
  });
}

/**
 * Kinds of contract a checklist is written for and a contract's title names. A contract of another kind shares much
 * of a checklist's vocabulary (a managing agent's agreement speaks of rent, repairs and insurance as a lease does), so
 * its clauses seem met: its title is what tells it apart.
 */
const KINDS: [string, RegExp][] = [
  ["non-disclosure agreement", /\bnon[- ]?disclosure\b|\bconfidentiality (?:agreement|undertaking|deed)\b|\bm?nda\b/i],
  ["employment contract", /\bemployment\b|\bstatement of (?:main )?(?:terms|particulars)\b|\boffer letter\b/i],
  ["lease or tenancy", /\blease\b|\btenancy\b|\bletting\b|\bAST\b/i],
  ["data processing agreement", /\bdata processing\b|\bprocessing addendum\b|\bDPA\b/i],
  ["loan or facility agreement", /\bloan\b|\bfacility agreement\b|\bcredit agreement\b/i],
  ["guarantee", /\bguarantee\b|\bguaranty\b/i],
  ["franchise agreement", /\bfranchis/i],
  ["distribution agreement", /\bdistribut(?:ion|or)\b/i],
  ["sponsorship agreement", /\bsponsorship\b/i],
  ["hire agreement", /\bhire agreement\b|\bequipment hire\b|\brental agreement\b/i],
  ["management agreement", /\b(?:property|asset|facilities) management\b/i],
  ["recruitment terms", /\brecruitment\b|\bintroduction of (?:permanent )?candidates\b/i],
  ["licence", /\blicen[cs]e\b|\bEULA\b/i],
  [
    "services or supply agreement",
    /\bservices? agreement\b|\bMSA\b|\bsupply\b|\bsupplier\b|\bsubscription\b|\bSaaS\b|\bsoftware[- ]as[- ]a[- ]service\b|\border form\b|\bstatement of works?\b|\bSOW\b|\bconsult|\bcontractor\b/i,
  ],
  ["privacy notice or website terms", /\bprivacy\b|\bterms of use\b|\bcookies?\b/i],
  ["building contract", /\bbuilding\b|\bworks\b|\bconstruction\b|\bJCT\b/i],
  ["photography commission", /\bphotograph/i],
  // Documents that come before a contract, or beside it: an application, a booking form, non-binding terms.
  ["application or booking form", /\bapplication (?:to rent|form|for)\b|\bbooking form\b|\baccount application\b/i],
  ["heads of terms", /\bheads of terms\b|\bterm sheet\b|\bletter of intent\b|\bmemorandum of understanding\b|\bapproval in principle\b/i],
];

/**
 * A document's title: its first line with words, heading marks and emphasis left out, and the next when it goes on
 * with the title (a short line without a stop, a figure or a label: "Consultancy and Independent Contractor" /
 * "Agreements – Contract Review Checklist", not "Date: 12 February 2025").
 */
function titleOf(text: string): string {
  const [first = "", next = ""] = text
    .split("\n")
    .map((l) => l.replace(/^#{1,6}\s*|\*\*|__/g, "").trim())
    .filter((l) => /\p{L}{2}/u.test(l))
    .slice(0, 2);
  const goesOn = next.split(/\s+/).length <= 8 && !/[\d:;]|\.$/.test(next);
  return (goesOn && next ? `${first} ${next}` : first).slice(0, 200);
}

const kindsOf = (title: string) => KINDS.filter(([, re]) => re.test(title)).map(([kind]) => kind);

/**
 * The kind of contract the checklist is for and the other kind the inputs' titles name instead: a "Commercial Lease
 * Review Checklist" against a "PROPERTY MANAGEMENT AGREEMENT". Null when an input's title names the checklist's kind
 * (a lease with its schedules), or no title names a kind.
 */
export function otherKind(checklists: string[], inputs: string[]): { asked: string; found: string; title: string } | null {
  const asked = new Set(checklists.flatMap((t) => kindsOf(titleOf(t))));
  if (asked.size === 0) return null;
  const titles = inputs.map(titleOf);
  const found = titles.map(kindsOf);
  if (found.some((kinds) => kinds.some((k) => asked.has(k)))) return null;
  const i = found.findIndex((kinds) => kinds.length > 0);
  return i < 0 ? null : { asked: [...asked][0], found: found[i][0], title: titles[i] };
}
