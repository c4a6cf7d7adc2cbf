// Any output schema, offline: the local evaluator's findings mapped onto a workflow's own schema by field name, type and description.
//
// The start is the schema-valid stub (stub.ts); each field the evaluation can answer (a score, a verdict, a summary, the
// criteria, names and dates found in the input) replaces the stub's value, and a replacement the schema refuses is
// undone, so the result validates whenever the stub does. What nothing can satisfy ("not": {}) is reported by path.

import { InputFacts, isMarker, isRole, type Label, type Party, sameRole } from "./input-facts";
import { levelWordRank } from "./local/rubric-words";
import { ABSENT, shareOf } from "./local/verdict";
import { compileSchema, isPlainObject, type JsonSchema } from "./schema";
import { merge, patternPropertyFor, safeRegExp, stubFromSchema } from "./stub";
import type { Criterion, Evaluation } from "./types";

export interface FillSource {
  evaluation: Evaluation;
  /** The input documents' text, where names, labels, parties, emails and dates are found. */
  text: string;
  /** The ids of the criteria the rubric marks optional (desirable, nice to have): what "essential_met" leaves out. */
  optional?: string[];
}

export interface FillResult {
  value: unknown;
  /** null when `value` validates; else why no value could (the validator's message, with its path). */
  problem: string | null;
}

const MAX_ARRAY = 50;
/** Refused values tried again with the rest of the output following them (each costs one more fill). */
const MAX_RETRIES = 4;
/** A criterion at this share of its maximum is met (the default pass share); above ABSENT it is at least present. */
const MET = 0.6;

/** The evaluation as an object valid against `schema`, or the problem that stops any value from being valid. */
export function fillSchema(schema: object, seed: string, source: FillSource): FillResult {
  const { validate } = compileSchema(schema);
  // A schema that names no fields ({} or {"type": "object"}) gets the standard evaluation, where that validates.
  if (namesNoFields(schema as JsonSchema) && validate(source.evaluation) === null)
    return { value: structuredClone(source.evaluation), problem: null };
  // Fields the evaluation cannot answer keep values that claim nothing: the lowest number allowed, "", false.
  // (A string no finding answers but whose minLength asks for text is padded with the summary, never "stub".)
  const root = { value: stubFromSchema(schema, seed, { plain: true, filler: source.evaluation.summary }) };
  const problem = validate(root.value);
  if (problem !== null) return { value: root.value, problem };
  const filler = new Filler(schema as JsonSchema, seed, source, () => validate(root.value) === null);
  filler.fill(schema as JsonSchema, root, "value", fieldOf("", {}), null);
  // Values refused only because other fields disagree with them ("grade", "mark_20" and "resubmission_offered" under an
  // if/then that fixes all three for a Fail): all set at once on a copy, filled again, and the optional fields the
  // other branch forbids ("resubmission_deadline") left out; kept if the whole then validates.
  if (filler.refused.length > 1) {
    const original = root.value;
    const copy = structuredClone(original);
    for (const r of filler.refused) {
      const at = pathTo(original, r.holder);
      const holder = at?.reduce<unknown>((v, k) => (v as Holder)[k], copy);
      if (isPlainObject(holder) || Array.isArray(holder)) (holder as Holder)[r.key] = r.value;
    }
    root.value = copy;
    filler.refused.length = 0;
    filler.fill(schema as JsonSchema, root, "value", fieldOf("", {}), null);
    const required = new Set(Array.isArray((schema as JsonSchema).required) ? ((schema as JsonSchema).required as string[]) : []);
    if (isPlainObject(copy))
      for (const key of Object.keys(copy)) {
        if (validate(copy) === null) break;
        if (required.has(key)) continue;
        const kept = copy[key];
        delete copy[key];
        if (validate(copy) !== null) copy[key] = kept;
      }
    if (validate(copy) === null) return { value: copy, problem: null };
    // Back to the original, filled again so the refusals below name its holders, not the copy's.
    root.value = original;
    filler.refused.length = 0;
    filler.fill(schema as JsonSchema, root, "value", fieldOf("", {}), null);
  }
  // One at a time ("percent" under an if/then that fixes "classification" to "Fail" below 50): set it anyway and fill
  // again, so the other field follows; kept if the whole then validates.
  for (const refused of filler.refused.splice(0, MAX_RETRIES)) {
    const saved = structuredClone(root.value);
    refused.holder[refused.key] = refused.value;
    filler.fill(schema as JsonSchema, root, "value", fieldOf("", {}), null);
    filler.refused.length = 0;
    if (validate(root.value) === null) continue;
    root.value = saved;
    break; // (the fields recorded after this one belong to the tree just put back)
  }
  return { value: root.value, problem: validate(root.value) };
}

/** The keys that lead from `root` to the object `target` (by identity), or null when it is not in the tree. */
function pathTo(root: unknown, target: unknown, at: string[] = []): string[] | null {
  if (root === target) return at;
  if (!isPlainObject(root) && !Array.isArray(root)) return null;
  for (const [k, v] of Object.entries(root as Holder)) {
    const found = pathTo(v, target, [...at, k]);
    if (found) return found;
  }
  return null;
}

function namesNoFields(schema: JsonSchema): boolean {
  return !["properties", "$ref", "allOf", "anyOf", "oneOf", "if", "dependentSchemas", "dependencies"].some((k) => k in schema);
}

interface Field {
  name: string;
  /** Name, title and description, lower-case words: what the field means. */
  text: string;
  /** The words of its own name ("student_name": student, name) and of its title and description, bare. */
  own: string[];
  described: string[];
  /** The object or array it is in: "marks" says what {"awarded", "available"} count, "provider" whose company it is. */
  parent: Field | null;
  /** The scale a sibling fixes ("out_of": {"const": 50} beside "total"): what the overall score is out of. */
  outOf?: number;
}

type Holder = Record<string, unknown>;

class Filler {
  private readonly facts: InputFacts;
  /** Plain values the output refused where they were tried (another field disagreed), in order. */
  readonly refused: { holder: Holder; key: string; value: unknown }[] = [];

  constructor(
    private readonly root: JsonSchema,
    private readonly seed: string,
    private readonly source: FillSource,
    private valid: () => boolean,
  ) {
    this.facts = new InputFacts(source.text);
  }

  /** Fills holder[key] (whose schema is `schema`) and, for objects and arrays, what is inside it. */
  fill(schema: JsonSchema | boolean, holder: Holder, key: string, field: Field, criterion: Criterion | null, depth = 0): void {
    if (depth > 12) return;
    const s = this.resolve(schema);
    if (!s) return;
    const candidate = this.candidate(s, field, criterion);
    // A list the evaluation made (criteria objects, strengths, parties, a tuple) is complete: its items are not filled again.
    const made = candidate !== undefined && this.trySet(holder, key, candidate) && Array.isArray(candidate);
    const current = holder[key];
    // Names the object requires without declaring them ("required": ["candidate_name", …], no "properties"): any value
    // validates, so the stub's text is replaced by what each name means, as a declared string would be.
    const declared = isPlainObject(s.properties) ? (s.properties as Record<string, JsonSchema | boolean>) : this.branchProperties(s, current);
    const undeclared =
      Array.isArray(s.required) && isPlainObject(current)
        ? s.required.filter((n) => typeof n === "string" && !(n in declared) && typeof current[n] === "string")
        : [];
    const properties: Record<string, JsonSchema | boolean> = { ...declared, ...Object.fromEntries(undeclared.map((n) => [n, { type: "string" }])) };
    if (isPlainObject(current) && Object.keys(properties).length > 0) {
      const keyed = criterion === null ? this.keyedByCriteria(declared) : null;
      const outOf = this.outOf(properties);
      // An object that names its party in a constant ("role": {"const": "Client"}): its fields are that party's.
      const role = Object.values(properties)
        .map((p) => this.resolve(p)?.const)
        .find((c): c is string => typeof c === "string" && isRole(c.toLowerCase()));
      const owner = role ? { ...field, own: [...field.own, role.toLowerCase()] } : field;
      for (const [name, sub] of Object.entries(properties)) {
        const subSchema = this.resolve(sub);
        const subField = { ...fieldOf(name, subSchema ?? {}, owner), ...(outOf !== undefined && !OUT_OF.test(name) ? { outOf } : {}) };
        if (!(name in current)) {
          // An optional field the evaluation can answer is worth adding; the rest stays out.
          if (!subSchema || this.candidate(subSchema, subField, criterion) === undefined) continue;
          const added = this.stub(subSchema, `${this.seed}/${name}`);
          if (!this.trySet(current, name, added)) continue;
        }
        // (A field named for a criterion means what its object holds for each: "criterion_marks" its marks.)
        const own = keyed?.get(name);
        // (At the top, with no parent's name to say what they hold, a number keyed by a criterion is its mark, text its
        // comment: a spreadsheet row's "Visual Analysis (0-5)".)
        const holds = field.own.join(" ") || (typesOf(subSchema ?? {}).has("string") ? "comment" : "score");
        // (Its scale after the name, "D Analysis (max 10)", says what the mark is out of, not that it is the maximum.)
        const scaled = own ? { ...subField, ...fieldOf(name.replace(SCALE_NOTE, ""), subSchema ?? {}, owner) } : subField;
        if (own) this.fill(sub, current, name, { ...scaled, text: `${scaled.text} ${holds}` }, own, depth + 1);
        else this.fill(sub, current, name, subField, criterion, depth + 1);
      }
    }
    // A map of one entry per criterion, named by a pattern ("C01" … "C10" for ten checklist items): each entry in turn
    // is the criterion in turn, where there are as many entries as criteria.
    const criteria = this.source.evaluation.criteria;
    if (criterion === null && isPlainObject(current) && Object.keys(properties).length === 0 && isPlainObject(s.patternProperties)) {
      const entries = Object.keys(current);
      const schemas = entries.map((name) => patternPropertyFor(s, name));
      if (entries.length === criteria.length && schemas.every((sub) => sub !== undefined && typesOf(this.resolve(sub) ?? {}).has("object"))) {
        for (const [i, name] of entries.entries()) {
          this.fill(schemas[i] as JsonSchema, current, name, { ...field, text: `${field.text} criterion` }, criteria[i], depth + 1);
        }
      }
    }
    if (!made && Array.isArray(current) && current.length > 0) {
      // A tuple's objects ("parties": [{"role": {"const": "Client"}, …}, {…}]): each place from its own schema.
      const tuple = Array.isArray(s.prefixItems) ? s.prefixItems : Array.isArray(s.items) ? s.items : null;
      if (tuple) {
        (tuple as (JsonSchema | boolean)[]).forEach((place, i) => {
          const own = this.resolve(place);
          if (own && typesOf(own).has("object") && i < current.length)
            this.fill(own, current as unknown as Holder, String(i), field, criterion, depth + 1);
        });
        return;
      }
      const items = this.resolve((s.items ?? (Array.isArray(s.prefixItems) ? undefined : true)) as JsonSchema | boolean);
      if (!items || !typesOf(items).has("object")) return;
      const itemField = { ...field, name: singular(field.name), own: field.own.map(singular) };
      current.forEach((_, i) => {
        this.fill(items, current as unknown as Holder, String(i), itemField, criterion ?? null, depth + 1);
      });
    }
  }

  /**
   * An object whose fields are the rubric's criteria by name ("criterion_marks": {"introduction", "method", "results"}
   * for "Introduction and Aim", "Method", "Results and Presentation of Data"): each field's criterion. Null unless its
   * fields are all of one plain type (marks, or comments) and two or more, at least half, each name a criterion of
   * their own (an object of "parties" and "governing_law" is no map of the criteria "Parties" and "Governing Law").
   */
  private keyedByCriteria(properties: Record<string, JsonSchema | boolean>): Map<string, Criterion> | null {
    const names = Object.keys(properties);
    // Keyed by the criteria's codes ("E1" … "E5", "D1" … "D3"), as many as the criteria: in the rubric's order.
    const all = this.source.evaluation.criteria;
    if (names.length >= 2 && names.length === all.length && names.every((n) => /^[A-Z]{1,2}\d{1,2}$/.test(n)))
      return new Map(names.map((n, i) => [n, all[i]]));
    // By plain type: a spreadsheet row keys its marks by criterion ("Visual Analysis (0-5)") beside a student's name
    // and a total, so each type's fields are judged apart.
    const typeOf = (n: string) => [...typesOf(this.resolve(properties[n]) ?? {})].join("|").replace("integer", "number");
    const criteria = all.map((c) => ({ c, words: new Set(wordsOf(c.title)) }));
    const keyed = new Map<string, Criterion>();
    for (const type of ["number", "string", "boolean"]) {
      const group = names.filter((n) => typeOf(n) === type);
      const found = new Map<string, Criterion>();
      for (const name of group) {
        // (The scale after the name, "B Methods (max 8)", is no part of it.)
        const words = wordsOf(name.replace(SCALE_NOTE, "")).filter((w) => w.length > 2);
        const hits = words.length > 0 ? criteria.filter((x) => words.every((w) => x.words.has(w))) : [];
        if (hits.length === 1 && ![...found.values()].includes(hits[0].c)) found.set(name, hits[0].c);
      }
      if (found.size >= 2 && found.size * 2 >= group.length) for (const [n, c] of found) keyed.set(n, c);
    }
    return keyed.size >= 2 ? keyed : null;
  }

  /** The constant of a field named "out_of", "max_marks", "possible" among `properties`, if any. */
  private outOf(properties: Record<string, JsonSchema | boolean>): number | undefined {
    for (const [name, sub] of Object.entries(properties)) {
      const s = this.resolve(sub);
      if (OUT_OF.test(name) && typeof s?.const === "number" && s.const > 0) return s.const;
    }
    return undefined;
  }

  /**
   * The fields of the branch an object without its own fields stands in ("oneOf": [v1, v2], each with its properties):
   * the branch whose required fields it has (the stub chose it). Empty when there is none.
   */
  private branchProperties(s: JsonSchema, current: unknown): Record<string, JsonSchema | boolean> {
    const branches = s.oneOf ?? s.anyOf;
    if (!Array.isArray(branches) || !isPlainObject(current)) return {};
    for (const b of branches as (JsonSchema | boolean)[]) {
      const branch = this.resolve(b);
      if (!branch || !isPlainObject(branch.properties)) continue;
      const required = Array.isArray(branch.required) ? branch.required : [];
      if (required.length > 0 && required.every((n) => typeof n === "string" && n in current))
        return branch.properties as Record<string, JsonSchema | boolean>;
    }
    return {};
  }

  /** Sets holder[key] = value if the whole output still validates; else puts the old value back. */
  private trySet(holder: Holder, key: string, value: unknown): boolean {
    const had = key in holder;
    const old = holder[key];
    holder[key] = value;
    if (this.valid()) return true;
    if (had) holder[key] = old;
    else delete holder[key];
    if (had && value !== null && typeof value !== "object") this.refused.push({ holder, key, value });
    return false;
  }

  /** What the evaluation says for a field of this schema, or undefined when it says nothing. */
  private candidate(s: JsonSchema, field: Field, criterion: Criterion | null, depth = 0): unknown {
    const branches = s.anyOf ?? s.oneOf;
    if (Array.isArray(branches) && !isPlainObject(s.properties)) return this.branchCandidate(s, branches, field, criterion, depth);
    const types = typesOf(s);
    const text = field.text;
    const e = this.source.evaluation;
    if (Array.isArray(s.enum) && s.enum.length > 0) {
      // Two members that say yes and no ("Y"/"N", "Yes"/"No") are a boolean the field's words decide: "Reserve?" is yes
      // when the candidate is held in reserve, not when they pass.
      const yesNo = yesNoPair(s.enum);
      const answer = yesNo ? this.boolean(text, criterion) : undefined;
      if (yesNo && answer !== undefined) return answer ? yesNo.yes : yesNo.no;
      return enumChoice(s.enum, text, e, criterion);
    }
    if (types.has("integer") || types.has("number")) {
      const n = this.number(s, field, criterion);
      return n === undefined ? undefined : fit(n, s, types.has("integer") || !types.has("number"));
    }
    if (types.has("boolean")) return this.boolean(text, criterion);
    if (types.has("string")) {
      const said = this.string(s, field, criterion);
      // A summary or a rationale longer than the field allows is cut at a word, not left out.
      const room = typeof s.maxLength === "number" ? s.maxLength : null;
      if (said === undefined || room === null || said.length <= room || room < 20) return said;
      // (A quote stays the input's own words: cut, not marked.)
      if (/\b(quote|quotes|evidence|excerpt|citation)\b/.test(field.text)) return said.slice(0, room).replace(/\s+\S*$/, "");
      return `${said.slice(0, room - 1).replace(/\s+\S*$/, "")}…`;
    }
    if (types.has("array")) return this.array(s, field, criterion);
    if (types.has("object") && !isPlainObject(s.properties)) return this.scoreMap(s, text);
    return undefined;
  }

  /**
   * anyOf / oneOf at a field ({"anyOf": [{"type": "integer"}, {"type": "null"}], "description": "Percentage mark"}):
   * the first branch other than null that has an answer it accepts, the outer schema saying what the field means.
   */
  private branchCandidate(s: JsonSchema, branches: unknown[], field: Field, criterion: Criterion | null, depth: number): unknown {
    if (depth > 4) return undefined;
    const { anyOf: _a, oneOf: _o, ...outer } = s;
    for (const branch of branches) {
      const part = this.resolve(branch as JsonSchema | boolean);
      const merged = part ? merge([outer, part]) : false;
      if (!isPlainObject(merged) || (typesOf(merged).size === 1 && typesOf(merged).has("null"))) continue;
      const v = this.candidate(merged, field, criterion, depth + 1);
      if (v !== undefined && accepts(withDefs(this.root, merged), v)) return v;
    }
    return undefined;
  }

  private array(s: JsonSchema, field: Field, criterion: Criterion | null): unknown {
    const text = field.text;
    // A tuple (prefixItems, or draft-07's items as a list): each place answered from its own schema and description.
    const tuple = Array.isArray(s.prefixItems) ? s.prefixItems : Array.isArray(s.items) ? s.items : null;
    if (tuple) {
      let answered = false;
      // "[essential criteria met, desirable criteria met]": the array's description names its places in order.
      const named = /\[([^\]]+)\]/.exec(field.text)?.[1].split(/\s*,\s*/) ?? [];
      const list = (tuple as (JsonSchema | boolean)[]).map((p, i) => {
        const place = this.resolve(p) ?? {};
        const v = this.candidate(place, fieldOf(named.length === tuple.length ? named[i] : "", place, field), criterion);
        answered ||= v !== undefined;
        // (A place whose answer its own schema refuses, "" for a minLength 1 name, keeps the rest of the tuple.)
        return v === undefined || !accepts(withDefs(this.root, place), v) ? this.stub(place, `${this.seed}/${field.name}/${i}`) : v;
      });
      return answered ? list : undefined;
    }
    const items = this.resolve((s.items ?? true) as JsonSchema | boolean);
    if (!items) return undefined;
    const itemTypes = typesOf(items);
    const max = typeof s.maxItems === "number" ? s.maxItems : MAX_ARRAY;
    const min = typeof s.minItems === "number" ? s.minItems : 0;
    // The parties the input names (organisations with a defined role): their names, or an object each.
    const parties = this.facts.parties;
    if (!criterion && parties.length > 0 && /\b(parties|party|companies|organi[sz]ations?|counterparties|entities)\b/.test(text)) {
      if (itemTypes.has("string")) return parties.slice(0, max).map((p) => p.name);
      if (itemTypes.has("object")) return parties.slice(0, max).map((p) => this.partyObject(items, p));
    }
    // A list of signatories ("signatories", "firmatari"): each party's signature block, in the parties' order.
    if (!criterion && parties.length > 0 && itemTypes.has("object") && isPlainObject(items.properties) && signs(field)) {
      const list = parties.slice(0, max).map((p) => {
        const stub = this.stub(items, `${this.seed}/${p.name}/signatory`);
        return isPlainObject(stub) ? this.signatory(items, p, stub) : stub;
      });
      if (accepts(withDefs(this.root, s), list)) return list;
    }
    if (
      itemTypes.has("object") &&
      !criterion &&
      (namesCriterion(items) ||
        /\b(criteri|score|rubric|trait|dimension|categor|breakdown|finding|assessment|result|section|item|aspect|area|skill|requirement|competenc|evaluation|feedback|comment|review|observation|clause|check|question|standard|element|point)/.test(
          text,
        ))
    ) {
      // One object per criterion: a stub each, filled in that criterion's context by fill(); stubs make up the
      // number when the schema asks for more items than the rubric has criteria.
      const list = this.source.evaluation.criteria.slice(0, max).map((c) => this.criterionObject(items, c));
      for (let i = list.length; i < min; i++) list.push(this.stub(items, `${this.seed}/pad/${i}`));
      return list;
    }
    if (itemTypes.has("string")) {
      const list = this.strings(text, criterion, min);
      return list ? list.slice(0, max) : undefined;
    }
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
      const n = this.number(values, fieldOf("score", {}), c);
      if (n !== undefined) map[c.title] = fit(n, values, !types.has("number"));
    }
    return map;
  }

  private criterionObject(items: JsonSchema, c: Criterion): unknown {
    const holder: Holder = { v: this.stub(items, `${this.seed}/${c.id}`) };
    // Filled here (not via fill()'s array pass) so that each item knows its criterion.
    const saved = this.valid;
    const { validate } = compileSchema(withDefs(this.root, items));
    this.valid = () => validate(holder.v) === null;
    try {
      this.fill(items, holder, "v", { ...fieldOf("criterion", {}), text: "" }, c);
    } finally {
      this.valid = saved;
    }
    return holder.v;
  }

  /** One party as an object: its name in the field named for a name or company, its role where one says role. */
  private partyObject(items: JsonSchema, p: Party): unknown {
    const value = this.stub(items, `${this.seed}/${p.name}`);
    if (!isPlainObject(value) || !isPlainObject(items.properties)) return value;
    const schema = withDefs(this.root, items);
    for (const [key, sub] of Object.entries(items.properties as Record<string, JsonSchema | boolean>)) {
      const s = this.resolve(sub);
      if (!s) continue;
      const text = fieldOf(key, s).text;
      let v: unknown;
      if (isPlainObject(value[key]) && isPlainObject(s.properties) && wordsOf(key).some((w) => SIGNER.test(w))) v = this.signatory(s, p, value[key]);
      else if (/\b(role|type|capacity|kind)\b/.test(text) && p.role !== null)
        v = Array.isArray(s.enum) ? s.enum.find((m) => typeof m === "string" && sameRole(m.toLowerCase(), p.role as string)) : p.role;
      else if (/\b(name|company|organi[sz]ation|party|entity)\b/.test(text)) v = p.name;
      if (v === undefined) continue;
      const old = value[key];
      value[key] = v;
      if (!accepts(schema, value)) value[key] = old;
    }
    return value;
  }

  /** A plain value of `s` (the least it allows), its strings padded with the evaluation's summary where they need text. */
  private stub(s: JsonSchema, seed: string): unknown {
    return stubOf(this.root, s, seed, this.source.evaluation.summary);
  }

  /** A party's signatory as an object: the "Name:", "Title:" and date of that party's signature block. */
  private signatory(s: JsonSchema, p: Party, stub: Holder): Holder {
    const out = { ...stub };
    for (const key of Object.keys(s.properties as object)) {
      if (!(key in out)) continue;
      const words = wordsOf(key);
      // (In the field's own language read as English: "data_firma" is a date, "qualifica" a title.)
      const text = fieldOf(key, {}).text;
      let v: string | null = null;
      if (/\b(date|on|when|signed|dated)\b/.test(text)) v = this.signedOn([words], p);
      else if (/\b(title|position|role|capacity|job)\b/.test(text)) v = this.signatoryTitle(p);
      else if (/\bname\b/.test(text)) v = this.facts.personName(null, p, true);
      if (v !== null && typeof out[key] === "string") out[key] = v;
    }
    return out;
  }

  private number(s: JsonSchema, field: Field, c: Criterion | null): number | undefined {
    const text = field.text;
    const max = typeof s.maximum === "number" ? s.maximum : typeof s.exclusiveMaximum === "number" ? s.exclusiveMaximum : null;
    const min = typeof s.minimum === "number" ? s.minimum : 0;
    const e = this.source.evaluation;
    if (/\b(confiden|probabil|certaint)/.test(text)) return undefined;
    if (/\byears?\b.*\bexperience|\bexperience\b/.test(text)) return this.facts.years ?? undefined;
    if (!c) {
      const counted = this.count(s, field);
      if (counted !== null) return counted;
    }
    // "marks": {"awarded", "available"}: a number whose own name says nothing takes its meaning from its parent's.
    const parent = field.parent?.own.join(" ") ?? "";
    if (
      !/\b(score|grade|rating|percent|percentage|level|band|star|overall)s?\b|%/.test(text) &&
      /\b(marks?|scores?|points?|grades?|results?|totals?)\b/.test(parent)
    ) {
      const own = field.own.join(" ");
      const of = c ? [c] : e.criteria;
      if (/\b(available|possible|max|maximum|out of|outof)\b/.test(own)) return of.reduce((n, x) => n + x.max_score, 0);
      if (/\b(awarded|achieved|obtained|earned|scored|gained|given|received|got|value|actual|total|raw)\b/.test(own))
        return of.reduce((n, x) => n + x.score, 0);
    }
    if (c) {
      // ("awarded": "Marks awarded (never more than max_marks)" is what the criterion earned, whatever its description names.)
      const earned = /\b(awarded|achieved|obtained|earned|scored|gained|given|received|got|actual)\b/.test(field.own.join(" "));
      if (!earned && /\b(max|maximum|out of|possible|available)\b/.test(text)) return max !== null ? Math.min(max, c.max_score) : c.max_score;
      if (
        /\b(score|grade|point|mark|rating|level|result|value|star|awarded|achieved|obtained|earned|scored|gained|given|received)s?\b/.test(text) ||
        text.trim() === ""
      ) {
        const share = shareOf(c);
        if (/\b(percent|percentage)\b|%/.test(text)) return 100 * share;
        // (One row schema for criteria of several maxima, bounded by the largest: each row's marks as the rubric gives them.)
        const largest = Math.max(...e.criteria.map((x) => x.max_score));
        const raw = max === largest && min <= 0 && e.criteria.some((x) => x.max_score !== largest);
        return max !== null && max !== c.max_score && !raw ? min + share * (max - min) : c.score;
      }
      return undefined;
    }
    if (!SCORE_WORDS.test(text)) return undefined;
    const share = e.score / 100;
    if (max === null && field.outOf !== undefined) return share * field.outOf;
    if (/\b(percent|percentage)\b|%/.test(text) || max === null || max === 100) {
      if (/\b(points?|marks?)\b/.test(text) && max === null) return e.criteria.reduce((n, x) => n + x.score, 0);
      return max !== null && max < 100 ? min + share * (max - min) : e.score;
    }
    return min + share * (max - min);
  }

  /**
   * A count of criteria ("How many of the requirements the CV meets", "Number of the clauses that are present",
   * `clauses_present`): present is above ABSENT, met at the pass share. Undefined when the count falls outside the
   * field's bounds (the field counts something narrower); null when the field is no such count.
   */
  private count(s: JsonSchema, field: Field): number | undefined | null {
    const text = field.text;
    const named =
      /\b(how many|number of|count|no of|tally)\b/.test(text) ||
      /\b(met|present|found|included|satisfied|covered|passed|missing|absent|compliant)$/.test(
        field.own.join(" ").replace(/\s+(?:out\s+)?of\s+\d+$/, ""),
      ) ||
      /\b(?:issue|compliant|met)\s+count$/.test(field.own.join(" "));
    // "essential criteria in the advert", "clauses listed": how many there are, met or not.
    const inTotal =
      /\b(?:in the (?:advert|advertisement|rubric|checklist|job|spec|specification)|listed|in total|asked for)\b/.test(text) &&
      /\b(?:criteri(?:on|a)|requirements?|essentials?|desirables?|clauses?|items?)\b/.test(text);
    if ((!named && !inTotal) || /\b(percent|percentage|pct|share|ratio|fraction|proportion)\b|%/.test(text)) return null;
    // ("issue_count": the clauses missing or not compliant; "compliant_count" those that comply.)
    const kinds: [RegExp, (x: Criterion) => boolean][] = [
      [/\b(missing|absent|omitted|lacking)\b/, (x) => shareOf(x) <= ABSENT],
      [/\b(unmet|not met|not meet|failed|issues?|problems?|non compliant|noncompliant|gaps?)\b/, (x) => shareOf(x) < MET],
      [/\b(present|found|included|covered|addressed|contained)\b/, (x) => shareOf(x) > ABSENT],
      [/\b(meets?|met|satisf\w*|fulfil\w*|passed|achieved|compliant|complies|complying)\b/, (x) => shareOf(x) >= MET],
    ];
    const kind = kinds.find(([re]) => re.test(text));
    const side = this.side(text);
    if (!kind && inTotal) {
      const n = this.source.evaluation.criteria.filter(side).length;
      return accepts(withDefs(this.root, s), n) ? n : undefined;
    }
    if (!kind) return null;
    const n = this.source.evaluation.criteria.filter((x) => side(x) && kind[1](x)).length;
    return accepts(withDefs(this.root, s), n) ? n : undefined;
  }

  /** "essential_met", "missing_essentials", "desirable_met": the required criteria, or the optional ones, or all. */
  private side(text: string): (x: Criterion) => boolean {
    const optional = new Set(this.source.optional ?? []);
    if (/\b(essentials?|required|mandatory|must)\b/.test(text)) return (x) => !optional.has(x.id);
    if (/\b(desirables?|optional|preferred|nice to have|bonus)\b/.test(text)) return (x) => optional.has(x.id);
    return () => true;
  }

  private boolean(text: string, c: Criterion | null): boolean | undefined {
    const e = this.source.evaluation;
    const passed = c ? shareOf(c) >= MET : e.verdict === "pass";
    const present = (x: Criterion) => shareOf(x) > ABSENT;
    if (/\b(fail|failed|reject|rejected|disqualif|resubmi|resit|retake|redo|rework)/.test(text)) return c ? !passed : e.verdict === "fail";
    if (/\b(review|flag|uncertain|manual|reserve|reserved|on hold)\b|\bheld\b/.test(text)) return e.verdict === "needs_review";
    // Of one criterion (a clause, a skill, a requirement): is it there in the input at all (above ABSENT), or met.
    if (c && /\b(missing|absent|lacking|lacks|omitted)\b/.test(text)) return !present(c);
    if (c && /\b(present|found|included|covered|addressed|has|contains?)\b/.test(text)) return present(c);
    if (c && /\b(demonstrated|complete|satisfied|fulfilled|ok)\b/.test(text)) return passed;
    // "True if every required clause is present": all of them there.
    if (!c && /\b(all|every|each)\b/.test(text) && /\b(present|found|included|covered|addressed)\b/.test(text)) return e.criteria.every(present);
    if (
      /\b(pass|passed|passes|meets?|met|qualif|recommend|accept|eligible|hire|approv|suitable|shortlist|proceed|success|satisf|complian)/.test(text)
    )
      return passed;
    return undefined;
  }

  private string(s: JsonSchema, field: Field, c: Criterion | null): string | undefined {
    const e = this.source.evaluation;
    const text = field.text;
    const format = typeof s.format === "string" ? s.format : "";
    const pattern = typeof s.pattern === "string" ? safeRegExp(s.pattern) : null;
    // (A field that spells its date's form, "Available From (DD-MMM-YYYY)", is a date whatever its words.)
    if (format === "date" || format === "date-time" || /\b(date|dob|born|birth|issued|since|yyyy)\b/.test(text)) {
      const d = this.date(field);
      if (!d) return undefined;
      if (format === "date-time") return `${d}T00:00:00Z`;
      // A pattern may ask for another way of writing it ("^\\d{2}/\\d{2}/\\d{4}$"): the first common one it accepts,
      // month first only when the field says so ("MM/DD/YYYY").
      if (!pattern || pattern.test(d)) return d;
      const [y, m, day] = d.split("-");
      const dayFirst = [`${day}/${m}/${y}`, `${day}.${m}.${y}`, `${day}-${m}-${y}`];
      const monthFirst = [`${m}/${day}/${y}`, `${m}-${day}-${y}`];
      const order = /\bmm[/.-]dd\b/.test(text) ? [...monthFirst, ...dayFirst] : [...dayFirst, ...monthFirst];
      // With the month's name ("03-Aug-2026", "3 August 2026", "Aug 3, 2026"), as the pattern asks.
      const month = new Date(Date.UTC(Number(y), Number(m) - 1, 1)).toLocaleString("en-GB", { month: "long", timeZone: "UTC" });
      const mon = month.slice(0, 3);
      const named = [
        `${day}-${mon}-${y}`,
        `${day} ${mon} ${y}`,
        `${Number(day)} ${month} ${y}`,
        `${mon} ${Number(day)}, ${y}`,
        `${month} ${Number(day)}, ${y}`,
      ];
      return [...order, `${y}/${m}/${day}`, `${y}.${m}.${day}`, ...named, ...named.map((x) => x.toUpperCase())].find((x) => pattern.test(x));
    }
    // Contacts and names the input does not state are empty, not placeholders (where the schema allows an empty string).
    if (format === "email" || /\be-?mail\b/.test(text)) {
      // A party's e-mail: the one on the line its role labels ("Customer: ashgrove.legal@example.com, …", notices).
      const party = this.partyOf(field);
      const role = party?.role;
      const labelled = role ? this.facts.label([(l) => sameRole(l.words.join(" "), role) && /@/.test(l.value)], null) : null;
      return /[\w.+-]+@[\w-]+(?:\.[\w-]+)+/.exec(labelled ?? "")?.[0] ?? this.facts.email ?? "";
    }
    if (/\b(phone|telephone|mobile)\b/.test(text)) return this.facts.phone ?? "";
    // "studentId", "candidate_number": the identifier the input states for that person or thing, as the field takes it.
    if (!c && field.own.some((w) => /^(?:id|number|no|ref|reference)$/.test(w))) {
      const id = this.facts.identifier([...field.own, ...(field.parent?.own ?? [])]);
      if (id !== null && (!pattern || pattern.test(id))) return id;
    }
    // A percentage written as text ("81%"), in the form the field's pattern accepts.
    if (/\b(percent|percentage|pct)\b/.test(text) || (typeof s.pattern === "string" && s.pattern.includes("%"))) {
      const n = c ? 100 * shareOf(c) : e.score;
      const forms = [`${Math.round(n)}%`, `${Math.round(n)} %`, `${n.toFixed(1)}%`, `${Math.round(n)}`];
      return pattern ? forms.find((x) => pattern.test(x)) : forms[0];
    }
    if (c) {
      if (
        /\b(rationale|reason|comments?|feedback|feed ?forward|next time|advice|explanation|justification|notes?|assessment|summary|description|remarks?|details?|findings?|observations?|why|issues?|problems?|concerns?|gaps?)\b/.test(
          text,
        )
      )
        return c.rationale;
      // No quote for this criterion: an empty string says so better than a placeholder (kept if the schema allows it).
      if (/\b(quote|evidence|excerpt|citation)\b/.test(text)) return c.evidence[0]?.quote ?? "";
      if (/\b(id|key|code)\b/.test(text)) return c.id;
      if (
        /\b(title|name|criterion|label|category|trait|dimension|aspect|area|topic|section|skill|requirement|competency|standard|element|clause|check|question|point|item)\b/.test(
          text,
        )
      )
        return c.title;
      return undefined;
    }
    // (The field's own name first: "begruendung" is the reasons for the "Entscheidung" its description names.)
    const named = field.own.join(" ");
    const verdict = /\b(verdict|decision|outcome|recommendation|status)\b/;
    if (!verdict.test(named) && SUMMARY.test(named)) return e.summary;
    if (verdict.test(text)) return e.verdict;
    if (SUMMARY.test(text)) return e.summary;
    // "The rubric criterion to work on first", "priorityForImprovement": the weakest criterion's title.
    if (/\b(criterion|criteria|area|skill|priority)\b/.test(text) && /\b(first|priority|weakest|improve|improvement|next)\b/.test(text)) {
      const weakest = [...e.criteria].sort((a, b) => shareOf(a) - shareOf(b))[0];
      if (weakest) return weakest.title;
    }
    if (STRENGTHS_TEXT.test(text) || WEAKNESSES_TEXT.test(text)) return this.strings(text, null)?.join(" ");
    const company = this.company(field);
    if (company !== undefined) return company;
    if (/\b(grade|letter)\b/.test(text)) return letterGrade(e.score);
    // "Teacher: Ms. Karen Doyle", "Class: 10B": the line whose label the field's own name names.
    const party = this.partyOf(field);
    // In a party's object ("disclosing": {"legal_name", "role"}), its name and role, unless the field is its signatory's.
    const signing = signs(field, field.parent);
    if (party && !signing && field.own.includes("name")) return party.name;
    if (party && !signing && field.own.includes("role") && party.role !== null) return party.role;
    // A signatory's "position" or "capacity" is the "Title:" line of its party's block.
    if (party && signing && field.own.some((w) => /^(?:position|title|capacity|job|role)$/.test(w))) return this.signatoryTitle(party) ?? undefined;
    const own = this.facts.label([(l) => !l.words.every((w) => GENERIC.test(w)) && within(field.own)(l)], party);
    if (own !== null) return /\bname\b/.test(text) ? nameAs(own, field, pattern) : own;
    if (
      (/\b(name|candidate|applicant|student|author|person|full name)\b/.test(text) || field.own.some(isMarker)) &&
      !/\b(file|document|company|employer|school|title|id|number|code)\b/.test(text)
    )
      return nameAs(this.personName(field, party), field, pattern);
    // A label its description names ("The candidate's location"), where the label says something of its own.
    return this.facts.label([(l) => !l.words.some((w) => WEAK_LABEL.test(w)) && within(field.described)(l)], party) ?? undefined;
  }

  /** A date field: the date its own words (else its description's) stand near in the input, else a "Date:" line, else the first. */
  private date(field: Field): string | null {
    const party = this.partyOf(field);
    const near = [field.own, field.described];
    return signs(field, field.parent) ? this.signedOn(near, party) : this.facts.dateFor(near, party);
  }

  /** A signatory's date: its own block's "Date:" line first ("signed" stands near every block's date), else near `words`. */
  private signedOn(words: string[][], party: Party | null): string | null {
    const dated = party !== null && this.facts.label([(l) => l.words.join(" ") === "date"], party) !== null;
    return this.facts.dateFor(dated ? [] : words, party);
  }

  /** A signatory's "Title:" (or "Position:", "Capacity:" …) line in its party's block. */
  private signatoryTitle(party: Party): string | null {
    return this.facts.label([(l) => /^(?:title|position|capacity|role|job title)$/.test(l.words.join(" "))], party);
  }

  /**
   * A field meaning an organisation (company, client, supplier, employer …): the party whose defined role its name or
   * its parent's names (`provider.company` is the party defined as "the Provider"), else the first party. Undefined
   * when the field means no organisation, or names a role no party has.
   */
  private company(field: Field): string | undefined {
    // (A signatory's field is the person's, whatever party its description mentions: "the person who signed for this party".)
    const words = signs(field) ? field.own : [...field.own, ...field.described];
    if (this.facts.parties.length === 0 || !words.some((w) => ORGANISATION.test(w))) return undefined;
    const party = this.partyOf(field);
    if (party) return party.name;
    return words.some(isRole) ? undefined : this.facts.parties[0].name;
  }

  /** The party a field is about: the first whose role its own name or an enclosing object's name gives. */
  private partyOf(field: Field): Party | null {
    for (let f: Field | null = field; f; f = f.parent)
      for (const w of f.own) {
        const party = this.facts.partyCalled(w);
        if (party) return party;
      }
    // ("Date the Client signed": a field whose name says nothing, its description names the party.)
    for (const w of field.described) if (isRole(w)) return this.facts.partyCalled(w);
    return null;
  }

  /**
   * A person's name. Whose: the first word of the field's own name that is not "name", else the one its description
   * names ("Name of the class teacher"), else its parent's; a signatory's when the field or its parents say so.
   */
  private personName(field: Field, party: Party | null): string {
    return this.facts.personName(whoOf(field), party, signs(field, field.parent, field.parent?.parent)) ?? "";
  }

  /** A list the evaluation gives for a field of strings; `min` items at least where the schema asks for them. */
  private strings(text: string, c: Criterion | null, min = 0): string[] | undefined {
    const e = this.source.evaluation;
    if (c && /\b(quote|quotes|evidence|excerpt)/.test(text)) return c.evidence.map((q) => q.quote);
    if (c) return undefined;
    // Strengths are the criteria at two thirds or more, weaknesses those below. A schema that wants some when there
    // are none gets the strongest (or weakest) criteria, in that order, named as such.
    const side = this.side(text);
    const ranked = e.criteria.filter(side).sort((a, b) => shareOf(b) - shareOf(a));
    const atLeast = (list: string[], order: Criterion[], label: string) =>
      list.length >= min ? list : [...list, ...order.slice(list.length, min).map((x) => `${x.title}: ${x.score}/${x.max_score} (${label})`)];
    if (STRENGTHS_LIST.test(text))
      return atLeast(
        ranked.filter((x) => shareOf(x) >= 0.67).map((x) => `${x.title}: ${x.score}/${x.max_score}`),
        ranked,
        "none reached two thirds; this one scored highest",
      );
    if (WEAKNESSES_LIST.test(text))
      return atLeast(
        ranked
          .filter((x) => shareOf(x) < 0.67)
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

function fieldOf(name: string, s: JsonSchema, parent: Field | null = null): Field {
  const title = typeof s.title === "string" ? s.title : "";
  const description = typeof s.description === "string" ? s.description : "";
  const text = [name, title, description]
    .join(" ")
    .replace(/([a-z])([A-Z])/g, "$1 $2")
    .replace(/[_\-.]+/g, " ")
    .toLowerCase();
  const own = wordsOf(name);
  const described = wordsOf(`${title} ${description}`);
  // A field named in French, German or Spanish ("note_sur_20", "bestanden", "nombre") means what its English words do:
  // they are added to its own.
  const english = (words: string[]) => words.flatMap((w) => (FOREIGN[bare(w)] ?? AMBIGUOUS[bare(w)] ?? "").split(" ").filter(Boolean));
  if (![...own, ...described].some((w) => bare(w) in FOREIGN)) return { name, text, own, described, parent };
  const ownEnglish = english(own);
  const describedEnglish = english(described);
  return {
    name,
    text: [text, ...ownEnglish, ...describedEnglish].join(" "),
    own: [...ownEnglish, ...own],
    described: [...describedEnglish, ...described],
    parent,
  };
}

/** A field name's scale in brackets at its end: "(max 10)", "(out of 8)", "(0-5)", "(/20)". */
const SCALE_NOTE = /\s*\((?:max(?:imum)?\.?\s*|out of\s*|\/\s*|\d{1,3}\s*[-–]\s*)\d{1,3}\)\s*$/i;

const bare = (word: string) => word.normalize("NFD").replace(/[\u0300-\u036f]/g, "");
/** Field words of other languages that say what a field means, in the English the rules read (accents taken off). */
const FOREIGN: Record<string, string> = {
  // French
  etudiant: "student",
  etudiante: "student",
  eleve: "student",
  nom: "name",
  prenom: "name",
  sur: "out of",
  admis: "passed",
  reussi: "passed",
  appreciation: "comment",
  commentaire: "comment",
  commentaires: "comments",
  criteres: "criteria",
  critere: "criterion",
  candidat: "candidate",
  enseignant: "teacher",
  professeur: "teacher",
  correcteur: "marker",
  courriel: "email",
  entreprise: "company",
  societe: "company",
  signataire: "signatory",
  prestataire: "supplier",
  fournisseur: "supplier",
  synthese: "summary",
  avis: "recommendation",
  effet: "effective",
  manquantes: "missing",
  manquants: "missing",
  conformes: "compliant",
  // German
  schuler: "student",
  schueler: "student",
  schulerin: "student",
  schuelerin: "student",
  bewerber: "applicant",
  bewerberin: "applicant",
  vorname: "name",
  nachname: "name",
  punkte: "points",
  punktzahl: "score",
  gesamtpunktzahl: "total score",
  bestanden: "passed",
  bewertung: "rating",
  kommentar: "comment",
  zusammenfassung: "summary",
  begrundung: "rationale",
  begruendung: "rationale",
  kriterien: "criteria",
  kriterium: "criterion",
  datum: "date",
  entscheidung: "decision",
  empfehlung: "recommendation",
  lehrer: "teacher",
  lehrerin: "teacher",
  prufer: "examiner",
  pruefer: "examiner",
  firma: "company",
  unternehmen: "company",
  starken: "strengths",
  staerken: "strengths",
  schwachen: "weaknesses",
  schwaechen: "weaknesses",
  lieferant: "supplier",
  auftraggeber: "client",
  auftragnehmer: "supplier",
  kaufer: "buyer",
  vertragsbeginn: "start date",
  beginn: "start",
  ende: "end",
  laufzeit: "term",
  grundlaufzeit: "term",
  mangel: "issues",
  beschreibung: "description",
  ampel: "rag",
  ampelbewertung: "rag",
  // Welsh
  enw: "name",
  ymgeisydd: "candidate",
  disgybl: "student",
  myfyriwr: "student",
  cyfanswm: "total",
  marciau: "marks",
  marc: "mark",
  canran: "percent",
  gradd: "grade",
  pasio: "passed",
  dyddiad: "date",
  cyflwyno: "submitted",
  adborth: "feedback",
  sylwadau: "comments",
  cryfderau: "strengths",
  gwendidau: "weaknesses",
  meini: "criteria",
  crynodeb: "summary",
  penderfyniad: "decision",
  // Spanish
  alumno: "student",
  alumna: "student",
  estudiante: "student",
  nombre: "name",
  nota: "mark",
  puntuacion: "score",
  puntos: "points",
  aprobado: "passed",
  comentario: "comment",
  comentarios: "comments",
  resumen: "summary",
  criterios: "criteria",
  criterio: "criterion",
  fecha: "date",
  candidato: "candidate",
  candidata: "candidate",
  profesor: "teacher",
  docente: "teacher",
  profesora: "teacher",
  empresa: "company",
  correo: "email",
  fortalezas: "strengths",
  debilidades: "weaknesses",
  recomendacion: "recommendation",
  // Dutch
  naam: "name",
  voornaam: "first name",
  achternaam: "last name",
  kandidaat: "candidate",
  sollicitant: "applicant",
  leerling: "student",
  docent: "teacher",
  leraar: "teacher",
  beoordelaar: "assessor",
  beoordeling: "assessment",
  cijfer: "grade",
  punten: "points",
  totaal: "total",
  advies: "recommendation",
  besluit: "decision",
  uitslag: "result",
  resultaat: "result",
  toelichting: "rationale",
  samenvatting: "summary",
  opmerkingen: "comments",
  opmerking: "comment",
  sterke: "strengths",
  zwakke: "weaknesses",
  aandachtspunten: "weaknesses",
  verbeterpunten: "improvements",
  eisen: "requirements",
  eis: "requirement",
  essentiele: "essential",
  essentieel: "essential",
  wenselijke: "desirable",
  wenselijk: "desirable",
  voldaan: "met",
  aantal: "number of",
  beschikbaar: "available",
  geslaagd: "passed",
  bedrijf: "company",
  opdrachtgever: "client",
  opdrachtnemer: "supplier",
  leverancier: "supplier",
  ondertekenaar: "signatory",
  handtekening: "signature",
  ingangsdatum: "effective date",
  // Italian
  nome: "name",
  cognome: "last name",
  studente: "student",
  studentessa: "student",
  allievo: "student",
  insegnante: "teacher",
  valutatore: "assessor",
  valutazione: "assessment",
  voto: "grade",
  punteggio: "score",
  punti: "points",
  totale: "total",
  esito: "outcome",
  commento: "comment",
  commenti: "comments",
  sintesi: "summary",
  riepilogo: "summary",
  motivazione: "rationale",
  criteri: "criteria",
  // (Not "firma", a signature in Italian: in German it is the company.)
  firmatari: "signatories",
  firmatario: "signatory",
  azienda: "company",
  committente: "client",
  consulente: "consultant",
  fornitore: "supplier",
  clausole: "clauses",
  clausola: "clause",
  conformi: "compliant",
  mancanti: "missing",
  requisiti: "requirements",
  requisito: "requirement",
  essenziali: "essential",
  desiderabili: "desirable",
  soddisfatti: "met",
  numero: "number of",
  promosso: "passed",
  decorrenza: "effective",
  qualifica: "title",
  carica: "position",
  forza: "strengths",
  debolezze: "weaknesses",
  raccomandazione: "recommendation",
  disponibile: "available",
  // Polish
  uczen: "student",
  uczennica: "student",
  kandydat: "candidate",
  imie: "first name",
  nazwisko: "last name",
  ocena: "grade",
  slownie: "words",
  punkty: "points",
  wynik: "result",
  zaliczone: "passed",
  zaliczony: "passed",
  oddania: "submitted",
  uzasadnienie: "rationale",
  komentarz: "comment",
  podsumowanie: "summary",
  kryteria: "criteria",
  kryterium: "criterion",
  decyzja: "decision",
  // Swedish
  kandidat: "candidate",
  namn: "name",
  krav: "requirement",
  skakrav: "essential requirements",
  meriterande: "desirable",
  uppfyllda: "met",
  uppfyllt: "met",
  antal: "number of",
  belagg: "evidence",
  beslut: "decision",
  motivering: "rationale",
  sammanfattning: "summary",
  tilltrade: "start date",
  betyg: "grade",
  poang: "points",
  // Portuguese
  aluno: "student",
  aluna: "student",
  proprietario: "owner",
  locatario: "hirer",
  locador: "owner",
  contratante: "client",
  contratada: "supplier",
  vigencia: "effective",
  parecer: "recommendation",
  resumo: "summary",
  justificativa: "rationale",
  pontuacao: "score",
  aprovado: "passed",
  assinatura: "signature",
  signatario: "signatory",
};
/** Words that mean something else in English ("note", "mention"): read so only beside a word of FOREIGN. */
const AMBIGUOUS: Record<string, string> = { note: "mark", mention: "grade", total: "total", decision: "decision", data: "date", per: "from" };

/**
 * A person's name as the field keeps it: the first name for "first_name" ("vorname", "forename"), the rest for
 * "last_name" ("surname", "nachname"), "Surname, Forename" where the field's pattern or description asks for it.
 */
function nameAs(given: string, field: Field, pattern: RegExp | null): string {
  // ("Imogen Achterberg (student ID 40718823)": the name, not what the line adds in brackets.)
  const name = given.replace(/\s*\([^)]*\)\s*$/, "");
  const parts = name
    .replace(/^(?:dr|mr|mrs|ms|miss|prof)\.?\s+/i, "")
    .split(/\s+/)
    .filter(Boolean);
  if (parts.length < 2) return name;
  // "Tutor's full name, without title": "Miriam Fenwick-Hale", not "Dr. Miriam Fenwick-Hale".
  if (/\b(?:without|no|excluding|omit(?:ting)?) (?:a |any |the )?(?:title|honorific|prefix)/.test(field.text)) return parts.join(" ");
  const [first, last] = [parts[0], parts.slice(1).join(" ")];
  if (field.own.some((w) => /^(?:first|given|forenames?|vorname|prenom|prénom|voornaam)$/.test(w))) return first;
  if (field.own.some((w) => /^(?:last|surname|family|nachname|apellidos?|achternaam|cognome)$/.test(w))) return last;
  const reversed = `${last}, ${first}`;
  if ((pattern && !pattern.test(name) && pattern.test(reversed)) || /\bsurname,\s*(?:forename|first name|given name)/.test(field.text))
    return reversed;
  return name;
}

/** An object with a field for a criterion's name ("clause", "criterion", "requirement"): a list of them is one per criterion. */
function namesCriterion(items: JsonSchema): boolean {
  if (!isPlainObject(items.properties)) return false;
  return Object.keys(items.properties).some((k) =>
    /^(?:criterion|criteria|clause|requirement|check|skill|competency|trait|standard|dimension|aspect)(?:[ _-]?(?:name|title|ref|label))?$/i.test(k),
  );
}

/** "studentName", "student_name", "Student's name" → student, name. */
function wordsOf(s: string): string[] {
  return s
    .replace(/([a-z])([A-Z])/g, "$1 $2")
    .toLowerCase()
    .split(/[^\p{L}\p{N}'’]+/u)
    .map((w) => w.replace(/['’]s$/, "").replace(/['’]/g, ""))
    .filter((w) => w.length > 0);
}

// A school's "What went well" (WWW) and "Even better if" (EBI): strengths, and what to work on.
const WENT_WELL = "went well|www";
const EVEN_BETTER = "even better if|ebi|targets?|feed ?forward|work on|areas? for development";
/** A text field, or a list, of the strengths or of what to work on (a list takes more words for the second). */
const STRENGTHS_TEXT = new RegExp(String.raw`\b(?:strength|strengths|positive|${WENT_WELL})\b`);
const WEAKNESSES_TEXT = new RegExp(String.raw`\b(?:weakness|weaknesses|improvement|improvements|gap|gaps|concern|concerns|${EVEN_BETTER})\b`);
const STRENGTHS_LIST = new RegExp(String.raw`\b(?:strength|strengths|positive|positives|${WENT_WELL})\b`);
const WEAKNESSES_LIST = new RegExp(
  String.raw`\b(?:weakness|weaknesses|improvement|improvements|gap|gaps|concern|concerns|missing|unmet|risk|risks|next steps?|suggestions?|recommendations|to improve|${EVEN_BETTER})\b`,
);
const OUT_OF = /^(?:out[ _-]?of|max(?:imum)?(?:[ _-]?(?:score|marks?|points?))?|(?:marks?|points?)[ _-]?(?:possible|available)|possible)$/i;
const SCORE_WORDS = /\b(score|grade|point|mark|rating|percent|percentage|total|overall|result|level|band|star)s?\b|%/;
/** Words of a field that holds the evaluation's summary. */
const SUMMARY =
  /\b(summary|overview|comment|comments|feedback|rationale|explanation|reason|reasoning|justification|notes?|assessment|remarks?|evaluation|conclusion|why|message)\b/;
// Words that say nothing of whose name or which date a field holds.
const GENERIC =
  /^(?:name|names|full|first|last|given|family|display|legal|preferred|of|the|a|an|as|on|in|at|by|for|to|is|their|his|her|its|if|known|date|forenames?|surname|vorname|nachname|prenom|prénom|nom|nombre|apellidos?|naam|voornaam|achternaam|nome|cognome)$/;
// Labels too plain to fill a field that merely mentions them in its description.
const WEAK_LABEL =
  /^(?:name|full|date|title|other|notes?|type|status|summary|description|details?|comments?|id|ref|reference|subject|re|to|from|cc)$/;
const SIGNER = /^(?:signatory|signatories|signer|signee|representative|signature|signed|signing)$/;
const ORGANISATION =
  /^(?:company|companies|organi[sz]ations?|org|party|parties|counterparty|provider|client|supplier|customer|employer|vendor|contractor|buyer|seller|purchaser|licensor|licensee|landlord|tenant|lessor|lessee|firm|business|entity|consultant|agency|owner|hirer|venue)$/;
/** Whether any of these fields' own names says it is a signatory's ("signatory", "signed" …). */
const signs = (...fields: (Field | null | undefined)[]) => fields.some((f) => f?.own.some((w) => SIGNER.test(w)));
/** A label all of whose words are among `words`. */
const within = (words: string[]) => (l: Label) => l.words.every((w) => words.includes(w));

/** Whose name a name field holds: its own name's word, else its description's ("name of the class teacher"), else its parent's. */
function whoOf(field: Field): string | null {
  const own = field.own.find((w) => w.length > 1 && !GENERIC.test(w));
  if (own) return own;
  const said = field.described.join(" ");
  const of = /\bname of (?:the |a |an |this |that )?((?:[a-z]+ ){0,3}?[a-z]+)(?= who\b| as\b| on\b| in\b| at\b| if\b| for\b|$)/
    .exec(said)?.[1]
    .split(" ")
    .at(-1);
  const before = /\b([a-z]+)(?: full| first| last| given| legal)? name\b/.exec(said)?.[1];
  for (const w of [of, before]) if (w && !GENERIC.test(w)) return w;
  for (let f = field.parent; f; f = f.parent) {
    // ("who": ["full name", "email"]: a list named by a question says nothing of whose name it is.)
    const word = f.own.find((w) => w.length > 1 && !GENERIC.test(w) && !STRUCTURAL.test(w) && !/^(?:who|whom|whose)$/.test(w));
    if (word) return singular(word);
  }
  return null;
}
const STRUCTURAL =
  /^(?:data|payload|record|details?|info|information|profile|header|body|results?|output|entry|item|row|meta|metadata|object|fields?|report|review)$/;

/** A number as the field takes it: rounded for an integer, to two places otherwise, and to the field's `multipleOf`. */
function fit(n: number, s: JsonSchema, integer: boolean): number {
  const step = typeof s.multipleOf === "number" && s.multipleOf > 0 ? s.multipleOf : null;
  // Rounded to the step's own decimals as well: 32 × 0.5 is 16, but 3 × 0.1 is 0.30000000000000004.
  const snapped = step ? Number((Math.round(n / step) * step).toFixed(Math.min(15, Math.max(0, 2 - Math.floor(Math.log10(step)))))) : n;
  return integer ? Math.round(snapped) : step ? snapped : Math.round(snapped * 100) / 100;
}

function accepts(schema: JsonSchema, value: unknown): boolean {
  try {
    return compileSchema(schema).validate(value) === null;
  } catch {
    return false;
  }
}

function typesOf(s: JsonSchema): Set<string> {
  if (typeof s.type === "string") return new Set([s.type]);
  if (Array.isArray(s.type)) return new Set(s.type as string[]);
  if (isPlainObject(s.properties)) return new Set(["object"]);
  if (s.items !== undefined) return new Set(["array"]);
  return new Set();
}

const VERDICT_WORDS: Record<Evaluation["verdict"], RegExp> = {
  pass: /^(?:pass|passed|yes|true|accept|accepted|approve|approved|hire|strong hire|recommend|recommended|shortlist|shortlisted|proceed|advance|interview|qualified|meets|meets expectations|exceeds expectations|strong|strong yes|definitely|good|satisfactory|competent|proficient|adequate|sign|compliant|oui|ja|si|sí|admis|admise|reçu|reçue|bestanden|aprobado|aprobada|apto|suitable|geeignet|geslaagd|voldoende|uitnodigen|aannemen|ondertekenen|promosso|promossa|approvato|idoneo|idonea|sufficiente|firmare|colloquio|green|grun|grün|approve for signature|approved for signature|ok to sign|zur unterschrift freigeben|unterschreiben|kalla till intervju|intervju|godkänd|godkand|underteckna|zaliczone|zaliczony|zaliczona|zdał|zdal|podpisać|podpisac|aprovado|aprovada|assinar|aprovar|entrevista|y)$/i,
  fail: /^(?:fail|failed|no|false|reject|rejected|decline|declined|not recommended|do not hire|no hire|not hire|unqualified|does not meet|below expectations|weak|insufficient|unsatisfactory|poor|strong no|strong no hire|definitely not|do not sign(?:\s*[–—-].*)?|not compliant|non compliant|non|nein|ajourné|ajourne|refusé|nicht bestanden|suspenso|suspendido|reprobado|no apto|unsuitable|not suitable|nicht geeignet|ungeeignet|gezakt|niet geslaagd|onvoldoende|afwijzen|bocciato|bocciata|respinto|respinta|non idoneo|non idonea|insufficiente|rifiutare|scartare|non firmare|red|rot|nicht unterschreiben|avslag|avslå|avsla|underkänd|underkand|niezaliczone|odrzucić|odrzucic|reprovado|reprovada|recusar|rejeitar|não assinar|nao assinar|n)$/i,
  // A person's call: review, escalate or refer it, return it for amendment, negotiate.
  needs_review:
    /^(?:needs[ _]review|review|further review|maybe|consider|borderline|hold|on hold|uncertain|unsure|partially meets|partially compliant|partly compliant|manual review|undecided|pending|(?:re)?negotiate|amend|revise|resubmit|(?:escalate|escalated|refer|referred|return|returned|send back|sent back)(?: (?:to|for) .+)?|(?:needs|requires) (?:amendment|amendments|changes|revision|negotiation)|conditionally suitable|bedingt geeignet|reserve|hold in reserve|in reserve|reserve list|reserve pool|hold in reserve pool|hold in the reserve pool|waitlist|waitlisted|wait list|reservelijst|twijfel|nader beoordelen|in afwachting|da rivedere|in attesa|lista di riserva|(?:restituire|rinviare|inoltrare)(?: .+)?|amber|yellow|gelb|talent pool|sign (?:only )?after amendments|sign after changes|nach anderungen unterschreiben|nach änderungen unterschreiben|reserv|reservlista|negociar|renegociar|rever|em revisão|em revisao|do weryfikacji|rezerwa|lista rezerwowa)$/i,
};
// Whether a criterion is there at all, in a member's words: above ABSENT is present, at or below it missing.
const PRESENT_WORD = /^(?:present|found|included|covered|addressed|yes|ok)$/i;
const MISSING_WORD = /^(?:missing|absent|not present|not found|not included|omitted|none|no)$/i;

const YES = /^(?:y|yes|true|ja|oui|si|sí|sim|tak)$/i;
const NO = /^(?:n|no|false|nein|non|nee|não|nao|nie)$/i;
/** An enum of two strings, one saying yes and one no; else null. */
function yesNoPair(members: unknown[]): { yes: string; no: string } | null {
  if (members.length !== 2 || !members.every((m): m is string => typeof m === "string")) return null;
  const yes = members.find((m) => YES.test(m.trim()));
  const no = members.find((m) => NO.test(m.trim()));
  return yes !== undefined && no !== undefined ? { yes, no } : null;
}

/** The enum member that says the verdict (or, for letter grades, the score's letter); undefined when none does. */
function enumChoice(members: unknown[], text: string, e: Evaluation, c: Criterion | null): unknown {
  const strings = members.filter((m): m is string => typeof m === "string");
  // "NO_HIRE", "meets-expectations": read as the words they are.
  const words = (m: string) => m.trim().replace(/[_-]+/g, " ");
  if (c) {
    // A list of the rubric's criteria ("Source Analysis", "Historical Context" …): this criterion's own name; a list of
    // maxima ([10, 15, 20]) for its maximum: its own.
    const title = strings.find((m) => m.trim().toLowerCase() === c.title.trim().toLowerCase());
    if (title !== undefined) return title;
    if (/\b(max|maximum|out of|possible|available)\b/.test(text) && members.includes(c.max_score)) return c.max_score;
  }
  // Three or more levels named by quality ("excellent", "good", "fair", "poor"; "exceeds" … "below"): the one at the
  // score's place among them, best first. Severity, priority and risk run the other way: high when the score is low.
  const share = c ? c.score / Math.max(1, c.max_score) : e.score / 100;
  const ranks = strings.map((m) => levelWordRank(words(m)));
  if (strings.length >= 3 && strings.length === members.length && ranks.every((r) => r !== null)) {
    const best = strings.map((m, i) => ({ m, r: ranks[i] as number })).sort((a, b) => a.r - b.r);
    const inverse = /\b(severity|priority|risk|impact|urgency|concern)\b/.test(text);
    // A verdict a person must settle is a middling risk, whatever the score ("medium" of low/medium/high).
    if (inverse && !c && e.verdict === "needs_review") return best[Math.floor((best.length - 1) / 2)].m;
    const at = Math.round((inverse ? share : 1 - share) * (best.length - 1));
    return best[Math.min(best.length - 1, Math.max(0, at))].m;
  }
  const verdict: Evaluation["verdict"] = c ? (shareOf(c) >= MET ? "pass" : "fail") : e.verdict;
  const uk = ukClass(strings, share, verdict);
  if (uk !== undefined) return uk;
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
  if (c) {
    const there = strings.find((m) => (shareOf(c) > ABSENT ? PRESENT_WORD : MISSING_WORD).test(words(m)));
    if (there !== undefined) return there;
  }
  if (verdict === "needs_review") {
    // No member says "review": the evaluation's score decides between the others.
    const fallback = says(e.score >= 50 ? "pass" : "fail");
    if (fallback !== undefined) return fallback;
  }
  // Letter grades, A–F or as English exams write them ("A*" above A, "U" for unclassified below E).
  if (strings.length > 0 && strings.every((m) => /^(?:[A-F][+-]?|A\*|U)$/i.test(m.trim()))) {
    const letter = letterGrade(c ? (100 * c.score) / Math.max(1, c.max_score) : e.score);
    const found = strings.find((m) => m.trim().toUpperCase() === letter) ?? strings.find((m) => m.trim().toUpperCase()[0] === letter);
    // A scale without F fails at its lowest letter ("U").
    return found ?? (letter === "F" ? strings.find((m) => /^U$/i.test(m.trim())) : undefined);
  }
  // Grades written as numbers in strings, best first or last ("9" … "1", "U" below them, as GCSEs are): the one nearest
  // the score on their range; "U" only for work scoring under a tenth.
  const graded = strings.filter((m) => /^\d{1,3}$/.test(m.trim()));
  if (
    graded.length >= 3 &&
    strings.length === members.length &&
    strings.every((m) => /^\d{1,3}$/.test(m.trim()) || /^(?:U|X)$/i.test(m.trim())) &&
    /\b(score|grade|rating|level|points?|band|mark)\b/.test(text)
  ) {
    const unclassified = strings.find((m) => /^(?:U|X)$/i.test(m.trim()));
    if (unclassified !== undefined && share < 0.1) return unclassified;
    return nearestOnScale(graded, Number, share);
  }
  // Numbers: the one nearest the score.
  const numbers = members.filter((m): m is number => typeof m === "number");
  if (numbers.length === members.length && /\b(score|grade|rating|level|points?|band)\b/.test(text)) return nearestOnScale(numbers, (n) => n, share);
  return undefined;
}

/** The member whose value is nearest `share` of the way from the lowest value to the highest (the first of a tie). */
function nearestOnScale<T>(members: T[], value: (m: T) => number, share: number): T {
  const values = members.map(value);
  const [lo, hi] = [Math.min(...values), Math.max(...values)];
  const target = lo + share * (hi - lo);
  return members.reduce((a, b) => (Math.abs(value(b) - target) < Math.abs(value(a) - target) ? b : a));
}

// Classes of UK marking, best first, with the percentage each starts at: degree classes ("First" at 70 %, "2:2" at
// 50 %) and a taught course's "Distinction" (70 %) and "Merit" (60 %); "Pass" and "Third" are the lowest passes.
const UK_CLASSES: [RegExp, number][] = [
  [/^(?:first|1st|distinction)\b/i, 70],
  [/^(?:upper second|2[:.]1|two one|2i|merit)\b/i, 60],
  [/^(?:lower second|2[:.]2|two two|2ii)\b/i, 50],
  [/^(?:third|3rd|pass)\b/i, 40],
];
/**
 * The class of a UK scale ("First", "Upper Second (2:1)", "2:2", "Third", "Fail"; "Distinction", "Merit", "Pass",
 * "Fail") at the score's percentage; its fail member where the verdict is a fail. Undefined when the members are no
 * such scale.
 */
function ukClass(members: string[], share: number, verdict: Evaluation["verdict"]): string | undefined {
  const words = members.map((m) => m.trim().replace(/[_-]+/g, " "));
  const classes = UK_CLASSES.map(([re, from]) => ({ member: members[words.findIndex((w) => re.test(w))], from }));
  const fail = members[words.findIndex((w) => /^fail/i.test(w))];
  const known = (i: number) => UK_CLASSES.some(([re]) => re.test(words[i])) || members[i] === fail;
  if (members.length < 3 || !classes[0].member || !classes[1].member || !members.every((_, i) => known(i))) return undefined;
  const offered = classes.filter((k) => k.member !== undefined);
  if (verdict === "fail" && fail !== undefined) return fail;
  const at = offered.find((k) => 100 * share >= k.from);
  // A pass below every class's start is still a pass: the lowest class.
  return at?.member ?? (verdict === "pass" || fail === undefined ? offered.at(-1)?.member : fail);
}

function letterGrade(score: number): string {
  return score >= 90 ? "A" : score >= 80 ? "B" : score >= 70 ? "C" : score >= 60 ? "D" : "F";
}

function stubOf(root: JsonSchema, s: JsonSchema, seed: string, filler: string): unknown {
  try {
    return stubFromSchema(withDefs(root, s), seed, { plain: true, filler });
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
