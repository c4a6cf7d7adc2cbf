// Test-mode output: deterministic, schema-valid stand-ins for a model's answer (svc_test_ keys never call a model).
import { compileSchema, isPlainObject, type JsonSchema } from "./schema";
import type { EngineDocument, Evaluation, Evidence } from "./types";

type Schema = JsonSchema | boolean;

// Each attempt picks other anyOf/oneOf branches and other members of type arrays;
// the first value the real validator accepts wins.
const ATTEMPTS = 6;
// Past this depth optional properties are left out and arrays get only minItems
// elements, which ends recursive schemas (trees, linked lists).
const OPTIONAL_DEPTH = 8;
const HARD_DEPTH = 48;

/**
 * A value that validates against `schema`, the same for the same seed. Best effort
 * where JSON Schema allows puzzles: "not", "uniqueItems" over enums and patterns beyond
 * the simple subset in patternSample() may produce a value that does not validate; the
 * last resort is then the first attempt.
 * Throws SchemaError if the schema itself is invalid.
 */
export function stubFromSchema(schema: object, seed: string, opts: { plain?: boolean; filler?: string } = {}): unknown {
  const { validate } = compileSchema(schema);
  let first: unknown;
  // With the optional properties first; then without them, which an optional property no value satisfies needs (a
  // deprecated field refused by `"then": false`, a reserved list with minItems 1 and maxItems 0).
  for (const optional of [true, false]) {
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      const generator = new Generator(schema as JsonSchema, `${seed}#${attempt}`, attempt, opts.plain ?? false, optional, opts.filler);
      const value = generator.value(schema as JsonSchema, "", 0, 0);
      if (validate(value) === null) return value;
      if (attempt === 0 && optional) first = value;
    }
  }
  // Plain values the schema refuses everywhere (a "not": {"const": ""}): the test-mode ones, which vary.
  return opts.plain ? stubFromSchema(schema, seed) : first;
}

class Generator {
  private readonly next: () => number;
  private branchOffset = 0;

  constructor(
    private readonly root: JsonSchema,
    seed: string,
    private readonly attempt: number,
    /** Values that claim nothing (the lowest number allowed, an empty string, false) instead of varied stand-ins. */
    private readonly plain = false,
    /** Whether objects get their optional properties too (down to OPTIONAL_DEPTH). */
    private readonly optional = true,
    /** Plain text that pads a string up to a minLength over 10 (a live run's summary), instead of the word "stub". */
    private readonly filler = "stub",
  ) {
    this.next = mulberry32(hash(seed));
  }

  value(schema: Schema | undefined, name: string, depth: number, index: number): unknown {
    if (schema === false || depth > HARD_DEPTH) return null;
    const node: Schema = schema === undefined || schema === true ? {} : schema;
    const branches = isPlainObject(node) ? ((node.anyOf ?? node.oneOf) as Schema[] | undefined) : undefined;
    if (!Array.isArray(branches) || branches.length < 2) return this.fromNode(node, name, depth, index, 0);
    // Try each branch until the value passes this node's own check: oneOf [integer, number]
    // needs a value that only one branch accepts.
    const check = this.localCheck(node as JsonSchema);
    let first: unknown;
    for (let k = 0; k < branches.length; k++) {
      const v = this.fromNode(node, name, depth, index, k);
      if (!check || check(v)) return v;
      if (k === 0) first = v;
    }
    return first;
  }

  /** A validator for one sub-schema, with the root's definitions so local $refs resolve; null if that fails. */
  private localCheck(node: JsonSchema): ((v: unknown) => boolean) | null {
    try {
      const { $schema, $defs, definitions } = this.root;
      const { validate } = compileSchema(stripUndefined({ $schema, $defs, definitions, ...node }));
      return (v) => validate(v) === null;
    } catch {
      return null;
    }
  }

  private fromNode(node: Schema, name: string, depth: number, index: number, branchOffset: number): unknown {
    this.branchOffset = branchOffset;
    const flat = this.flatten(node);
    if (flat === false) return null;
    const s: JsonSchema = flat === true ? {} : flat;
    if ("const" in s) return structuredClone(s.const);
    if (Array.isArray(s.enum) && s.enum.length > 0) return structuredClone(s.enum[index % s.enum.length]);
    // The schema author's own examples read better than generated text (the value is still validated).
    if (this.attempt === 0 && Array.isArray(s.examples) && s.examples.length > 0) return structuredClone(s.examples[index % s.examples.length]);
    if (s.if !== undefined && (s.then !== undefined || s.else !== undefined)) return this.conditional(s, name, depth, index, branchOffset);
    switch (this.pickType(s, depth)) {
      case "object":
        return this.object(s, depth);
      case "array":
        return this.array(s, name, depth);
      case "integer":
        return this.number(s, true);
      case "number":
        return this.number(s, false);
      case "boolean":
        return this.plain ? false : this.int(0, 1) === 1;
      case "null":
        return null;
      default:
        return this.string(s, name);
    }
  }

  /** Resolve $ref, allOf and anyOf/oneOf (one branch) into one plain schema. */
  private flatten(schema: Schema, hops = 0): Schema {
    // A reference cycle with nothing in between ($ref: "#" at the root, a -> b -> a) means "anything".
    if (hops > 32) return true;
    let cur: Schema = schema;
    for (let guard = 0; guard < 32 && isPlainObject(cur); guard++) {
      const { $ref, allOf, anyOf, oneOf, ...rest } = cur;
      if (typeof $ref === "string") cur = merge([this.flatten(this.resolve($ref), hops + 1), { ...rest, allOf, anyOf, oneOf }]);
      else if (Array.isArray(allOf)) cur = merge([{ ...rest, anyOf, oneOf }, ...allOf.map((p) => this.flatten(p as Schema, hops + 1))]);
      else if (Array.isArray(anyOf ?? oneOf)) {
        const branches = (anyOf ?? oneOf) as Schema[];
        const branch = branches[(this.attempt + this.branchOffset) % branches.length];
        this.branchOffset = 0; // only the node's own choice is steered, nested ones follow the attempt
        // With both present, anyOf is taken first and oneOf stays for the next round.
        cur = merge([{ ...rest, ...(anyOf ? { oneOf } : {}) }, this.flatten(branch, hops + 1)]);
      } else return stripUndefined(cur);
    }
    return cur;
  }

  /** Local references only (#, #/$defs/x, #/definitions/x, any JSON pointer); others accept anything. */
  private resolve(ref: string): Schema {
    if (ref === "#") return this.root;
    if (!ref.startsWith("#/")) return true;
    let at: unknown = this.root;
    for (const raw of ref.slice(2).split("/")) {
      const key = decodeURIComponent(raw).replace(/~1/g, "/").replace(/~0/g, "~");
      if (!isPlainObject(at) && !Array.isArray(at)) return true;
      at = (at as Record<string, unknown>)[key];
    }
    return isPlainObject(at) || typeof at === "boolean" ? at : true;
  }

  /**
   * if/then/else: a value from the base with `if` and `then` merged (so it meets the condition), else one from the base
   * with `else` that does not meet it; the first that the whole node accepts.
   */
  private conditional(s: JsonSchema, name: string, depth: number, index: number, branchOffset: number): unknown {
    const { if: condition, then: yes, else: no, ...base } = s;
    const meets = typeof condition === "boolean" ? () => condition : this.localCheck(condition as JsonSchema);
    const whole = this.localCheck(s);
    const options: [Schema, boolean][] = [
      [merge([base, condition as Schema, (yes ?? true) as Schema]), true],
      [merge([base, (no ?? true) as Schema]), false],
    ];
    let first: unknown;
    for (const [i, [branch, wanted]] of options.entries()) {
      const v = this.fromNode(branch, name, depth, index, branchOffset);
      if (meets && meets(v) === wanted && (!whole || whole(v))) return v;
      if (i === 0) first = v;
    }
    return first;
  }

  private pickType(s: JsonSchema, depth: number): string {
    const declared = typeof s.type === "string" ? [s.type] : Array.isArray(s.type) ? (s.type as string[]) : null;
    if (declared && declared.length > 0) {
      // Prefer a real value over null; later attempts try the other members.
      const ordered = [...declared.filter((t) => t !== "null"), ...declared.filter((t) => t === "null")];
      return ordered[this.attempt % ordered.length];
    }
    const has = (...keys: string[]) => keys.some((k) => k in s);
    if (has("properties", "required", "additionalProperties", "patternProperties", "minProperties")) return "object";
    if (has("items", "prefixItems", "minItems", "maxItems", "contains")) return "array";
    if (has("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf")) return "number";
    // A schema that says nothing ({}) at the root: a run's output is an object.
    return depth === 0 ? "object" : "string";
  }

  private object(schema: JsonSchema, depth: number): Record<string, unknown> {
    const s = this.withDependencies(schema, depth);
    const props = isPlainObject(s.properties) ? (s.properties as Record<string, Schema>) : {};
    const required = new Set(Array.isArray(s.required) ? (s.required as string[]) : []);
    const extra = s.additionalProperties === undefined ? true : (s.additionalProperties as Schema);
    const out: Record<string, unknown> = {};
    for (const [key, sub] of Object.entries(props)) {
      if (required.has(key) || (this.optional && depth < OPTIONAL_DEPTH)) out[key] = this.value(sub, key, depth + 1, 0);
    }
    for (const key of required) {
      if (!(key in out)) out[key] = this.value(patternPropertyFor(s, key) ?? extra, key, depth + 1, 0);
    }
    const minProperties = typeof s.minProperties === "number" ? s.minProperties : 0;
    for (let n = 1; Object.keys(out).length < minProperties && n < 1000; n++) {
      const key = this.extraKey(s, out, n);
      if (key === null) break;
      out[key] = this.value(patternPropertyFor(s, key) ?? extra, key, depth + 1, 0);
    }
    return out;
  }

  /**
   * The schema with what the properties it will have depend on (dependentSchemas, dependentRequired, draft-07
   * dependencies) merged in, so `{"passed": …}` comes with the `certificate` that `passed` requires.
   */
  private withDependencies(s: JsonSchema, depth: number): JsonSchema {
    const schemas: Record<string, Schema> = {};
    const requires: Record<string, string[]> = {};
    for (const source of [s.dependencies, s.dependentSchemas, s.dependentRequired]) {
      if (!isPlainObject(source)) continue;
      for (const [key, dep] of Object.entries(source)) {
        if (Array.isArray(dep)) requires[key] = dep as string[];
        else if (isPlainObject(dep) || typeof dep === "boolean") schemas[key] = dep as Schema;
      }
    }
    if (Object.keys(schemas).length === 0 && Object.keys(requires).length === 0) return s;
    let cur: JsonSchema = s;
    const applied = new Set<string>();
    for (let round = 0; round < 8; round++) {
      const present = new Set(Array.isArray(cur.required) ? (cur.required as string[]) : []);
      if (this.optional && depth < OPTIONAL_DEPTH && isPlainObject(cur.properties)) for (const key of Object.keys(cur.properties)) present.add(key);
      const next = [...present].filter((key) => !applied.has(key) && (key in schemas || key in requires));
      if (next.length === 0) break;
      for (const key of next) {
        applied.add(key);
        const flat = key in schemas ? this.flatten(schemas[key]) : true;
        const merged = merge([cur, flat, { required: requires[key] ?? [] }]);
        if (merged !== false && merged !== true) cur = merged;
      }
    }
    return cur;
  }

  /**
   * A name for the n-th property beyond the named ones (minProperties): one the schema allows, by propertyNames and,
   * when additionalProperties is false, by patternProperties. Null when none of the candidates is allowed.
   */
  private extraKey(s: JsonSchema, out: Record<string, unknown>, n: number): string | null {
    const patterns = isPlainObject(s.patternProperties) ? Object.keys(s.patternProperties) : [];
    const names = isPlainObject(s.propertyNames) || typeof s.propertyNames === "boolean" ? (s.propertyNames as Schema) : true;
    const nameOk = names === true ? () => true : names === false ? () => false : this.localCheck(names as JsonSchema);
    const letters = (k: number): string => (k <= 0 ? "" : letters(Math.floor((k - 1) / 26)) + String.fromCharCode(97 + ((k - 1) % 26)));
    // (Every name a pattern allows, in order, before variations of one: "^C(0[1-9]|10)$" names C01 to C10.)
    const samples = [...patterns, ...(isPlainObject(names) && typeof names.pattern === "string" ? [names.pattern] : [])].flatMap((p) => {
      const sample = patternSample(p, true, this.next);
      return [...patternStrings(p, n + 1), ...(sample === null ? [] : [sample, `${sample}${n}`, `${sample}_${n}`, `${sample}${letters(n)}`])];
    });
    // (Names the schema lists, "propertyNames": {"enum": [the criteria]}, first.)
    const listed = isPlainObject(names)
      ? [...(Array.isArray(names.enum) ? names.enum : []), names.const].filter((k): k is string => typeof k === "string")
      : [];
    const candidates = [...listed, ...samples, `extra_${n}`, `extra${letters(n)}`, `field${letters(n)}`, `item${n}`];
    const allowed = (key: string) =>
      !(key in out) && (!nameOk || nameOk(key)) && (s.additionalProperties !== false || patterns.some((p) => safeRegExp(p)?.test(key)));
    return candidates.find(allowed) ?? null;
  }

  private array(s: JsonSchema, name: string, depth: number): unknown[] {
    // Tuples: draft 2020-12 prefixItems + items, or draft-07 items[] + additionalItems.
    const tuple = (Array.isArray(s.prefixItems) ? s.prefixItems : Array.isArray(s.items) ? s.items : []) as Schema[];
    const rest = (Array.isArray(s.items) ? s.additionalItems : s.prefixItems ? s.items : s.items) as Schema | undefined;
    const min = typeof s.minItems === "number" ? s.minItems : 0;
    const max = typeof s.maxItems === "number" ? s.maxItems : Number.POSITIVE_INFINITY;
    // A plain value claims nothing: a list of values gets no more items than the schema asks for (an optional "flags"
    // list stays empty). A list of objects keeps one, for the evaluation's findings to fill.
    const item = this.flatten(rest ?? true);
    const values = this.plain && !(isPlainObject(item) && this.pickType(item, depth + 1) === "object");
    const contains = [s.contains, ...((s[CONTAINS_EACH] as Schema[] | undefined) ?? [])].filter((c) => c !== undefined) as Schema[];
    let count = Math.max(depth < OPTIONAL_DEPTH && !values ? Math.max(min, 1, tuple.length) : Math.max(min, tuple.length), contains.length);
    if (rest === false) count = Math.min(count, tuple.length);
    count = Math.min(count, max);
    const itemName = singular(name);
    const out: unknown[] = [];
    for (let i = 0; i < count; i++) {
      let sub: Schema = i < tuple.length ? tuple[i] : (rest ?? true);
      if (i < contains.length) sub = { allOf: [sub, contains[i]] };
      out.push(this.value(sub, itemName, depth + 1, s.uniqueItems === true ? i : 0));
    }
    return out;
  }

  private number(s: JsonSchema, integer: boolean): number {
    // draft-04 style boolean exclusiveMinimum/Maximum modify minimum/maximum.
    const exMin = typeof s.exclusiveMinimum === "number" ? s.exclusiveMinimum : s.exclusiveMinimum === true ? s.minimum : undefined;
    const exMax = typeof s.exclusiveMaximum === "number" ? s.exclusiveMaximum : s.exclusiveMaximum === true ? s.maximum : undefined;
    const incMin = s.exclusiveMinimum === true ? undefined : (s.minimum as number | undefined);
    const incMax = s.exclusiveMaximum === true ? undefined : (s.maximum as number | undefined);
    const lows = [incMin, exMin].filter((x): x is number => typeof x === "number");
    const highs = [incMax, exMax].filter((x): x is number => typeof x === "number");
    let lo = lows.length ? Math.max(...lows) : this.plain ? Math.min(0, ...highs) : highs.length ? Math.min(...highs) - 100 : 1;
    let hi = highs.length ? Math.min(...highs) : lo + 99;
    const step = typeof s.multipleOf === "number" && s.multipleOf > 0 ? s.multipleOf : integer ? 1 : 0;
    const strictLo = exMin !== undefined && lo === exMin;
    const strictHi = exMax !== undefined && hi === exMax;
    if (step > 0) {
      // Multiples of step within the bounds, exclusive ends skipped.
      let k0 = Math.ceil(lo / step - 1e-9);
      let k1 = Math.floor(hi / step + 1e-9);
      if (strictLo && Math.abs(k0 * step - lo) < 1e-9) k0++;
      if (strictHi && Math.abs(k1 * step - hi) < 1e-9) k1--;
      if (integer && !Number.isInteger(step)) {
        // Need an integer multiple of a fractional step: walk a few multiples.
        for (let k = k0; k <= Math.min(k1, k0 + 1000); k++) if (Number.isInteger(roundTo(k * step, step))) return roundTo(k * step, step);
      }
      const k = k1 >= k0 && !this.plain ? k0 + this.int(0, Math.min(k1 - k0, 99)) : k0;
      return roundTo(k * step, step);
    }
    if (strictLo) lo += Math.min(1, (hi - lo) / 4);
    if (strictHi) hi -= Math.min(1, (hi - lo) / 4);
    if (this.plain) return lo;
    // Two decimals, strictly inside; a non-integer so that oneOf [number, integer] can tell them apart.
    const v = Math.round((lo + (hi - lo) * (0.1 + 0.8 * this.next())) * 100) / 100;
    const candidate = Number.isInteger(v) && hi - lo > 0.02 ? v + 0.01 : v;
    return candidate > lo && candidate < hi ? candidate : (lo + hi) / 2;
  }

  private string(s: JsonSchema, name: string): string {
    const min = typeof s.minLength === "number" ? s.minLength : 0;
    const max = typeof s.maxLength === "number" ? s.maxLength : Number.POSITIVE_INFINITY;
    // Padded by code points in one pass (re-spreading the string per step was quadratic in minLength).
    // (A plain value a field needs a little of, a name no one stated, says so; one that needs text gets the filler.)
    const pad = !this.plain ? "stub" : min > 10 ? this.filler : "not stated";
    const fitted = (t: string) => {
      const chars = [...t];
      if (chars.length === 0 && min > 0) chars.push(...pad);
      while (chars.length < min) chars.push(..." ", ...pad);
      return chars.slice(0, Math.max(min, Math.min(max, chars.length))).join("");
    };
    const formatted = typeof s.format === "string" ? this.formatted(s.format) : null;
    const base = formatted ?? (this.plain ? fitted("") : fitted(`${name ? humanize(name) : "text"} (stub ${this.hex(4)})`));
    if (typeof s.pattern !== "string") return base;
    const re = safeRegExp(s.pattern);
    if (!re) return base;
    const candidates = [
      base,
      patternSample(s.pattern, false, this.next),
      patternSample(s.pattern, true, this.next),
      fitted(""),
      fitted("stub"),
      fitted("Stub 1"),
      fitted("A"),
      fitted("a"),
      fitted("0"),
    ];
    const ok = (c: string | null): c is string => c !== null && re.test(c) && [...c].length >= min && [...c].length <= max;
    return candidates.find(ok) ?? base;
  }

  private formatted(format: string): string | null {
    const day = new Date(Date.UTC(2024, 0, 1) + this.int(0, 364) * 86_400_000);
    const date = day.toISOString().slice(0, 10);
    const time = `${String(this.int(8, 17)).padStart(2, "0")}:${this.int(0, 1) ? "30" : "00"}:00`;
    switch (format) {
      case "date-time":
      case "iso-date-time":
        return `${date}T${time}Z`;
      case "date":
        return date;
      case "time":
      case "iso-time":
        return `${time}Z`;
      case "email":
      case "idn-email":
        return `stub.${this.hex(4)}@example.com`;
      case "uri":
      case "url":
      case "iri":
      case "uri-reference":
      case "iri-reference":
        return `https://example.com/stub/${this.hex(6)}`;
      case "uri-template":
        return "https://example.com/stub/{id}";
      case "uuid": {
        const h = this.hex(32).split("");
        h[12] = "4";
        h[16] = "89ab"[this.int(0, 3)];
        const x = h.join("");
        return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20)}`;
      }
      case "hostname":
      case "idn-hostname":
        return "stub.example.com";
      case "ipv4":
        return `192.0.2.${this.int(1, 254)}`; // TEST-NET-1, never routed
      case "ipv6":
        return `2001:db8::${this.int(1, 254).toString(16)}`;
      case "duration":
        return `P${this.int(1, 30)}D`;
      case "json-pointer":
        return "/stub";
      case "relative-json-pointer":
        return "0";
      case "regex":
        return "^stub$";
      case "byte":
        return "c3R1Yg==";
      default:
        return null;
    }
  }

  private int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }

  private hex(n: number): string {
    let s = "";
    while (s.length < n) s += Math.floor(this.next() * 16).toString(16);
    return s;
  }
}

/** allOf, flattened: properties and required unioned, bounds tightened, types intersected, the rest last-wins. */
export function merge(parts: Schema[]): Schema {
  const out: JsonSchema = {};
  for (const part of parts) {
    if (part === false) return false;
    if (part === true) continue;
    for (const [k, v] of Object.entries(part)) {
      if (v === undefined) continue;
      const prev = out[k];
      if (prev === undefined) out[k] = v;
      else if (k === "properties" && isPlainObject(prev) && isPlainObject(v)) {
        const props: JsonSchema = { ...prev };
        for (const [p, sub] of Object.entries(v)) props[p] = p in props ? { allOf: [props[p], sub] } : sub;
        out[k] = props;
      } else if (k === "required" && Array.isArray(prev) && Array.isArray(v)) out[k] = [...new Set([...prev, ...v])];
      else if (k === "type") out[k] = intersectTypes(prev, v);
      else if (["minimum", "exclusiveMinimum", "minLength", "minItems", "minProperties"].includes(k) && typeof v === "number")
        out[k] = Math.max(prev as number, v);
      else if (["maximum", "exclusiveMaximum", "maxLength", "maxItems", "maxProperties"].includes(k) && typeof v === "number")
        out[k] = Math.min(prev as number, v);
      else if ((k === "items" || k === "additionalProperties") && isPlainObject(prev) && isPlainObject(v)) out[k] = { allOf: [prev, v] };
      // Two "contains" ask for an item each (a key date labelled "termCommencement", another "breakDate"), not one item
      // that is both.
      else if (k === "contains") out[CONTAINS_EACH] = [...((out[CONTAINS_EACH] as Schema[] | undefined) ?? []), v];
      else if (k === "additionalProperties" && (prev === false || v === false)) out[k] = false;
      else if (k === "enum" && Array.isArray(prev) && Array.isArray(v)) {
        const both = prev.filter((x) => v.some((y) => JSON.stringify(x) === JSON.stringify(y)));
        out[k] = both.length ? both : v;
      } else out[k] = v;
    }
  }
  return out;
}

function intersectTypes(a: unknown, b: unknown): unknown {
  const as = Array.isArray(a) ? (a as string[]) : [a as string];
  const bs = Array.isArray(b) ? (b as string[]) : [b as string];
  const both = new Set<string>();
  for (const t of as) {
    if (bs.includes(t)) both.add(t);
    else if (t === "integer" && bs.includes("number")) both.add("integer");
    else if (t === "number" && bs.includes("integer")) both.add("integer");
  }
  return both.size ? [...both] : b;
}

function stripUndefined(s: JsonSchema): JsonSchema {
  return Object.fromEntries(Object.entries(s).filter(([, v]) => v !== undefined));
}

function roundTo(v: number, step: number): number {
  const decimals = Math.min(12, (String(step).split(".")[1] ?? "").length);
  return Number(v.toFixed(decimals));
}

function humanize(name: string): string {
  return (
    name
      .replace(/[_-]+/g, " ")
      .replace(/([a-z])([A-Z])/g, "$1 $2")
      .trim() || "text"
  );
}

function singular(name: string): string {
  if (!name) return "item";
  return name.endsWith("ies") ? `${name.slice(0, -3)}y` : name.endsWith("s") && !name.endsWith("ss") ? name.slice(0, -1) : name;
}

/** A schema's pattern as ajv reads it (unicode), or null when JavaScript cannot compile it. */
export function safeRegExp(pattern: string): RegExp | null {
  try {
    return new RegExp(pattern, "u"); // ajv compiles patterns with the unicode flag too
  } catch {
    return null;
  }
}

/** The schema of the first of an object's patternProperties whose pattern the key matches; undefined when none does. */
export function patternPropertyFor(s: JsonSchema, key: string): Schema | undefined {
  if (!isPlainObject(s.patternProperties)) return undefined;
  for (const [pattern, sub] of Object.entries(s.patternProperties)) {
    if (safeRegExp(pattern)?.test(key)) return sub as Schema;
  }
  return undefined;
}

/** Where merging allOf parts keeps each "contains" after the first: each asks for an item of its own. */
const CONTAINS_EACH = "x-assay-contains-each";

/**
 * A string for the simple regular expressions output schemas use: literals, escapes
 * (\d \w \s and escaped punctuation), classes [a-z0-9_] and [^...], ".", groups with
 * alternation (the first alternative), quantifiers ? * + {n} {n,} {n,m}. Back-references,
 * lookarounds and unicode properties are not understood: null, and the caller falls
 * back to plain candidates. `minimal` takes every quantifier at its least.
 */
function patternSample(pattern: string, minimal: boolean, next: () => number): string | null {
  try {
    const parser = new PatternParser(pattern);
    const alternatives = parser.alternation();
    if (!parser.done()) return null;
    return emit(alternatives[0], minimal, next);
  } catch {
    return null;
  }
}

// A parsed pattern piece: a set of characters to choose from, or a group's alternatives.
type PatternNode = { chars?: string; group?: PatternNode[][]; lo: number; hi: number };

const DIGITS = "0123456789";
const WORD = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_";
const UNSUPPORTED = new Error("unsupported pattern");

class PatternParser {
  private i = 0;
  constructor(private readonly p: string) {}

  done(): boolean {
    return this.i >= this.p.length;
  }

  alternation(): PatternNode[][] {
    const alternatives: PatternNode[][] = [[]];
    while (this.i < this.p.length && this.p[this.i] !== ")") {
      const c = this.p[this.i];
      if (c === "|") {
        alternatives.push([]);
        this.i++;
      } else if (c === "^" || c === "$") this.i++;
      else alternatives[alternatives.length - 1].push(this.quantified(this.atom()));
    }
    return alternatives;
  }

  private atom(): PatternNode {
    const c = this.p[this.i++];
    if (c === "(") {
      if (this.p[this.i] === "?") {
        if (this.p[this.i + 1] !== ":") throw UNSUPPORTED; // lookarounds, named groups
        this.i += 2;
      }
      const group = this.alternation();
      if (this.p[this.i++] !== ")") throw UNSUPPORTED;
      return { group, lo: 1, hi: 1 };
    }
    if (c === "[") return { chars: this.charClass(), lo: 1, hi: 1 };
    if (c === "\\") return { chars: this.escape(this.p[this.i++]), lo: 1, hi: 1 };
    if (c === ".") return { chars: "a", lo: 1, hi: 1 };
    if (c === "*" || c === "+" || c === "?" || c === "{" || c === undefined) throw UNSUPPORTED;
    return { chars: c, lo: 1, hi: 1 };
  }

  private quantified(node: PatternNode): PatternNode {
    const q = this.p[this.i];
    if (q === "?" || q === "*" || q === "+") {
      node.lo = q === "+" ? 1 : 0;
      node.hi = q === "?" ? 1 : node.lo + 2;
      this.i++;
    } else if (q === "{") {
      const m = /^\{(\d+)(,(\d*))?\}/.exec(this.p.slice(this.i));
      if (!m) throw UNSUPPORTED;
      node.lo = Number(m[1]);
      node.hi = m[2] === undefined ? node.lo : m[3] ? Number(m[3]) : node.lo + 2;
      this.i += m[0].length;
    } else return node;
    if (this.p[this.i] === "?") this.i++; // lazy: the same strings match
    return node;
  }

  private escape(c: string | undefined): string {
    if (c === undefined || /[bBpPkcux0-9]/.test(c)) throw UNSUPPORTED;
    if (c === "d") return DIGITS;
    if (c === "w") return WORD;
    if (c === "s") return " ";
    if (c === "D" || c === "W") return "-";
    if (c === "S") return "a";
    return c === "n" ? "\n" : c === "t" ? "\t" : c;
  }

  private charClass(): string {
    const negated = this.p[this.i] === "^";
    if (negated) this.i++;
    let members = "";
    while (this.p[this.i] !== "]") {
      if (this.i >= this.p.length) throw UNSUPPORTED;
      let c = this.p[this.i++];
      if (c === "\\") {
        const set = this.escape(this.p[this.i++]);
        if (set.length > 1) {
          members += set;
          continue;
        }
        c = set;
      }
      if (this.p[this.i] === "-" && this.p[this.i + 1] !== "]" && this.p[this.i + 1] !== undefined) {
        this.i++;
        let end = this.p[this.i++];
        if (end === "\\") end = this.escape(this.p[this.i++]);
        for (let code = c.charCodeAt(0); code <= end.charCodeAt(0) && members.length < 512; code++) members += String.fromCharCode(code);
      } else members += c;
    }
    this.i++; // ]
    if (!negated) {
      if (!members) throw UNSUPPORTED;
      return members;
    }
    const outside = ["a", "A", "0", "-", "_", " "].find((c) => !members.includes(c));
    if (!outside) throw UNSUPPORTED;
    return outside;
  }
}

/**
 * The first `limit` strings a simple pattern matches, in order (each class's characters as written, each group's
 * alternatives in turn, quantifiers at their least): "^C(0[1-9]|10)$" gives C01 … C09, C10. Empty when the pattern is
 * not understood.
 */
function patternStrings(pattern: string, limit: number): string[] {
  try {
    const parser = new PatternParser(pattern);
    const alternatives = parser.alternation();
    if (!parser.done()) return [];
    return alternatives.flatMap((a) => spell(a, limit)).slice(0, limit);
  } catch {
    return [];
  }
}

function spell(nodes: PatternNode[], limit: number): string[] {
  let out = [""];
  for (const node of nodes) {
    const options = node.group ? node.group.flatMap((a) => spell(a, limit)) : [...(node.chars ?? "")];
    for (let n = 0; n < node.lo; n++) out = out.flatMap((head) => options.map((o) => head + o)).slice(0, limit);
  }
  return out;
}

function emit(nodes: PatternNode[], minimal: boolean, next: () => number): string {
  let out = "";
  for (const node of nodes) {
    const times = minimal ? node.lo : Math.max(node.lo, Math.min(node.hi, 1));
    for (let n = 0; n < times; n++) {
      if (node.group) out += emit(node.group[0], minimal, next);
      else if (node.chars) out += node.chars[Math.floor(next() * node.chars.length)];
    }
  }
  return out;
}

// cyrb53-style string hash and mulberry32: tiny, deterministic, good enough for stubs.
function hash(s: string): number {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 2654435761);
    h2 = Math.imul(h2 ^ c, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  return h1 >>> 0;
}

function mulberry32(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// ---------------------------------------------------------------------------

export interface StubEvaluationContext {
  /** The rubric's criteria, when known; else two generic ones. */
  criteria?: { id: string; title: string }[];
  /** Input documents: each criterion then quotes a real line of the first one. */
  documents?: EngineDocument[];
}

/** The standard evaluation object for test mode, labelled as such, the same for the same seed. */
export function stubEvaluation(seed: string, context: StubEvaluationContext = {}): Evaluation {
  const next = mulberry32(hash(seed));
  const criteria = context.criteria?.length
    ? context.criteria
    : [
        { id: "criterion_1", title: "Completeness" },
        { id: "criterion_2", title: "Accuracy" },
      ];
  const evidence = stubEvidence(context.documents ?? []);
  const scored = criteria.map((c) => {
    const score = Math.round(next() * 10);
    return {
      id: c.id,
      title: c.title,
      score,
      max_score: 10,
      rationale: `Test mode: stubbed score for "${c.title}"; no model was called.`,
      evidence,
    };
  });
  const total = scored.reduce((sum, c) => sum + c.score, 0);
  const score = Math.round((total / (scored.length * 10)) * 100);
  return {
    summary: "Test mode: stubbed evaluation, no model was called.",
    score,
    verdict: score >= 70 ? "pass" : score >= 50 ? "needs_review" : "fail",
    criteria: scored,
  };
}

// Quotes must be verbatim substrings of the document text: take the first non-blank
// line of the first non-empty section, which the extractor joined into `text`.
function stubEvidence(documents: EngineDocument[]): Evidence[] {
  for (const doc of documents) {
    for (const section of doc.content.sections) {
      const line = section.text
        .split("\n")
        .map((l) => l.trim())
        .find((l) => l.length > 0);
      if (line) return [{ document_id: doc.id, quote: [...line].slice(0, 120).join("").trim(), location: section.location }];
    }
  }
  return [];
}
