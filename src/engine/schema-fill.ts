// Any output schema, offline: the local evaluator's findings mapped onto a workflow's own schema by field name, type and description.
//
// The start is the schema-valid stub (stub.ts); each field the evaluation can answer (a score, a verdict, a summary, the
// criteria, names and dates found in the input) replaces the stub's value, and a replacement the schema refuses is
// undone, so the result validates whenever the stub does. What nothing can satisfy ("not": {}) is reported by path.

import { levelWordRank } from "./local/rubric-words";
import { compileSchema, isPlainObject, type JsonSchema } from "./schema";
import { merge, safeRegExp, stubFromSchema } from "./stub";
import type { Criterion, Evaluation } from "./types";

export interface FillSource {
  evaluation: Evaluation;
  /** The input documents' text, where names, emails and dates are found. */
  text: string;
}

export interface FillResult {
  value: unknown;
  /** null when `value` validates; else why no value could (the validator's message, with its path). */
  problem: string | null;
}

const MAX_ARRAY = 50;

/** The evaluation as an object valid against `schema`, or the problem that stops any value from being valid. */
export function fillSchema(schema: object, seed: string, source: FillSource): FillResult {
  const { validate } = compileSchema(schema);
  // A schema that names no fields ({} or {"type": "object"}) gets the standard evaluation, where that validates.
  if (namesNoFields(schema as JsonSchema) && validate(source.evaluation) === null)
    return { value: structuredClone(source.evaluation), problem: null };
  // Fields the evaluation cannot answer keep values that claim nothing: the lowest number allowed, "", false.
  const root = { value: stubFromSchema(schema, seed, { plain: true }) };
  const problem = validate(root.value);
  if (problem !== null) return { value: root.value, problem };
  const filler = new Filler(schema as JsonSchema, seed, source, () => validate(root.value) === null);
  filler.fill(schema as JsonSchema, root, "value", { name: "", text: "" }, null);
  return { value: root.value, problem: validate(root.value) };
}

function namesNoFields(schema: JsonSchema): boolean {
  return !["properties", "$ref", "allOf", "anyOf", "oneOf", "if", "dependentSchemas", "dependencies"].some((k) => k in schema);
}

interface Field {
  name: string;
  /** Name, title and description, lower-case words: what the field means. */
  text: string;
}

type Holder = Record<string, unknown>;

class Filler {
  private readonly facts: Facts;

  constructor(
    private readonly root: JsonSchema,
    private readonly seed: string,
    private readonly source: FillSource,
    private valid: () => boolean,
  ) {
    this.facts = facts(source.text);
  }

  /** Fills holder[key] (whose schema is `schema`) and, for objects and arrays, what is inside it. */
  fill(schema: JsonSchema | boolean, holder: Holder, key: string, field: Field, criterion: Criterion | null, depth = 0): void {
    if (depth > 12) return;
    const s = this.resolve(schema);
    if (!s) return;
    const candidate = this.candidate(s, field, criterion);
    // A list the evaluation made (criteria objects, strengths) is complete: its items are not filled again.
    const made = candidate !== undefined && this.trySet(holder, key, candidate) && Array.isArray(candidate);
    const current = holder[key];
    if (isPlainObject(current) && isPlainObject(s.properties)) {
      for (const [name, sub] of Object.entries(s.properties as Record<string, JsonSchema | boolean>)) {
        const subSchema = this.resolve(sub);
        if (!(name in current)) {
          // An optional field the evaluation can answer is worth adding; the rest stays out.
          if (!subSchema || this.candidate(subSchema, fieldOf(name, subSchema), criterion) === undefined) continue;
          const added = stubOf(this.root, subSchema, `${this.seed}/${name}`);
          if (!this.trySet(current, name, added)) continue;
        }
        this.fill(sub, current, name, fieldOf(name, subSchema ?? {}), criterion, depth + 1);
      }
    }
    if (!made && Array.isArray(current) && current.length > 0) {
      const items = this.resolve((s.items ?? (Array.isArray(s.prefixItems) ? undefined : true)) as JsonSchema | boolean);
      if (!items || !typesOf(items).has("object")) return;
      current.forEach((_, i) => {
        this.fill(items, current as unknown as Holder, String(i), { name: singular(field.name), text: field.text }, criterion ?? null, depth + 1);
      });
    }
  }

  /** Sets holder[key] = value if the whole output still validates; else puts the old value back. */
  private trySet(holder: Holder, key: string, value: unknown): boolean {
    const had = key in holder;
    const old = holder[key];
    holder[key] = value;
    if (this.valid()) return true;
    if (had) holder[key] = old;
    else delete holder[key];
    return false;
  }

  /** What the evaluation says for a field of this schema, or undefined when it says nothing. */
  private candidate(s: JsonSchema, field: Field, criterion: Criterion | null): unknown {
    const types = typesOf(s);
    const text = field.text;
    const e = this.source.evaluation;
    if (Array.isArray(s.enum) && s.enum.length > 0) return enumChoice(s.enum, text, e, criterion);
    if (types.has("integer") || types.has("number")) {
      const n = this.number(s, text, criterion);
      if (n === undefined) return undefined;
      return types.has("integer") || !types.has("number") ? Math.round(n) : Math.round(n * 100) / 100;
    }
    if (types.has("boolean")) return this.boolean(text, criterion);
    if (types.has("string")) return this.string(s, text, criterion);
    if (types.has("array")) {
      const items = this.resolve((s.items ?? true) as JsonSchema | boolean);
      if (!items) return undefined;
      const itemTypes = typesOf(items);
      const max = typeof s.maxItems === "number" ? s.maxItems : MAX_ARRAY;
      const min = typeof s.minItems === "number" ? s.minItems : 0;
      if (
        itemTypes.has("object") &&
        !criterion &&
        /\b(criteri|score|rubric|trait|dimension|categor|breakdown|finding|assessment|result|section|item|aspect|area|skill|requirement|competenc|evaluation|feedback|comment|review|observation|clause|check|question|standard|element|point)/.test(
          text,
        )
      ) {
        // One object per criterion: a stub each, filled in that criterion's context by fill(); stubs make up the
        // number when the schema asks for more items than the rubric has criteria.
        const list = e.criteria.slice(0, max).map((c) => this.criterionObject(items, c));
        for (let i = list.length; i < min; i++) list.push(stubOf(this.root, items, `${this.seed}/pad/${i}`));
        return list;
      }
      if (itemTypes.has("string")) {
        const list = this.strings(text, criterion, min);
        return list ? list.slice(0, max) : undefined;
      }
      return undefined;
    }
    if (types.has("object") && !isPlainObject(s.properties)) return this.scoreMap(s, text);
    return undefined;
  }

  /** An open map named for scores ({"additionalProperties": {"type": "number"}}): each criterion's title to its score. */
  private scoreMap(s: JsonSchema, text: string): Record<string, number> | undefined {
    const values = this.resolve(s.additionalProperties as JsonSchema | boolean | undefined);
    if (!values || !/\b(score|grade|point|mark|rating|level|result)s?\b/.test(text)) return undefined;
    const types = typesOf(values);
    if (!types.has("number") && !types.has("integer")) return undefined;
    const map: Record<string, number> = {};
    for (const c of this.source.evaluation.criteria) {
      const n = this.number(values, "score", c);
      if (n !== undefined) map[c.title] = types.has("number") ? Math.round(n * 100) / 100 : Math.round(n);
    }
    return map;
  }

  private criterionObject(items: JsonSchema, c: Criterion): unknown {
    const holder: Holder = { v: stubOf(this.root, items, `${this.seed}/${c.id}`) };
    // Filled here (not via fill()'s array pass) so that each item knows its criterion.
    const saved = this.valid;
    const { validate } = compileSchema(withDefs(this.root, items));
    this.valid = () => validate(holder.v) === null;
    try {
      this.fill(items, holder, "v", { name: "criterion", text: "" }, c);
    } finally {
      this.valid = saved;
    }
    return holder.v;
  }

  private number(s: JsonSchema, text: string, c: Criterion | null): number | undefined {
    const max = typeof s.maximum === "number" ? s.maximum : typeof s.exclusiveMaximum === "number" ? s.exclusiveMaximum : null;
    const min = typeof s.minimum === "number" ? s.minimum : 0;
    const e = this.source.evaluation;
    if (/\b(confiden|probabil|certaint)/.test(text)) return undefined;
    if (/\byears?\b.*\bexperience|\bexperience\b/.test(text)) return this.facts.years ?? undefined;
    if (c) {
      if (/\b(max|maximum|out of|possible|available)\b/.test(text)) return max !== null ? Math.min(max, c.max_score) : c.max_score;
      if (/\b(score|grade|point|mark|rating|level|result|value|star)s?\b/.test(text) || text.trim() === "") {
        const share = c.max_score > 0 ? c.score / c.max_score : 0;
        if (/\b(percent|percentage)\b|%/.test(text)) return 100 * share;
        return max !== null && max !== c.max_score ? min + share * (max - min) : c.score;
      }
      return undefined;
    }
    if (!/\b(score|grade|point|mark|rating|percent|percentage|total|overall|result|level|band|star)s?\b|%/.test(text)) return undefined;
    const share = e.score / 100;
    if (/\b(percent|percentage)\b|%/.test(text) || max === null || max === 100) {
      if (/\b(points?|marks?)\b/.test(text) && max === null) return e.criteria.reduce((n, x) => n + x.score, 0);
      return max !== null && max < 100 ? min + share * (max - min) : e.score;
    }
    return min + share * (max - min);
  }

  private boolean(text: string, c: Criterion | null): boolean | undefined {
    const verdict = this.source.evaluation.verdict;
    const passed = c ? c.max_score > 0 && c.score / c.max_score >= 0.6 : verdict === "pass";
    if (/\b(fail|failed|reject|rejected|disqualif)/.test(text)) return c ? !passed : verdict === "fail";
    if (/\b(review|flag|uncertain|manual)/.test(text)) return verdict === "needs_review";
    // Of one criterion (a clause, a skill, a requirement): is it there in the input.
    if (c && /\b(missing|absent|lacking|lacks|omitted)\b/.test(text)) return !passed;
    if (c && /\b(present|found|included|covered|addressed|demonstrated|complete|satisfied|fulfilled|has|ok)\b/.test(text)) return passed;
    if (/\b(pass|passed|passes|meets?|met|qualif|recommend|accept|eligible|hire|approv|suitable|shortlist|proceed|success|satisf)/.test(text))
      return passed;
    return undefined;
  }

  private string(s: JsonSchema, text: string, c: Criterion | null): string | undefined {
    const e = this.source.evaluation;
    const format = typeof s.format === "string" ? s.format : "";
    if (format === "date" || format === "date-time" || /\b(date|dob|born|birth|issued|since)\b/.test(text)) {
      const d = this.facts.date;
      if (!d) return undefined;
      if (format === "date-time") return `${d}T00:00:00Z`;
      // A pattern may ask for another way of writing it ("^\\d{2}/\\d{2}/\\d{4}$"): the first common one it accepts,
      // month first only when the field says so ("MM/DD/YYYY").
      const re = typeof s.pattern === "string" ? safeRegExp(s.pattern) : null;
      if (!re || re.test(d)) return d;
      const [y, m, day] = d.split("-");
      const dayFirst = [`${day}/${m}/${y}`, `${day}.${m}.${y}`, `${day}-${m}-${y}`];
      const monthFirst = [`${m}/${day}/${y}`, `${m}-${day}-${y}`];
      const order = /\bmm[/.-]dd\b/.test(text) ? [...monthFirst, ...dayFirst] : [...dayFirst, ...monthFirst];
      return [...order, `${y}/${m}/${day}`, `${y}.${m}.${day}`].find((x) => re.test(x));
    }
    // Contacts and names the input does not state are empty, not placeholders (where the schema allows an empty string).
    if (format === "email" || /\be-?mail\b/.test(text)) return this.facts.email ?? "";
    if (/\b(phone|telephone|mobile)\b/.test(text)) return this.facts.phone ?? "";
    if (c) {
      if (/\b(rationale|reason|comment|feedback|explanation|justification|notes?|assessment|summary|description|remarks?)\b/.test(text))
        return c.rationale;
      // No quote for this criterion: an empty string says so better than a placeholder (kept if the schema allows it).
      if (/\b(quote|evidence|excerpt|citation)\b/.test(text)) return c.evidence[0]?.quote ?? "";
      if (/\b(id|key|code)\b/.test(text)) return c.id;
      if (
        /\b(title|name|criterion|label|category|trait|dimension|aspect|area|topic|section|skill|requirement|competency|standard|element|clause|check|question|point)\b/.test(
          text,
        )
      )
        return c.title;
      return undefined;
    }
    if (/\b(verdict|decision|outcome|recommendation|status)\b/.test(text)) return e.verdict;
    if (
      /\b(summary|overview|comment|comments|feedback|rationale|explanation|reason|reasoning|justification|notes?|assessment|remarks?|evaluation|conclusion)\b/.test(
        text,
      )
    )
      return e.summary;
    if (/\b(strength|strengths|positive)\b/.test(text)) return this.strings(text, null)?.join(" ");
    if (/\b(weakness|weaknesses|improvement|improvements|gap|gaps|concern|concerns)\b/.test(text)) return this.strings(text, null)?.join(" ");
    if (/\b(grade|letter)\b/.test(text)) return letterGrade(e.score);
    if (
      /\b(name|candidate|applicant|student|author|person|full name)\b/.test(text) &&
      !/\b(file|document|company|employer|school|title)\b/.test(text)
    )
      return this.facts.name ?? "";
    return undefined;
  }

  /** A list the evaluation gives for a field of strings; `min` items at least where the schema asks for them. */
  private strings(text: string, c: Criterion | null, min = 0): string[] | undefined {
    const e = this.source.evaluation;
    const share = (x: Criterion) => (x.max_score > 0 ? x.score / x.max_score : 0);
    if (c && /\b(quote|quotes|evidence|excerpt)/.test(text)) return c.evidence.map((q) => q.quote);
    if (c) return undefined;
    // Strengths are the criteria at two thirds or more, weaknesses those below. A schema that wants some when there
    // are none gets the strongest (or weakest) criteria, in that order, named as such.
    const ranked = [...e.criteria].sort((a, b) => share(b) - share(a));
    const atLeast = (list: string[], order: Criterion[], label: string) =>
      list.length >= min ? list : [...list, ...order.slice(list.length, min).map((x) => `${x.title}: ${x.score}/${x.max_score} (${label})`)];
    if (/\b(strength|strengths|positive|positives)\b/.test(text))
      return atLeast(
        ranked.filter((x) => share(x) >= 0.67).map((x) => `${x.title}: ${x.score}/${x.max_score}`),
        ranked,
        "none reached two thirds; this one scored highest",
      );
    if (
      /\b(weakness|weaknesses|improvement|improvements|gap|gaps|concern|concerns|missing|risk|risks|next steps?|suggestions?|recommendations|to improve)\b/.test(
        text,
      )
    )
      return atLeast(
        ranked
          .filter((x) => share(x) < 0.67)
          .reverse()
          .map((x) => `${x.title}: ${x.score}/${x.max_score}. ${x.rationale}`),
        [...ranked].reverse(),
        "none fell below two thirds; this one scored lowest",
      );
    if (/\b(quote|quotes|evidence|excerpts?)\b/.test(text)) return e.criteria.flatMap((x) => x.evidence.map((q) => q.quote));
    if (/\b(criteria|findings|comments|feedback|notes|observations|rationales?)\b/.test(text))
      return e.criteria.map((x) => `${x.title}: ${x.rationale}`);
    return undefined;
  }

  /** A schema with its local $ref resolved (one level at a time) and its allOf parts merged into it. */
  private resolve(schema: JsonSchema | boolean | undefined, depth = 0): JsonSchema | null {
    let s = schema;
    for (let i = 0; i < 8 && isPlainObject(s) && typeof s.$ref === "string"; i++) s = pointer(this.root, s.$ref);
    if (!isPlainObject(s)) return s === true ? {} : null;
    // allOf: its parts' fields and bounds together ({"$ref": base} plus {"properties": {"score": {"maximum": 10}}}).
    if (Array.isArray(s.allOf) && depth < 4) {
      const { allOf, ...rest } = s;
      const parts = (allOf as (JsonSchema | boolean)[]).map((p) => this.resolve(p, depth + 1) ?? false);
      const merged = merge([rest, ...parts]);
      return isPlainObject(merged) ? merged : null;
    }
    return s;
  }
}

function fieldOf(name: string, s: JsonSchema): Field {
  const words = [name, typeof s.title === "string" ? s.title : "", typeof s.description === "string" ? s.description : ""]
    .join(" ")
    .replace(/([a-z])([A-Z])/g, "$1 $2")
    .replace(/[_\-.]+/g, " ")
    .toLowerCase();
  return { name, text: words };
}

function typesOf(s: JsonSchema): Set<string> {
  if (typeof s.type === "string") return new Set([s.type]);
  if (Array.isArray(s.type)) return new Set(s.type as string[]);
  if (isPlainObject(s.properties)) return new Set(["object"]);
  if (s.items !== undefined) return new Set(["array"]);
  return new Set();
}

const VERDICT_WORDS: Record<Evaluation["verdict"], RegExp> = {
  pass: /^(?:pass|passed|yes|true|accept|accepted|approve|approved|hire|strong hire|recommend|recommended|shortlist|shortlisted|proceed|advance|interview|qualified|meets|meets expectations|exceeds expectations|strong|strong yes|definitely|good|satisfactory|competent|proficient|adequate)$/i,
  fail: /^(?:fail|failed|no|false|reject|rejected|decline|declined|not recommended|do not hire|no hire|not hire|unqualified|does not meet|below expectations|weak|insufficient|unsatisfactory|poor|strong no|strong no hire|definitely not)$/i,
  needs_review:
    /^(?:needs[ _]review|review|maybe|consider|borderline|hold|on hold|uncertain|unsure|partially meets|manual review|undecided|pending)$/i,
};

/** The enum member that says the verdict (or, for letter grades, the score's letter); undefined when none does. */
function enumChoice(members: unknown[], text: string, e: Evaluation, c: Criterion | null): unknown {
  const strings = members.filter((m): m is string => typeof m === "string");
  // "NO_HIRE", "meets-expectations": read as the words they are.
  const words = (m: string) => m.trim().replace(/[_-]+/g, " ");
  // Three or more levels named by quality ("excellent", "good", "fair", "poor"; "exceeds" … "below"): the one at the
  // score's place among them, best first. Severity, priority and risk run the other way: high when the score is low.
  const share = c ? c.score / Math.max(1, c.max_score) : e.score / 100;
  const ranks = strings.map((m) => levelWordRank(words(m)));
  if (strings.length >= 3 && strings.length === members.length && ranks.every((r) => r !== null)) {
    const best = strings.map((m, i) => ({ m, r: ranks[i] as number })).sort((a, b) => a.r - b.r);
    const inverse = /\b(severity|priority|risk|impact|urgency|concern)\b/.test(text);
    const at = Math.round((inverse ? share : 1 - share) * (best.length - 1));
    return best[Math.min(best.length - 1, Math.max(0, at))].m;
  }
  const verdict: Evaluation["verdict"] = c ? (c.max_score > 0 && c.score / c.max_score >= 0.6 ? "pass" : "fail") : e.verdict;
  const says = (v: Evaluation["verdict"]) => {
    const all = strings.filter((m) => VERDICT_WORDS[v].test(words(m)));
    // "strong yes", "STRONG_HIRE": for the clearest cases only (a tenth of the scale from either end).
    const strong = all.find((m) => /^(?:strong|definitely)\b/i.test(words(m)));
    const plain = all.find((m) => m !== strong);
    const clear = v === "pass" ? share >= 0.9 : share < 0.1;
    return (clear ? strong : plain) ?? plain ?? strong;
  };
  const hit = says(verdict);
  if (hit !== undefined) return hit;
  if (verdict === "needs_review") {
    // No member says "review": the evaluation's score decides between the others.
    const fallback = says(e.score >= 50 ? "pass" : "fail");
    if (fallback !== undefined) return fallback;
  }
  if (strings.length > 0 && strings.every((m) => /^[A-F][+-]?$/i.test(m.trim()))) {
    const letter = letterGrade(c ? (100 * c.score) / Math.max(1, c.max_score) : e.score);
    return strings.find((m) => m.trim().toUpperCase() === letter) ?? strings.find((m) => m.trim().toUpperCase()[0] === letter);
  }
  // Numbers: the one nearest the score.
  const numbers = members.filter((m): m is number => typeof m === "number");
  if (numbers.length === members.length && /\b(score|grade|rating|level|points?|band)\b/.test(text)) {
    const lo = Math.min(...numbers);
    const hi = Math.max(...numbers);
    const target = lo + share * (hi - lo);
    return numbers.reduce((a, b) => (Math.abs(b - target) < Math.abs(a - target) ? b : a));
  }
  return undefined;
}

function letterGrade(score: number): string {
  return score >= 90 ? "A" : score >= 80 ? "B" : score >= 70 ? "C" : score >= 60 ? "D" : "F";
}

interface Facts {
  name: string | null;
  email: string | null;
  phone: string | null;
  date: string | null;
  years: number | null;
}

const MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"];

/** Names, contacts, the first date and years of experience the input states. */
function facts(text: string): Facts {
  const email = /[\w.+-]+@[\w-]+(?:\.[\w-]+)+/.exec(text)?.[0] ?? null;
  const phone = /(?:\+\d{1,3}[\s-]?)?(?:\(\d{2,4}\)[\s-]?)?\d{3,4}[\s-]\d{3,4}(?:[\s-]\d{2,4})?/.exec(text)?.[0]?.trim() ?? null;
  const labelled = /\b(?:name|candidate|applicant|student|author)\s*:\s*([\p{Lu}][\p{L}'’-]+(?:\s+[\p{Lu}][\p{L}'’.-]+){1,3})/u.exec(text)?.[1];
  // A CV or letter opens with its author's name on a line of its own.
  const firstLine = text
    .split("\n")
    .map((l) => l.replace(/^#+\s*/, "").trim())
    .find((l) => l.length > 0);
  const heading = firstLine && /^[\p{Lu}][\p{L}'’-]+(?:\s+[\p{Lu}][\p{L}'’.-]+){1,3}$/u.test(firstLine) ? firstLine : null;
  let date: string | null = null;
  const iso = /\b(\d{4})-(\d{2})-(\d{2})\b/.exec(text);
  const named = /\b(\d{1,2})?\s*(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+(\d{1,2},\s*)?(\d{4})\b/i.exec(text);
  if (iso && Number(iso[2]) >= 1 && Number(iso[2]) <= 12 && Number(iso[3]) >= 1 && Number(iso[3]) <= 31) date = iso[0];
  else if (named) {
    const month = MONTHS.indexOf(named[2].toLowerCase()) + 1;
    const day = Number(named[1] ?? named[3]?.replace(/\D/g, "") ?? 1) || 1;
    date = `${named[4]}-${String(month).padStart(2, "0")}-${String(Math.min(28, day)).padStart(2, "0")}`;
  }
  const years = /\b(\d{1,2})\+?\s*(?:years?|yrs?)\b(?:\s+of)?(?:\s+\w+){0,3}\s+experience/i.exec(text);
  return { name: labelled ?? heading, email, phone, date, years: years ? Number(years[1]) : null };
}

function stubOf(root: JsonSchema, s: JsonSchema, seed: string): unknown {
  try {
    return stubFromSchema(withDefs(root, s), seed, { plain: true });
  } catch {
    return null;
  }
}

/** A sub-schema that keeps the root's definitions, so its local $refs still resolve. */
function withDefs(root: JsonSchema, s: JsonSchema): JsonSchema {
  const out: JsonSchema = { ...s };
  for (const k of ["$schema", "$defs", "definitions"]) if (root[k] !== undefined && out[k] === undefined) out[k] = root[k];
  return out;
}

function pointer(root: JsonSchema, ref: string): JsonSchema | boolean | undefined {
  if (!ref.startsWith("#")) return undefined;
  let node: unknown = root;
  for (const part of ref.slice(1).split("/").filter(Boolean)) {
    const key = decodeURIComponent(part).replace(/~1/g, "/").replace(/~0/g, "~");
    node = isPlainObject(node) ? node[key] : undefined;
  }
  return isPlainObject(node) || typeof node === "boolean" ? node : undefined;
}

function singular(name: string): string {
  return name.endsWith("ies") ? `${name.slice(0, -3)}y` : name.endsWith("s") && !name.endsWith("ss") ? name.slice(0, -1) : name;
}
