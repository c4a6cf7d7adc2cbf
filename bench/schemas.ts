// Any output schema, offline: how the built-in local evaluator fills workflows' own schemas, against what their
// writers expect each field to hold.
//   bun run bench/schemas.ts DIR [--verbose]
// DIR (bench/data/schema-hunt) holds scenarios/NAME/{reference,input}.md, schemas/*.json and expected.json, written
// before anything evaluated them:
//   {"schemas": {"<file>": {"scenario", "product", "satisfiable", "unsatisfiable_because",
//     "fields": {"<JSON pointer, * for every item>": {"means", "scale_min"?, "scale_max"?, "format"?, "value"?}}}}}
// Each schema goes through the engine's own entry (src/engine evaluate(), as the run worker calls it, no model
// server). The bench checks the output with a fresh ajv of its own, that an unsatisfiable schema is refused with
// output_invalid, and each field's meaning against the standard evaluation of the same input: a score scaled onto
// the field's range (within 5 % of it, or one step of an integer scale), a verdict in the field's words, names, emails
// and dates as the input states them, quotes found in the input.
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import Ajv from "ajv";
import Ajv2020 from "ajv/dist/2020";
import addFormats from "ajv-formats";
import type { Evaluation } from "../src/engine/types";
import { documentOf, evaluateLocally } from "./documents";

const { values, positionals } = parseArgs({ allowPositionals: true, options: { verbose: { type: "boolean", default: false } } });
const root = positionals[0];
if (!root) {
  console.error("usage: bun run bench/schemas.ts DIR [--verbose]");
  process.exit(2);
}

interface FieldExpectation {
  means: string;
  scale_min?: number;
  scale_max?: number;
  format?: string;
  value?: string;
  note?: string;
}
interface Expected {
  schemas: Record<
    string,
    { scenario: string; product: string; satisfiable: boolean; unsatisfiable_because: string | null; fields: Record<string, FieldExpectation> }
  >;
}

const expected = JSON.parse(readFileSync(path.join(root, "expected.json"), "utf8")) as Expected;

/** The values at a JSON pointer whose "*" steps stand for every item of an array (each with its item index). */
function at(value: unknown, pointer: string): { v: unknown; item: number | null }[] {
  let found: { v: unknown; item: number | null }[] = [{ v: value, item: null }];
  for (const raw of pointer.split("/").slice(1)) {
    const key = raw.replace(/~1/g, "/").replace(/~0/g, "~");
    found = found.flatMap(({ v, item }) => {
      if (key === "*") return Array.isArray(v) ? v.map((x, i) => ({ v: x, item: i })) : [];
      if (v !== null && typeof v === "object" && key in (v as object)) return [{ v: (v as Record<string, unknown>)[key], item }];
      return [];
    });
  }
  return found;
}

const norm = (s: string) => s.replace(/\s+/g, " ").trim().toLowerCase();
/** A field keyed by a criterion's name ("/criterion_marks/method"): the one criterion whose title has that word. */
function keyedItem(pointer: string, e: Evaluation, filled: unknown): number | null {
  // ("/spec/E2/met": keyed by the criteria's codes, as many as the criteria, in the rubric's order.)
  const parts = pointer.split("/");
  const codeAt = parts.findIndex((p) => /^[A-Z]{1,2}\d{1,2}$/.test(p));
  if (codeAt > 0) {
    const keys = Object.keys((at(filled, parts.slice(0, codeAt).join("/"))[0]?.v ?? {}) as object);
    if (keys.length === e.criteria.length) return keys.indexOf(parts[codeAt]);
  }
  // (A spreadsheet header's scale after the name, "Visual Analysis (0-5)", is no part of it.)
  const key = norm(pointer.split("/").at(-1) ?? "")
    .replace(/_/g, " ")
    .replace(/\s*\([^)]*\)$/, "")
    .replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const hits = e.criteria.flatMap((c, i) => (key.length > 2 && new RegExp(`\\b${key}\\b`).test(norm(c.title)) ? [i] : []));
  if (hits.length === 1) return hits[0];
  // (A code letter before the name, "B Methods (max 8)", and words in another order: every word of the key in one title.)
  const words = key
    .replace(/\\/g, "")
    .replace(/^[a-z]\s+/, "")
    .split(/\s+/)
    .filter((w) => w.length > 2);
  const within = e.criteria.flatMap((c, i) => (words.length > 0 && words.every((w) => new RegExp(`\\b${w}\\b`).test(norm(c.title))) ? [i] : []));
  return within.length === 1 ? within[0] : null;
}
// A verdict in the field's own words: which of pass, fail and needs_review each word can stand for. Levels and bands
// ("Proficient", "strong", "B") stand for a pass or a fail by where they sit; risk runs the other way.
const SAYS: [RegExp, Evaluation["verdict"][]][] = [
  [
    /review|escalat|refer|maybe|hold|consider|borderline|manual|unsure|partial|amend|negotiat|negociar|return|send back|bedingt|conditional|reserv|rezerw|twijfel|rivedere|restituire|inoltrare|attesa|amber|yellow|gelb|änderungen|anderungen|talent.pool/i,
    ["needs_review"],
  ],
  [
    /^(no|false|fail|reject|decline|do not|does not|not |nicht |rot$|unsatisf|below|beginning|weak|poor|insufficient|insuffisant|mangelhaft|ungen|insuficiente|insufficiente|onvoldoende|gezakt|afwijzen|bocciat|respint|rifiut|non |niedostat|niezalicz|avsl|underk|red$|reprovad|recus|rejeit|n$|u$|e$|f$|d$)/i,
    ["fail"],
  ],
  [/^(high)/i, ["fail", "needs_review"]],
  [/^(medium|moderate|approaching|developing|c$)/i, ["fail", "needs_review", "pass"]],
  [
    /^(yes|y$|true|pass|grün|grun|zur unterschrift|first|1st|upper second|lower second|2[:.][12]|two (?:one|two)|third|3rd|approv|accept|meets|met|hire|proceed|compliant|advance|shortlist|recommend|sign$|go|ok|satisf|strong|proficient|exemplary|exceeds|excellent|good|low|tr[eè]s bien|bien|assez bien|passable|sehr gut|gut|befriedigend|ausreichend|sobresaliente|notable|suficiente|signer|firmar|unterzeichnen|distinction|merit|uitnodigen|invite|interview|intervju|kalla till|p$|green|assinar|aprovad|zalicz|celuj|bardzo dobry|dobry|dostateczny|dopuszcz|godk|voldoende|ondertekenen|promoss|approvat|idone|sufficiente|a\*?$|b$)/i,
    ["pass"],
  ],
];
function verdictsOf(v: unknown): Evaluation["verdict"][] {
  if (typeof v === "boolean") return v ? ["pass"] : ["fail", "needs_review"];
  const s = String(v).replace(/[_-]+/g, " ").trim();
  return SAYS.find(([re]) => re.test(s))?.[1] ?? [];
}

/** Whether a field's value carries the evaluation's meaning; null when it does, else why not. */
function check(want: FieldExpectation, v: unknown, item: number | null, e: Evaluation, inputText: string, pointer = ""): string | null {
  const criterion = item !== null ? e.criteria[item] : undefined;
  const scaled = (share: number) => (want.scale_min ?? 0) + share * ((want.scale_max ?? 100) - (want.scale_min ?? 0));
  const near = (got: number, share: number) => {
    const span = (want.scale_max ?? 100) - (want.scale_min ?? 0);
    return Math.abs(got - scaled(share)) <= Math.max(0.05 * span, Number.isInteger(got) && span <= 20 ? 1 : 0) + 1e-9;
  };
  const number = (x: unknown) => (typeof x === "string" && want.format === "percent-string" ? Number.parseFloat(x) : x);
  switch (want.means) {
    case "score": {
      const n = number(v);
      // With no scale stated, the points the criteria add up to are as right as the percentage.
      const points = e.criteria.reduce((t, c) => t + c.score, 0);
      const ok = typeof n === "number" && (near(n, e.score / 100) || (want.scale_max === undefined && Math.abs(n - points) < 0.5));
      return ok ? null : `${JSON.stringify(v)} for a score of ${e.score}/100`;
    }
    case "criterion_score": {
      if (!criterion) return "no criterion for this item";
      const share = criterion.max_score > 0 ? criterion.score / criterion.max_score : 0;
      const shown = `${JSON.stringify(v)} for ${criterion.score}/${criterion.max_score}`;
      // Present or met, as a boolean or a label: above a fifth of the maximum is there; between a fifth and three
      // fifths either answer is fair.
      if (typeof v === "boolean") return (v ? share > 0.2 : share < 0.6) ? null : shown;
      if (typeof v === "string" && !/^[\d.]+%?$/.test(v)) {
        const says = verdictsOf(v);
        const fits = share >= 0.6 ? says.includes("pass") : share <= 0.2 ? says.includes("fail") : says.length > 0;
        return fits ? null : shown;
      }
      const n = number(v);
      // (With no scale of its own in the expectation, or a note that says so, a row's marks out of the criterion's own
      // maximum are right.)
      const own = (want.scale_max === undefined || /\bown maximum\b/i.test(want.note ?? "")) && n === criterion.score;
      return typeof n === "number" && (near(n, share) || own) ? null : shown;
    }
    case "count": {
      const met = e.criteria.filter((c) => c.max_score > 0 && c.score / c.max_score > 0.2).length;
      return v === Number(want.value) ? null : `${JSON.stringify(v)}, expected ${want.value} (criteria above a fifth: ${met})`;
    }
    case "pass_boolean":
      return v === (e.verdict === "pass") ? null : `${JSON.stringify(v)} for the verdict ${e.verdict}`;
    case "verdict": {
      // A yes/no column that names a person's call ("Reserve?", "On hold"): yes when the verdict is needs_review. One
      // that names a pass ("Shortlisted?"): no is right for a review as for a fail.
      const yes = typeof v === "string" && /^(?:y|yes)$/i.test(v.trim());
      const no = typeof v === "string" && /^(?:n|no)$/i.test(v.trim());
      const review = /reserv|hold|review/i.test(pointer);
      const says = yes ? (review ? ["needs_review"] : ["pass"]) : no ? (review ? ["pass", "fail"] : ["fail", "needs_review"]) : verdictsOf(v);
      return says.includes(e.verdict) ? null : `${JSON.stringify(v)} for the verdict ${e.verdict}`;
    }
    case "summary":
    case "criterion_comment":
      return typeof v === "string" && v.trim().length >= 10 ? null : `${JSON.stringify(v)}: no text`;
    case "criteria_array":
      return Array.isArray(v) && v.length > 0 ? null : `${JSON.stringify(v)}: no criteria`;
    case "criterion_title": {
      // (A field outside the criteria's list, "priorityForImprovement", names one of them: the one it names.)
      const named = criterion ?? e.criteria.find((c) => typeof v === "string" && norm(v) !== "" && norm(c.title).startsWith(norm(v).slice(0, 20)));
      return named && typeof v === "string" && norm(v) !== "" && norm(named.title).startsWith(norm(v).slice(0, 20))
        ? null
        : `${JSON.stringify(v)} for ${criterion?.title}`;
    }
    case "quote":
      return typeof v === "string" && v.trim() !== "" && norm(inputText).includes(norm(v)) ? null : `${JSON.stringify(v)}: not a quote of the input`;
    case "name":
    case "email":
    case "date": {
      // A field naming several parties lists its acceptable values in the note.
      // (A date field's note lists its dates: "2026-03-24 for Imogen Rathbone-Cole, 2026-03-20 for …".)
      const accepted =
        want.value !== undefined
          ? [want.value]
          : (want.note?.match(want.means === "date" ? /\d{4}-\d{2}-\d{2}/g : /[A-Z][\w.]*(?: [A-Z][\w.]*)+/g) ?? []);
      // A date its pattern forces day first ("DD/MM/YYYY", as the note says) is the same date.
      const dayFirst =
        want.means === "date" && typeof v === "string" && (/DD\/MM|JJ\/MM/.test(want.note ?? "") || (want.note ?? "").includes(v))
          ? /^(\d{2})\/(\d{2})\/(\d{4})$/.exec(v)
          : null;
      // A name its pattern forces surname first ("Acheampong-Reyes, Marisol", as the note says) is the same name.
      const surnameFirst =
        want.means === "name" && typeof v === "string" && /surname, forename/i.test(want.note ?? "") ? /^([^,]+),\s*(.+)$/.exec(v) : null;
      // So is one with its month's name ("03-Aug-2026", as a pattern asks).
      const named = want.means === "date" && typeof v === "string" ? /^(\d{1,2})[- ]([A-Za-z]{3})[a-z]*[- ](\d{4})$/.exec(v) : null;
      const month = named
        ? ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"].indexOf(named[2].toLowerCase()) + 1
        : 0;
      const text = dayFirst
        ? `${dayFirst[3]}-${dayFirst[2]}-${dayFirst[1]}`
        : named && month > 0
          ? `${named[3]}-${String(month).padStart(2, "0")}-${named[1].padStart(2, "0")}`
          : surnameFirst
            ? `${surnameFirst[2]} ${surnameFirst[1]}`
            : v;
      return typeof text === "string" &&
        accepted.some((a) =>
          norm(text)
            .replace(/^(ms|mr|mrs|dr)\.? /, "")
            .startsWith(norm(a)),
        )
        ? null
        : `${JSON.stringify(v)}, expected ${accepted.join(" or ")}`;
    }
    case "list_of_strengths":
    case "list_of_weaknesses":
    case "missing_items":
      return Array.isArray(v) && v.every((x) => typeof x === "string") ? null : `${JSON.stringify(v)}: not a list of text`;
    default:
      return null;
  }
}

const ajvs = {
  draft7: addFormats(new Ajv({ strict: false, allErrors: true })),
  "2020": addFormats(new Ajv2020({ strict: false, allErrors: true })),
};
const totals = { schemas: 0, valid: 0, refusedRightly: 0, unsatisfiable: 0, fields: 0, fieldsRight: 0 };
for (const [file, want] of Object.entries(expected.schemas)) {
  const schema = JSON.parse(readFileSync(path.join(root, "schemas", file), "utf8")) as Record<string, unknown>;
  const scenario = path.join(root, "scenarios", want.scenario);
  const reference = await documentOf("ref_rubric", path.join(scenario, "reference.md"));
  const input = await documentOf("doc_input", path.join(scenario, "input.md"));
  const evaluation = (await evaluateLocally(want.product, reference, input)) as Evaluation;
  totals.schemas++;
  let filled: unknown;
  let refusal: string | null = null;
  try {
    filled = await evaluateLocally(want.product, reference, input, schema);
  } catch (err) {
    refusal = `${(err as { code?: string }).code ?? "error"}: ${(err as Error).message}`;
  }
  if (!want.satisfiable) {
    totals.unsatisfiable++;
    const right = refusal?.startsWith("output_invalid") ?? false;
    if (right) totals.refusedRightly++;
    console.log(`${right ? "ok " : "BAD"} ${file}: ${refusal ?? "not refused"} (expected: ${want.unsatisfiable_because})`);
    continue;
  }
  if (refusal !== null) {
    console.log(`BAD ${file}: refused, ${refusal}`);
    continue;
  }
  const ajv = String(schema.$schema ?? "").includes("2020-12") ? ajvs["2020"] : ajvs.draft7;
  const validate = ajv.compile(schema);
  // The hunt's own hand-written example proves the schema satisfiable.
  const example = path.join(root, "examples", file);
  if (existsSync(example) && !validate(JSON.parse(readFileSync(example, "utf8"))))
    console.log(`    (the hunt's example for ${file} does not validate)`);
  const valid = validate(filled);
  if (valid) totals.valid++;
  const wrong: string[] = [];
  for (const [pointer, field] of Object.entries(want.fields)) {
    if (field.means === "none") continue;
    const found = at(filled, pointer);
    totals.fields++;
    const problems =
      found.length === 0
        ? ["absent"]
        : found
            .map(({ v, item }) => check(field, v, item ?? keyedItem(pointer, evaluation, filled), evaluation, input.content.text, pointer))
            .filter((p) => p !== null);
    if (problems.length === 0) totals.fieldsRight++;
    else wrong.push(`${pointer} (${field.means}): ${problems[0]}`);
  }
  console.log(
    `${valid && wrong.length === 0 ? "ok " : "BAD"} ${file}: ${valid ? "valid" : `INVALID ${ajv.errorsText(validate.errors)}`}` +
      `${wrong.length ? `\n      ${wrong.join("\n      ")}` : ""}`,
  );
  if (values.verbose) console.log(`      ${JSON.stringify(filled)}`);
}
const t = totals;
console.log(
  `\nvalid outputs ${t.valid}/${t.schemas - t.unsatisfiable}; unsatisfiable refused ${t.refusedRightly}/${t.unsatisfiable}; ` +
    `fields holding what they mean ${t.fieldsRight}/${t.fields}`,
);
