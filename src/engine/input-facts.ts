// What the input states, for the fields of a workflow's own output schema (schema-fill.ts): the person it is by or
// about, contacts, every date with where it stands, "Label: value" lines, and the organisations that are its parties.

import { sameRoot } from "./local/terms";

export interface Party {
  name: string;
  /** Its defined role, lower-case ("provider" for `(the "Provider")`); null when the input defines none. */
  role: string | null;
}

export interface Label {
  /** The label's lower-case words ("teacher", "available from"). */
  words: string[];
  value: string;
  /** The party named earlier in the same paragraph: a signature block's "Name:" is that party's signatory. */
  party: Party | null;
}

interface DateMention {
  iso: string;
  at: number;
  end: number;
}

// A heading made of these names a document, not its author ("SERVICES AGREEMENT", "Curriculum Vitae").
const DOCUMENT_WORDS =
  /^(?:agreement|contract|lease|report|essay|letter|policy|statement|application|curriculum|vitae|resume|résumé|cv|memo|memorandum|proposal|invoice|notice|deed|terms|conditions|minutes|assignment|coursework|homework|thesis|dissertation|summary|plan|form|certificate|schedule|addendum|amendment|appendix|order|quotation|licence|license|declaration|transcript|services?|master|general|mutual|non-disclosure|nda|employment|tenancy|supply|purchase|framework|confidentiality|review|draft)$/i;

// Words of a date field's name that say nothing of which date it is.
const DATE_NOISE =
  /^(?:date|dates|day|time|datetime|timestamp|on|at|of|the|a|an|in|to|for|by|from|if|is|was|when|which|as|and|or|its|this|that|yyyy|mm|dd|iso|format|known|stated|any|value|field)$/;

// Labels that name the person a document is by or about.
const SUBJECT_LABELS = new Set([
  "name",
  "full name",
  "student",
  "student name",
  "candidate",
  "candidate name",
  "applicant",
  "applicant name",
  "author",
  "pupil",
  "learner",
  "employee",
  "employee name",
  // French, German, Spanish
  "étudiant",
  "étudiante",
  "etudiant",
  "etudiante",
  "élève",
  "nom",
  "candidat",
  "schüler",
  "schülerin",
  "bewerber",
  "bewerberin",
  "alumno",
  "alumna",
  "estudiante",
  "nombre",
  "candidato",
  "candidata",
  // Polish, Swedish, Portuguese
  "uczeń",
  "uczen",
  "uczennica",
  "imię i nazwisko",
  "kandydat",
  "namn",
  "aluno",
  "aluna",
  // Dutch, Italian
  "naam",
  "kandidaat",
  "sollicitant",
  "leerling",
  "nome",
  "studente",
  "studentessa",
  "allievo",
]);

const MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"];
const MONTH =
  "january|february|march|april|may|june|july|august|september|october|november|december|sept|jan|feb|mar|apr|jun|jul|aug|sep|oct|nov|dec";
const DATE = new RegExp(
  String.raw`\b(\d{4})-(\d{2})-(\d{2})\b|\b(?:(\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?)?(${MONTH})\.?\s+(?:(\d{1,2})(?:st|nd|rd|th)?,?\s+)?(\d{4})\b`,
  "gi",
);

// "Kestrel Data Services Ltd", "Bank of Scotland plc", "Smith & Jones LLP": capitalised words before a company form.
// (In capitals too, as a contract's parties block writes them: "QUILLON SYSTEMS LIMITED".)
const COMPANY_FORM = String.raw`CIC|C\.I\.C\.|CIO|Ltd\.?|LTD\.?|Limited|LIMITED|INC\.?|INCORPORATED|CORP\.?|CORPORATION|LLC|L\.L\.C\.|LLP|Inc\.?|Incorporated|plc|PLC|GmbH|AG|Corp\.?|Corporation|S\.A\.|B\.V\.|BV|N\.V\.|Pty\.? Ltd\.?|S\.r\.l\.|SAS|SARL|S\.p\.A\.|SpA`;
const COMPANY = new RegExp(
  String.raw`(?<![\p{L}\d])((?:\(?[\p{Lu}][\p{L}\d&'’.-]*\)?[ \t]+(?:(?:&|and|of|for|de|du|der|van|von)[ \t]+)?){1,6})(${COMPANY_FORM})(?![\p{L}\d])`,
  "gu",
);
const FORM_WORD = new RegExp(`^(?:${COMPANY_FORM})$`);
const BEFORE_NAME = /^(?:the|this|that|between|with|by|from|each|any|both|either|signed|dated|party|parties|is|are|made|agreement|behalf)$/i;
const NOT_IN_NAME = /^(?:the|this|that|between|and|with|by|for|from|to|of|each|any|both|either|signed|dated|party|parties)$/i;
// `(the "Provider")`, `(hereinafter the "Supplier")`: the role the document gives a party.
// (Bold inside the quotes, `(the "**Recipient**")`, is spaces by then: see organisations.)
const ROLE = /\(\s*(?:hereinafter\s+(?:referred\s+to\s+as\s+|called\s+)?)?(?:the\s+)?["“”'‘]\s*([\p{Lu}][\p{L} -]{1,30}?)\s*["“”'’]\s*\)/u;

export class InputFacts {
  /** The person the input is by or about ("Name: …", or a first line that is a name). */
  readonly name: string | null;
  readonly email: string | null;
  readonly phone: string | null;
  readonly years: number | null;
  readonly labels: Label[];
  /** Organisations with a defined role, in order (all the organisations named, when none has one). */
  readonly parties: Party[];
  private readonly dates: DateMention[];
  private readonly paragraphs: number[];

  constructor(private readonly text: string) {
    this.email = /[\w.+-]+@[\w-]+(?:\.[\w-]+)+/.exec(text)?.[0] ?? null;
    const years = /\b(\d{1,2})\+?\s*(?:years?|yrs?)\b(?:\s+of)?(?:\s+\w+){0,3}\s+experience/i.exec(text);
    this.years = years ? Number(years[1]) : null;
    this.paragraphs = [0, ...[...text.matchAll(/\n[ \t]*\n/g)].map((m) => m.index + m[0].length)];
    this.dates = [...text.matchAll(DATE)].flatMap((m) => {
      const iso = isoOf(m);
      return iso ? [{ iso, at: m.index, end: m.index + m[0].length }] : [];
    });
    const { parties, mentions } = organisations(text);
    this.parties = parties;
    this.labels = this.readLabels(mentions);
    // A "Phone:" line is read whole; elsewhere, the first run of digits shaped like a number.
    const labelled = this.label([(l) => /^(?:phone|telephone|mobile|tel)$/.test(l.words.join(" "))], null);
    // (Whole numbers only: "07700 900123", a UK mobile, is five digits then six, not "7700 9001".)
    const phone = /(?<![\d+])(?:\+\d{1,3}[\s-]?)?(?:\(\d{2,5}\)[\s-]?)?\d{2,5}[\s-]\d{3,6}(?:[\s-]\d{2,4})?(?!\d)/;
    this.phone = labelled && /^[+\d()][\d ()+.-]{6,24}$/.test(labelled) ? labelled : (phone.exec(text)?.[0]?.trim() ?? null);
    this.name = this.subject();
  }

  /** The first date the input states, as ISO. */
  private get firstDate(): string | null {
    return this.dates[0]?.iso ?? null;
  }

  /**
   * The date a field means, given its words (its own name's, then its description's): the one those words stand
   * near ("takes effect on 1 April 2026" for `effective_date`), else the "Date:" line (in `party`'s block when given),
   * else the first date of the input.
   */
  dateFor(groups: string[][], party: Party | null): string | null {
    // "Date", "the", a document's name ("the agreement was signed"): no clue to which date.
    const kinds = groups.map((g) => g.filter((w) => w.length > 1 && !DATE_NOISE.test(w) && !DOCUMENT_WORDS.test(w))).filter((g) => g.length > 0);
    const dated = this.label([(l) => l.words.join(" ") === "date"], party);
    return this.dateLabelled(kinds, party) ?? this.dateNear(kinds) ?? (dated !== null ? isoDate(dated) : null) ?? this.firstDate;
  }

  /**
   * The date of a "Label: value" line whose label shares a word with the first group that has one ("Available to start:
   * 3 August 2026" for `available_from`): a labelled date beats one a sentence mentions near the word ("a course
   * starting 14 September 2026").
   */
  private dateLabelled(groups: string[][], party: Party | null): string | null {
    for (const group of groups) {
      const stems = aliased(group);
      // (A plain "Date:" label names no kind of date: it is the fallback, after the words' own dates.)
      const value = this.label(
        [(l) => l.words.some((w) => !DATE_NOISE.test(w) && stems.some((s) => sameRoot(s, stem(w)))) && isoDate(l.value) !== null],
        party,
      );
      if (value !== null) return isoDate(value);
    }
    return null;
  }

  /**
   * The date nearest a word of the first group that has one near a date (in the same paragraph, within 200
   * characters): "takes effect on 1 April 2026" for ["effect"]. Words match by stem (signed, signature, signing).
   */
  private dateNear(groups: string[][]): string | null {
    // "Date" itself says nothing of which date ("the Effective Date", "Date: …").
    const tokens = [...this.text.matchAll(/\p{L}+/gu)]
      .filter((m) => !/^dates?$/i.test(m[0]))
      .map((m) => ({ stem: stem(m[0]), at: m.index, end: m.index + m[0].length }));
    for (const group of groups) {
      const stems = new Set(aliased(group));
      let best: { iso: string; gap: number } | null = null;
      for (const t of tokens) {
        if (![...stems].some((s) => sameRoot(s, t.stem))) continue;
        for (const d of this.dates) {
          const gap = d.at >= t.end ? d.at - t.end : t.at - d.end;
          if (gap < 0 || gap > 200 || this.paragraphOf(d.at) !== this.paragraphOf(t.at)) continue;
          if (!best || gap < best.gap) best = { iso: d.iso, gap };
        }
      }
      if (best) return best.iso;
    }
    return null;
  }

  /**
   * The value of the first "Label: value" line the first test that any passes accepts; within `party`'s paragraphs
   * when one is given, else outside every party's.
   */
  label(tests: ((l: Label) => boolean)[], party: Party | null): string | null {
    const here = this.labels.filter((l) => l.party === party);
    for (const test of tests) {
      const hit = here.find(test);
      if (hit) return hit.value;
    }
    return null;
  }

  /**
   * An identifier the input states for one of `words` ("student ID 40318826", "Candidate number: 0457", "Ref. no.
   * QH-2291"): the nearest one after a word of the field, else the only one the input states; null when none.
   */
  identifier(words: string[]): string | null {
    const ids = [...this.text.matchAll(IDENTIFIER)].map((m) => ({ value: m[2], by: m[1]?.toLowerCase() ?? null }));
    return ids.find((x) => x.by !== null && words.includes(x.by))?.value ?? (ids.length === 1 ? ids[0].value : null);
  }

  /** The party whose defined role is `word` ("provider"), or one of its kind ("supplier" for a "consultant"). */
  partyCalled(word: string): Party | null {
    return this.parties.find((p) => p.role === word) ?? this.parties.find((p) => p.role !== null && sameRole(word, p.role)) ?? null;
  }

  /**
   * The name of `who` (a word such as "teacher", "student"; null when the field says nothing of whose): a party's
   * person or a signatory is the "Name:" line in that party's block (the first party's with one, when none is given);
   * someone else than the input's own person (a teacher, a reviewer) the line labelled so, or none; else the person
   * the input is by or about.
   */
  personName(who: string | null, party: Party | null, signer: boolean): string | null {
    if (party || signer) {
      const block = party ?? this.parties.find((p) => this.labels.some((l) => l.party === p)) ?? null;
      return this.label([(l) => l.words.join(" ") === "name", (l) => l.words.join(" ") === "full name"], block);
    }
    const named = who !== null ? this.label([(l) => l.words.includes(who), (l) => isMarker(who) && l.words.some(isMarker)], null) : null;
    return named !== null || (who !== null && !SUBJECT.test(who)) ? named : this.name;
  }

  private paragraphOf(at: number): number {
    let lo = 0;
    let hi = this.paragraphs.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.paragraphs[mid] <= at) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  /** "Teacher: Ms. Karen Doyle": a label of one to three words at a line's start and a short value. */
  private readLabels(mentions: { party: Party; at: number }[]): Label[] {
    const labels: Label[] = [];
    let at = 0;
    for (const raw of this.text.split("\n")) {
      const line = raw.replace(/\*\*|__|\r$/g, "");
      // "Name: …", a table's row of two cells, "| Candidate name | Eilidh Marchetti |" (a cover sheet), or a contract's
      // definition, '"Commencement Date" means 1 April 2026.'
      const m =
        /^[ \t>]*(?:[-*•][ \t]+)?([\p{L}][\p{L}'’.]*(?:[ \t]+[\p{L}][\p{L}'’.]*){0,2})[ \t]*:[ \t]+(\S.{0,79})$/u.exec(line) ??
        /^[ \t]*\|?[ \t]*([\p{L}][\p{L}'’.]*(?:[ \t]+[\p{L}][\p{L}'’.]*){0,2})[ \t]*\|[ \t]*([^|\s][^|]{0,79}?)[ \t]*\|?[ \t]*$/u.exec(line) ??
        /^[ \t>]*(?:[-*•][ \t]+)?["“]([\p{L}][\p{L}'’.]*(?:[ \t]+[\p{L}][\p{L}'’.]*){0,2})["”][ \t]+(?:means|shall mean)[ \t]+(\S.{0,79}?)[.;]?$/u.exec(
          line,
        );
      if (m) {
        // The party named earlier in its paragraph, or in the short paragraphs just above it ("Signed for and on behalf
        // of X", then "Signature: …", "Name: …", "Title: …", "Date: …", each a paragraph of its own): up to five back.
        const paragraph = this.paragraphOf(at);
        let above = paragraph;
        while (above > 0 && paragraph - above < 5 && this.paragraphs[above] - this.paragraphs[above - 1] <= 200) above--;
        const owner =
          mentions.filter((x) => x.at < at && this.paragraphOf(x.at) >= above && this.paragraphOf(x.at) <= paragraph).at(-1)?.party ?? null;
        const words = m[1].toLowerCase().replace(/\./g, "").split(/\s+/);
        const value = m[2].trim().replace(/[;,]$/, "").trim();
        if (value) labels.push({ words, value, party: owner });
      }
      at += raw.length + 1;
    }
    return labels;
  }

  private subject(): string | null {
    const looksLikeName = (s: string) => /^[\p{Lu}][\p{L}'’.-]*(?:[ \t]+[\p{Lu}][\p{L}'’.-]*){0,4}$/u.test(s) && !/\d|@/.test(s);
    // ("Student: Rowan Achterberg (student ID 40318826)": the name, not what the line adds in brackets.)
    const labelled = this.label([(l) => SUBJECT_LABELS.has(l.words.join(" "))], null)?.replace(/\s*\([^)]*\)$/, "");
    if (labelled && looksLikeName(labelled)) return labelled;
    // A CV or letter opens with its author's name on a line of its own; a document's heading is not one.
    const first = this.text
      .split("\n")
      .map((l) => l.replace(/^#+\s*|\*\*|__/g, "").trim())
      .find((l) => l.length > 0);
    // ("Hannah Kowalczyk, RN (Adult)", "Jane Doe | Data Analyst", "Jane Doe, PhD": the name before its letters or role.)
    const before = first?.split(/\s*(?:,|\s[|–—-]\s)\s*/) ?? [];
    const head = before.length > 1 && before.slice(1).join(" ").split(/\s+/).length <= 6 ? before[0] : first;
    const words = head?.split(/\s+/) ?? [];
    // ("MARISOL ACHEAMPONG-REYES", a CV's heading in capitals, is written "Marisol Acheampong-Reyes".)
    const written = (s: string) => (/\p{Ll}/u.test(s) ? s : s.toLowerCase().replace(/(^|[\s'’-])(\p{Ll})/gu, (_, b, c) => b + c.toUpperCase()));
    if (head && /^[\p{Lu}][\p{L}'’-]+(?:\s+[\p{Lu}][\p{L}'’.-]+){1,3}$/u.test(head) && !words.some((w) => DOCUMENT_WORDS.test(w)))
      return written(head);
    // "Essay by Priya Nair, student name: Priya Nair" within a line (one at a line's start is a label, read above).
    const inline =
      /(?<=\S[^\S\n]*)\b(?:name|candidate|applicant|student|author)[ \t]*:[ \t]*([\p{Lu}][\p{L}'’-]+(?:[ \t]+[\p{Lu}][\p{L}'’.-]+){1,3})/iu.exec(
        this.text,
      );
    return inline && looksLikeName(inline[1]) ? inline[1] : null;
  }
}

/** The ISO date a text such as "14 March 2026" or "2026-03-14" states; null when it states none. */
function isoDate(text: string): string | null {
  for (const m of text.matchAll(DATE)) {
    const iso = isoOf(m);
    if (iso) return iso;
  }
  return null;
}

function isoOf(m: RegExpMatchArray): string | null {
  const [y, month, day] = m[1]
    ? [Number(m[1]), Number(m[2]), Number(m[3])]
    : [Number(m[7]), MONTHS.indexOf(m[5].slice(0, 3).toLowerCase()) + 1, Number(m[4] ?? m[6] ?? 1)];
  if (month < 1 || month > 12 || day < 1 || day > new Date(Date.UTC(y, month, 0)).getUTCDate()) return null;
  return `${y}-${String(month).padStart(2, "0")}-${String(day).padStart(2, "0")}`;
}

const FORM_IN_CAPITALS = new Set(["LLC", "LLP", "PLC", "AG", "SA", "BV", "NV", "SAS", "SARL", "GMBH", "SPA", "CIC", "CIO"]);
/** A name written in capitals ("QUILLON SYSTEMS LIMITED") as a name is written ("Quillon Systems Limited"). */
function asWritten(words: string[]): string {
  if (words.some((w) => /\p{Ll}/u.test(w))) return words.join(" ");
  // ("(WEXMOOR)", a place in brackets in the name, is "(Wexmoor)".)
  return words
    .map((w) =>
      FORM_IN_CAPITALS.has(w.replace(/\./g, "")) ? w : w.replace(/^(\(?.)(.*)$/su, (_, head: string, rest: string) => head + rest.toLowerCase()),
    )
    .join(" ");
}

/** Organisations named in the text (a name ending in Ltd, LLC, GmbH …), each with the role the text defines for it. */
function organisations(text: string): { parties: Party[]; mentions: { party: Party; at: number }[] } {
  // Bold markers become spaces, so that positions stay those of the text.
  const plain = text.replace(/\*\*|__/g, "  ");
  const found: { name: string; at: number; end: number }[] = [];
  for (const m of plain.matchAll(COMPANY)) {
    // "Alder & Finch Consulting LLP and Brightwater Foods plc" is two companies, each ending in its form.
    const all = `${m[1]}${m[2]}`.trim().split(/[ \t]+/);
    const ends = [...all.keys()].filter((k) => k === all.length - 1 || FORM_WORD.test(all[k]));
    let from = 0;
    for (const last of ends) {
      const words = all.slice(from, last + 1);
      from = last + 1;
      // (In a sentence in capitals every word is capitalised: "THIS AGREEMENT IS MADE BETWEEN ACME LIMITED" names "ACME
      // LIMITED", the words after the last that no name has.)
      // ("THE CORN EXCHANGE HALLS (WEXMOOR) LTD" in capitals from its first word: "The" is part of the name.)
      const named = (w: string, k: number) => k === 0 && w === "THE" && m.index === plain.lastIndexOf("THE", m.index + 3);
      const cut = words.findLastIndex((w, k) => k < words.length - 1 && BEFORE_NAME.test(w) && !named(w, k));
      if (cut >= 0) words.splice(0, cut + 1);
      while (words.length > 1 && NOT_IN_NAME.test(words[0]) && !named(words[0], 0)) words.shift();
      const at = m.index + Math.max(0, m[0].indexOf(words[0] ?? ""));
      const end = from === all.length ? m.index + m[0].length : m.index + m[0].indexOf(words.at(-1) ?? "") + (words.at(-1)?.length ?? 0);
      if (words.length > 1) found.push({ name: asWritten(words), at, end });
    }
  }
  const byName = new Map<string, Party>();
  const mentions = found.map((f, i) => {
    const key = f.name.toLowerCase().replace(/\.$/, "");
    const party = byName.get(key) ?? { name: f.name, role: null };
    byName.set(key, party);
    // Its role stands after the name, before the next organisation or the paragraph's end.
    const stop = Math.min(found[i + 1]?.at ?? plain.length, f.end + 400);
    const after = plain.slice(f.end, stop).split(/\n[ \t]*\n/)[0];
    party.role ??= ROLE.exec(after)?.[1].trim().toLowerCase() ?? null;
    return { party, at: f.at };
  });
  const all = [...byName.values()];
  const defined = all.filter((p) => p.role !== null);
  return { parties: defined.length > 0 ? defined : all, mentions };
}

// "student ID 40318826", "Candidate No.: 0457", "reference number QH-2291": an identifier (with a digit) after its name.
const IDENTIFIER =
  /\b(?:([A-Za-z]+)[ \t]+)?(?:ID|Id|id|[Nn]umber|[Nn]o\.|[Rr]ef\.?)(?:[ \t]+(?:no\.|number))?[ \t]*[:#]?[ \t]*((?=[A-Z0-9/-]*\d)[A-Z0-9][A-Z0-9/-]{3,19})\b/g;

// Whose name is the input's own person (the student, the candidate), not someone else's (a teacher, a reviewer).
const SUBJECT =
  /^(?:student|pupil|learner|candidate|applicant|author|writer|employee|person|individual|contact|user|member|participant|trainee|intern|interviewee)$/;
/** Words for whoever marks the work: a "marker" field takes the "Module tutor:" line. */
const MARKER = /^(?:marker|tutor|teacher|lecturer|instructor|assessor|examiner|grader|supervisor|professor|convenor|convener)$/;
export const isMarker = (word: string) => MARKER.test(word);
// Roles that name the same side of an agreement.
const ROLES = [
  ["provider", "supplier", "vendor", "contractor", "seller", "consultant", "licensor", "lessor", "landlord", "agency", "owner", "venue"],
  ["client", "customer", "buyer", "purchaser", "licensee", "lessee", "tenant", "hirer"],
  // A non-disclosure agreement's sides.
  ["discloser", "disclosing"],
  ["recipient", "receiving", "receiver"],
];

/** A word naming a side of an agreement (client, supplier …), not just any organisation. */
export const isRole = (word: string) => ROLES.some((group) => group.includes(word));

/** Whether role word `a` names role `b` ("provider" and "service provider"; "supplier" and "consultant"). */
export function sameRole(a: string, b: string): boolean {
  const x = a.replace(/s$/, "");
  const ys = b.split(" ").map((y) => y.replace(/s$/, ""));
  return ys.includes(x) || ROLES.some((group) => group.includes(x) && group.some((r) => ys.includes(r)));
}

// Words that name the same moment: an agreement executed is signed, one that commences starts.
const ALIASES: Record<string, string[]> = {
  execut: ["sign"],
  sign: ["execut"],
  commenc: ["start", "effect"],
  start: ["commenc", "begin"],
  dob: ["born", "birth"],
  birth: ["born"],
  // "Date handed in" is the date submitted.
  submit: ["hand"],
  hand: ["submit"],
};

/** The words' stems and the stems of the words that say the same of a date ("executed" for "signed"). */
const aliased = (words: string[]) =>
  words.flatMap((w) => [stem(w), ...Object.entries(ALIASES).flatMap(([key, also]) => (sameRoot(key, stem(w)) ? also : []))]);

/** "signed", "signature", "signing" → "sign"; "effective" → "effect"; "submitted" → "submit". */
function stem(word: string): string {
  let s = word.toLowerCase().replace(/['’]s$/, "");
  s = s.replace(/(?:ations?|ature|ings?|ives?|ions?|ed|es|s|e|y)$/, "");
  return /([^aeiou])\1$/.test(s) ? s.slice(0, -1) : s;
}
