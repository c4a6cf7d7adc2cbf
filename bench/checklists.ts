// Agreement of the built-in local evaluator with a reviewer's expectations on checklists and the documents checked
// against them (contract review, CV screening).
//   bun run bench/checklists.ts DIR [--verbose]
// DIR holds one folder per checklist (or rubric: bench/data/essay-hunts, "product": "education") (or folders of them, as bench/data/contract-hunts/hunt1 … hunt3), each with
// checklist.<any format Assay reads>, contracts/ (the documents) and expected.json, written before anything read them:
//   {"product": "legal", "criteria": [{"title", "optional"}], "contracts": {"<file>": {"kind", "met": [titles],
//    "verdict": ["pass"] | ["fail", "needs_review"], "why", "years"?}}}
// ("contracts/" holds CVs too, under "product": "hr"; "years", where given, is the years of work a CV's dated roles
// show on the day the hunt was written, `--as-of` that day, compared with what the years reader finds.)
// Each document is evaluated by the engine's own entry (src/engine evaluate(), as the run worker calls it) under the
// product, and the bench prints, per checklist, whether its criteria were read as written (their number, each expected
// title matched by words, optional as expected), each document's verdict against the acceptable ones, and how often a
// criterion scored above a fifth of its maximum exactly when the document truly meets it ("clause judgements").
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { findCriteria } from "../src/engine/local/criteria";
import { yearsShown } from "../src/engine/local/experience";
import { HOLISTIC_TITLE } from "../src/engine/local/rubric-words";
import type { Evaluation } from "../src/engine/types";
import { documentOf, evaluateLocally } from "./documents";

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { verbose: { type: "boolean", default: false }, "as-of": { type: "string" } },
});
const asOf = values["as-of"] ? new Date(values["as-of"]) : new Date();
const root = positionals[0];
if (!root) {
  console.error("usage: bun run bench/checklists.ts DIR [--verbose]");
  process.exit(2);
}

interface Expected {
  product: string;
  criteria: { title: string; optional: boolean; max?: number }[];
  contracts: Record<string, { kind: string; met: string[]; verdict: string[]; why: string; years?: number }>;
}

/** The checklist folders under DIR: DIR itself, its sub-folders, or theirs. */
function checklistDirs(dir: string, depth = 0): string[] {
  if (existsSync(path.join(dir, "expected.json"))) return [dir];
  if (depth >= 2) return [];
  return readdirSync(dir)
    .sort()
    .map((n) => path.join(dir, n))
    .filter((p) => statSync(p).isDirectory())
    .flatMap((p) => checklistDirs(p, depth + 1));
}

// An expected title is matched to the criterion read whose title (and description's start) shares most of its words.
// (Words compared by their first five letters, or without a plural's "s": "analysed" is "analysis", "tests" is "test".)
const wordsOf = (s: string) =>
  new Set((s.toLowerCase().match(/[a-z0-9]{3,}/g) ?? []).map((w) => (w.length > 5 ? w.slice(0, 5) : w.replace(/s$/, ""))));
function similarity(a: string, b: string): number {
  const [x, y] = [wordsOf(a), wordsOf(b)];
  let shared = 0;
  for (const w of x) if (y.has(w)) shared++;
  return shared / Math.max(1, Math.min(x.size, y.size));
}

function jaccard(a: string, b: string): number {
  const [x, y] = [wordsOf(a), wordsOf(b)];
  let shared = 0;
  for (const w of x) if (y.has(w)) shared++;
  return shared / Math.max(1, x.size + y.size - shared);
}

const totals = { checklists: 0, asWritten: 0, documents: 0, verdicts: 0, judgements: 0, agreed: 0, metWrongly: 0, missed: 0, years: 0, yearsNear: 0 };
for (const dir of checklistDirs(root)) {
  const expected = JSON.parse(readFileSync(path.join(dir, "expected.json"), "utf8")) as Expected;
  const file = readdirSync(dir).find((n) => n.startsWith("checklist."));
  if (!file) continue;
  const reference = await documentOf("ref_checklist", path.join(dir, file));
  const { criteria } = findCriteria([reference.content], null);
  const match = expected.criteria.map((want) => {
    // A holistic scale the rubric leaves unnamed is the engine's "Overall quality" (expected.json may call it "Holistic score",
    // or by the mark's name, "Fieldwork mark", with the scale's maximum).
    const lone = expected.criteria.length === 1 && criteria.length === 1 && criteria[0].title === HOLISTIC_TITLE;
    if (lone && (/holistic|overall/i.test(want.title) || (want.max !== undefined && criteria[0].maxScore === want.max))) return 0;
    let best = -1;
    let score = 0;
    let closeness = 0;
    criteria.forEach((c, i) => {
      const s = similarity(want.title, `${c.title} ${c.description.slice(0, 80)}`);
      // (A tie goes to the title nearer the whole expected one: "Category C+E licence" is that item, not "Full UK
      // driving licence with category C", which shares both its words too.)
      const near = jaccard(want.title, c.title);
      if (s > score || (s === score && s > 0 && near > closeness)) [best, score, closeness] = [i, s, near];
    });
    return score >= 0.5 ? best : -1;
  });
  const asWritten =
    criteria.length === expected.criteria.length &&
    new Set(match).size === match.length &&
    match.every((m, i) => m >= 0 && Boolean(criteria[m].optional) === expected.criteria[i].optional);
  totals.checklists++;
  if (asWritten) totals.asWritten++;
  console.log(
    `\n${path.relative(root, dir) || dir} (${file}): criteria ${asWritten ? "read as written" : "MISREAD"} (${criteria.length} read, ${expected.criteria.length} expected)`,
  );
  if (!asWritten || values.verbose) for (const c of criteria) console.log(`    read: ${c.title}${c.optional ? " (optional)" : ""} /${c.maxScore}`);

  for (const [name, want] of Object.entries(expected.contracts)) {
    const input = path.join(dir, "contracts", name);
    if (!existsSync(input)) continue;
    const document = await documentOf("doc_input", input);
    let yearsNote = "";
    if (typeof want.years === "number") {
      const shown = yearsShown(document.content.text, asOf);
      const near = shown !== null && Math.abs(shown.years - want.years) <= 0.5;
      totals.years++;
      if (near) totals.yearsNear++;
      yearsNote = ` years ${shown?.years ?? "none"} (expected ${want.years})${near ? "" : " OFF"}`;
    }
    const out = (await evaluateLocally(expected.product, reference, document)) as Evaluation;
    const verdictOk = want.verdict.includes(out.verdict);
    totals.documents++;
    if (verdictOk) totals.verdicts++;
    const wrong: string[] = [];
    expected.criteria.forEach((c, i) => {
      const got = match[i] >= 0 ? out.criteria[match[i]] : undefined;
      if (!got) return;
      const met = got.max_score > 0 && got.score / got.max_score > 0.2;
      const truly = want.met.includes(c.title);
      totals.judgements++;
      if (met === truly) totals.agreed++;
      else {
        if (truly) totals.missed++;
        else totals.metWrongly++;
        wrong.push(`${truly ? "missed" : "met wrongly"}: ${c.title} (${got.score}/${got.max_score})`);
      }
    });
    console.log(
      `  ${verdictOk ? "ok " : "BAD"} ${name} [${want.kind}] ${out.verdict} ${out.score} (expected ${want.verdict.join(" or ")})${yearsNote}${wrong.length ? ` | ${wrong.join("; ")}` : ""}`,
    );
    if (values.verbose) console.log(`      ${out.summary}`);
  }
}
const t = totals;
console.log(
  `\nchecklists read as written ${t.asWritten}/${t.checklists}; verdicts as expected ${t.verdicts}/${t.documents}; ` +
    `clause judgements ${t.agreed}/${t.judgements} (met wrongly ${t.metWrongly}, missed ${t.missed})` +
    (t.years > 0 ? `; years within ±0.5 ${t.yearsNear}/${t.years}` : ""),
);
