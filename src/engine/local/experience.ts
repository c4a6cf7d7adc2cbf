// Years of work: those a requirement asks for ("5+ years of Python") and those a CV shows ("Jan 2019 – Present").

const NUMBER_WORDS: Record<string, number> = {
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
  twelve: 12,
  fifteen: 15,
  twenty: 20,
};
const COUNT = String.raw`(\d{1,2}|${Object.keys(NUMBER_WORDS).join("|")})`;
// "5+ years", "at least 3 years", "minimum of two years", "3-5 years" (the lower bound), "10 yrs".
// ("12 months' experience" is a year.)
const YEARS = new RegExp(String.raw`\b${COUNT}\s*(?:\+|plus\b|or more\b)?\s*(?:(?:-|–|to)\s*\d{1,2}\s*)?\+?\s*(years?|yrs?|months?)\b`, "i");
/**
 * A number of years is one of experience when the text speaks of work ("of ICU experience", "post-qualification") or
 * the years are spent doing something ("3+ years supervising a team"); not "within 2 years of joining".
 */
const OF_WORK =
  /\bexperience|\bexperienced\b|\bpost[- ]qualification\b|\bin (?:a|an|the) (?:similar |related )?(?:role|position)\b|\bworking\b|\bpractice\b/i;
const DOING = /^['’]?\s*(?:of\s+)?(?:[\w-]+\s+)?[\w-]+ing\b/i;
const NOT_TENURE = /\b(?:within|after|every|in|for the (?:first|next))\s*$/i;

// "8 years of SQL experience", "Seven years' experience".
const STATED = new RegExp(String.raw`${YEARS.source}['’]?(?:\s+of)?(?:\s+[\w-]+){0,3}?\s+experience\b`, "gi");

const countOf = (word: string) => NUMBER_WORDS[word.toLowerCase()] ?? Number(word);

/** The years of experience a rubric criterion asks for, by its title and description; null when it names none. */
export const yearsAskedBy = (c: { title: string; description: string }) => yearsAsked(`${c.title} ${c.description}`);

/** The years of experience a requirement asks for, or null when it names none. */
export function yearsAsked(text: string): number | null {
  const m = YEARS.exec(text);
  if (!m || NOT_TENURE.test(text.slice(0, m.index)) || !(OF_WORK.test(text) || DOING.test(text.slice(m.index + m[0].length)))) return null;
  const n = countOf(m[1]) / (/^month/i.test(m[2]) ? 12 : 1);
  return n > 0 && n <= 40 ? n : null;
}

/**
 * The roles a requirement's years must be spent in, each as written ("HR adviser"; "IT service desk", "first-line
 * support role"): the words after "experience as / in / on" or "driving", up to where the phrase turns to where or how
 * ("… in a generalist role", "…, advising line managers"); empty when it names none ("5 years of Python").
 */
function rolesAsked(text: string): string[] {
  const m = YEARS.exec(text);
  if (!m) return [];
  const rest = text.slice(m.index + m[0].length);
  const role =
    /^['’]?s?\s*(?:(?:paid|post[- ]qualifying|post[- ]qualification|relevant|professional|practical|full[- ]time)\s+)*(?:experience\s+)?(?:(?:as|in|on|within|working as|working in)\s+(?:an?\s+|the\s+)?|(?=[a-z]+ing\b))([^,;.()]+)/i.exec(
      rest,
    );
  if (!role) return [];
  return role[1]
    .split(/\s+or\s+(?:in\s+|on\s+|as\s+)?(?:an?\s+|the\s+)?/i)
    .map((r) => r.split(/\s+(?:in|at|on|within|for|with|including|across|where|who|since|after|before|while|during|when)\s+/i)[0].trim())
    .filter(Boolean);
}

const MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"];
const MONTH = String.raw`(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sept?(?:ember)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?`;
const YEAR = String.raw`(?:19[5-9]\d|20\d\d)`;
// "Jan 2019", "Mar '18", "03/2016", "09.2016", "2019-03", "2019".
const DATE = String.raw`(?:${MONTH}\s+(?:${YEAR}|['’]\d\d)|\d{1,2}[/.]${YEAR}|${YEAR}[-/]\d{1,2}(?!\d)|${YEAR})`;
const ONGOING = "(?:present|current(?:ly)?|now|today|to date|date|ongoing)";
const ONGOING_ALONE = new RegExp(`^${ONGOING}$`, "i");
// "Jan 2019 – Present", "2015-2018", "June 2021 to current"; "since March 2020" runs to today.
// (Not what one holds since a date: "licence held since 1996", "member since 2012".)
const RANGE = new RegExp(
  String.raw`(?:(${DATE})\s*(?:–|—|-|to|until|till)\s*(${DATE}|${ONGOING})|(?<!\b(?:held|issued|obtained|registered|licensed|qualified|member|chartered)\s+)\bsince\s+(${DATE}))\b`,
  "gi",
);

/** A date as a count of months, and whether it names its month (a bare year counts from its January). */
function monthOf(text: string, current: number): { months: number; month: boolean } | null {
  const t = text.toLowerCase().trim();
  // (A year in two digits is of this century unless that would be after this year: "Mar '18", "Sep '98".)
  const short = /['’](\d\d)$/.exec(t);
  const century = short && 2000 + Number(short[1]) > Math.floor(current / 12) ? 1900 : 2000;
  const year = short ? century + Number(short[1]) : Number(/(?:19|20)\d\d/.exec(t)?.[0]);
  if (!year) return null;
  const named = MONTHS.findIndex((m) => t.startsWith(m));
  if (named >= 0) return { months: year * 12 + named, month: true };
  const numeric = /^(\d{1,2})[/.]\d{4}$/.exec(t) ?? /^\d{4}[-/](\d{1,2})$/.exec(t);
  if (numeric && Number(numeric[1]) >= 1 && Number(numeric[1]) <= 12) return { months: year * 12 + Number(numeric[1]) - 1, month: true };
  return { months: year * 12, month: false };
}

// A CV's sections that are not work: their dates are study, awards or volunteering, not experience. (Either half of a
// bilingual heading, "Ausbildung / Education", names it.)
const NOT_WORK_HEADING =
  /^(?:#{1,6}\s*)?(?:\*\*|__)?(?:education|academic|qualifications?|certifications?|(?:driving\s+)?licen[cs]es?|training|courses?|degrees?|schooling|publications?|interests|hobbies|references|languages|volunteer(?:ing)?|community|fellowships?|awards?|honou?rs|grants|scholarships)\b/i;
// "Experience", "Research experience", "Work history", "Employment", "Positions held".
const WORK_HEADING = /\b(?:experience|employment|history|career|positions?(?: held)?|roles?|appointments?)\s*:?(?:\*\*|__)?$/i;
/** A line of a work history that is no work: "Career break — Jun 2020 – Mar 2022". */
const NO_WORK = /\b(?:career break|sabbatical|(?:parental|maternity|paternity) leave|gap year|travell?ing)\b/i;
/** Where a CV has no section headings: a line naming a degree or a school is study. */
const STUDY = /\b(?:university|college|school|academy|bachelor|master|b\.?sc|m\.?sc|b\.?a\b|m\.?a\b|mba|ph\.?d|degree|diploma|graduat)/i;
const headingLike = (line: string) => line.trim().split(/\s+/).length <= 5 && !/[.,;]\s*$/.test(line.trim());
const notWorkHeading = (line: string) =>
  headingLike(line) &&
  line
    .trim()
    .split(/\s*[/|]\s*/)
    .some((part) => NOT_WORK_HEADING.test(part));
const workHeading = (line: string) => headingLike(line) && WORK_HEADING.test(line.trim());

export interface YearsShown {
  years: number;
  /**
   * "dates": summed from the dated roles; "stated": as the CV says ("8 years of experience"), more than its dates;
   * "role": summed from the dated roles of the kind a requirement names ("as an HR adviser").
   */
  from: "dates" | "stated" | "role";
}

/**
 * The years of work a CV shows: its dated roles outside its education (overlapping roles counted once, "Present" up
 * to `now`), or the years it states, whichever is more. Null when it shows neither. With `inRole`, only the roles
 * whose lines it accepts (the range's line, the line above and the line below: a role's title and its first duty),
 * and no years stated in words; null when none is accepted.
 */
export function yearsShown(text: string, now: Date, inRole?: (context: string) => boolean): YearsShown | null {
  const current = now.getUTCFullYear() * 12 + now.getUTCMonth();
  const lines = text.split("\n");
  const sectioned = lines.some((l) => notWorkHeading(l) || workHeading(l));
  const spans: [number, number][] = [];
  let work = true;
  // A "Career break" heading's dates may sit on the line below it.
  let breakAbove = false;
  for (const [i, line] of lines.entries()) {
    const t = line.trim();
    if (notWorkHeading(t)) work = false;
    else if (workHeading(t)) work = true;
    const ranges = [...t.matchAll(RANGE)];
    const breakLine = NO_WORK.test(t);
    const noWork = breakLine || (breakAbove && ranges.length > 0);
    if (t) breakAbove = breakLine && ranges.length === 0;
    // (A long line is a table's cells run together, a two-column CV's: there the study is judged near each range.)
    const long = t.length > 200;
    if (!work || (!sectioned && !long && STUDY.test(t)) || noWork) continue;
    for (const m of ranges) {
      if (!sectioned && long && STUDY.test(t.slice(Math.max(0, (m.index ?? 0) - 80), m.index))) continue;
      if (inRole) {
        // (A title may stand two lines above its dates: "Social Worker, Child Protection and" / "Court Team" / "Lowmoor
        // City Council · June 2015 – Present".)
        const above = lines
          .slice(0, i)
          .filter((l) => l.trim() !== "")
          .slice(-2);
        // (The line below is the role's title where its dates come first, "03/2019 - present" / "HGV Class 2 Driver, …",
        // or its first duty, "First-opinion small animal practice"; not the next role's title, over dates of its own.)
        const next = lines.findIndex((l, k) => k > i && l.trim() !== "");
        const below = next < 0 || new RegExp(RANGE.source, "i").test(lines[next + 1] ?? "") ? "" : lines[next];
        const own = long ? t.slice(Math.max(0, (m.index ?? 0) - 80), (m.index ?? 0) + m[0].length + 80) : t;
        if (!inRole(long ? own : [...above, own, below].join("\n"))) continue;
      }
      const start = monthOf(m[1] ?? m[3], current);
      const ongoing = m[3] !== undefined || ONGOING_ALONE.test(m[2].trim());
      const end = ongoing ? { months: current, month: true } : monthOf(m[2], current);
      if (!start || !end) continue;
      // "Jan 2019 – Dec 2020" is 24 months, both months counted; "2015 – 2018" is three years.
      const last = end.months + (end.month && start.month ? 1 : 0);
      if (last > start.months && last <= current + 1) spans.push([start.months, last]);
    }
  }
  spans.sort((a, b) => a[0] - b[0]);
  let months = 0;
  let reach = -1;
  for (const [from, to] of spans) {
    const start = Math.max(from, reach);
    if (to > start) months += to - start;
    reach = Math.max(reach, to);
  }
  const dated = months / 12;
  if (inRole) return dated > 0 ? { years: Math.round(dated * 10) / 10, from: "role" } : null;
  const stated = Math.max(0, ...[...text.matchAll(STATED)].map((m) => countOf(m[1]) / (/^month/i.test(m[2]) ? 12 : 1)));
  if (dated === 0 && stated === 0) return null;
  return stated > dated ? { years: stated, from: "stated" } : { years: Math.round(dated * 10) / 10, from: "dates" };
}

/** Words of a role that name no kind of work or only qualify it: "a similar role", "registered", "category C". */
const ROLE_GENERIC =
  /^(?:role|position|post|job|setting|environment|experience|work|similar|relevant|related|paid|full|time|capacity|team|organisation|company|busy|category|registered|statutory|qualified|professional|first|line)$/;
/** A word's root for comparing job titles: "driving" and "driver", "analysis" and "analyst", "buses" and "bus". */
const roleRoot = (word: string) => {
  const w = word.toLowerCase().replace(/['’]s$/, "");
  const cut = w.replace(/(?:ysis|yst|ists?|ing|ers?|ed|es|s)$/, "");
  return (cut.length >= 3 ? cut : w).slice(0, 5);
};
// (Two capitals are a role's word too: "UX", "HR", "IT".)
const roleWords = (text: string) =>
  (text.match(/\p{L}+/gu) ?? []).filter((w) => (w.length > 2 || /^\p{Lu}{2}$/u.test(w)) && !ROLE_GENERIC.test(w.toLowerCase()));

/**
 * The years a CV shows in the roles a requirement names ("2 years' experience as an HR adviser"): those of its dated
 * roles whose lines (the role's title above or beside its dates) name the role's head word, where it has one or two
 * words, or all but one of three or more; none (0) when it has dated roles but none of them is one; null when the
 * requirement names no role or the CV dates no role (then its words, and the years it states, judge it).
 */
function roleYears(c: { title: string; description: string }, text: string, now: Date, all: YearsShown | null): YearsShown | null {
  // (The description, where it says it: a long requirement's title is its first words, "at least 2 years' experience as a team".)
  const asked = rolesAsked(c.description);
  const roles = (asked.length > 0 ? asked : rolesAsked(c.title))
    .map((r) => [...new Map(roleWords(r).map((w) => [roleRoot(w), /^\p{Lu}{3,5}$/u.test(w)] as const)).entries()])
    .filter((words) => words.length > 0);
  if (roles.length === 0) return null;
  const inRole = (context: string) => {
    const there = new Set(roleWords(context).map(roleRoot));
    // (An abbreviation is met by the words it stands for: "RVN" by "Registered Veterinary Nurse".)
    const initials = (context.match(/\p{L}+/gu) ?? []).map((w) => w[0].toLowerCase()).join("");
    const has = ([root, abbreviation]: readonly [string, boolean]) => there.has(root) || (abbreviation && initials.includes(root));
    // (Of a role of two words, its head: "data analysis" is met by a reporting analyst, "HR adviser" not by an HR
    // assistant.)
    return roles.some((role) => (role.length <= 2 ? has(role[role.length - 1]) : role.filter(has).length >= role.length - 1));
  };
  return yearsShown(text, now, inRole) ?? (all?.from === "dates" ? { years: 0, from: "role" } : null);
}

/**
 * The years of work a CV shows for a requirement: in the roles it names, where it names any; else in all its roles
 * (`all`, yearsShown(text, now), where the caller has them).
 */
export function yearsFor(c: { title: string; description: string }, text: string, now: Date, all = yearsShown(text, now)): YearsShown | null {
  return roleYears(c, text, now, all) ?? all;
}
