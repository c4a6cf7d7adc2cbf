// Any output schema offline: the local evaluator's findings mapped onto a workflow's own schema, validated.
import { describe, expect, test } from "bun:test";
import { type EvaluateInput, evaluate } from "../../src/engine";
import { compileSchema } from "../../src/engine/schema";
import { fillSchema } from "../../src/engine/schema-fill";
import type { Criterion, EngineDocument, Evaluation } from "../../src/engine/types";
import { RUBRIC_MD, STRONG_ESSAY, textDoc, WEAK_ESSAY } from "./fixtures";
import { SCHEMAS } from "./schemas";

const rubric = await textDoc("ref_rubric", "rubric.md", RUBRIC_MD);

function run(schema: object, inputs: EngineDocument[], references: EngineDocument[] = [rubric]) {
  const input: EvaluateInput = {
    workspaceId: "ws_test",
    mode: "live",
    workflow: { userPrompt: null, outputSchema: schema, modelPolicy: "auto", productCode: "education" },
    references,
    inputs,
    llm: null, // no model server
    contextBudgetChars: 400_000,
    runId: "run_fill",
  };
  return evaluate(input);
}

const GRADING = {
  type: "object",
  properties: {
    grade: { type: "integer", minimum: 0, maximum: 20, description: "Grade out of 20" },
    letter: { type: "string", enum: ["A", "B", "C", "D", "F"] },
    passed: { type: "boolean" },
    feedback: { type: "string", minLength: 10 },
    rubric_scores: {
      type: "array",
      items: {
        type: "object",
        properties: { criterion: { type: "string" }, points: { type: "number" }, max_points: { type: "number" }, comment: { type: "string" } },
        required: ["criterion", "points", "max_points", "comment"],
        additionalProperties: false,
      },
    },
  },
  required: ["grade", "letter", "passed", "feedback", "rubric_scores"],
  additionalProperties: false,
};

const SCREENING = {
  type: "object",
  properties: {
    candidate_name: { type: "string", description: "Full name of the applicant" },
    email: { type: "string", format: "email" },
    years_experience: { type: "integer", minimum: 0 },
    recommendation: { type: "string", enum: ["shortlist", "maybe", "reject"] },
    meets_requirements: { type: "boolean" },
    available_from: { type: "string", format: "date" },
    match_percent: { type: "number", minimum: 0, maximum: 100 },
  },
  required: ["candidate_name", "email", "years_experience", "recommendation", "meets_requirements", "available_from", "match_percent"],
  additionalProperties: false,
};

const NESTED = {
  type: "object",
  $defs: {
    crit: {
      type: "object",
      properties: {
        name: { type: "string" },
        score: { type: "number", minimum: 0, maximum: 5 },
        evidence: { type: "array", items: { type: "string" } },
      },
      required: ["name", "score", "evidence"],
    },
  },
  properties: {
    report: {
      type: "object",
      properties: {
        overall: {
          type: "object",
          properties: {
            score: { type: "number", minimum: 0, maximum: 100 },
            verdict: { type: "string", enum: ["pass", "fail", "needs_review"] },
            summary: { type: "string" },
          },
          required: ["score", "verdict", "summary"],
        },
        criteria: { type: "array", items: { $ref: "#/$defs/crit" }, minItems: 1 },
      },
      required: ["overall", "criteria"],
    },
  },
  required: ["report"],
};

const CV = `# Maria Keller

Email: maria.keller@example.org · Phone: +49 30 1234 5678

Senior data engineer with 8 years of experience in Python, SQL and Spark.

## Experience

Data engineer at Nordwind GmbH since 3 March 2019: built the company's streaming pipeline.
`;

describe("output schemas without a model server", () => {
  // The shared table (19 schemas) and this file's three: grading, CV screening, nested $ref.
  const table: [string, object][] = [
    ...SCHEMAS,
    ["a grading schema", GRADING],
    ["a CV-screening schema", SCREENING],
    ["a nested report with $ref", NESTED],
  ];
  test.each(table)("the local evaluator's output validates: %s", async (_name, schema) => {
    const essay = await textDoc("doc_s", "strong.txt", STRONG_ESSAY);
    const out = await run(schema, [essay]);
    expect(out.custom).toBe(true);
    expect(compileSchema(schema).validate(out.value)).toBeNull();
  });

  test("a grading schema gets the rubric's criteria, a grade on its own scale, a letter, pass and feedback; a weak essay fails", async () => {
    const strong = await run(GRADING, [await textDoc("doc_s", "strong.txt", STRONG_ESSAY)]);
    const out = strong.value as Record<string, unknown>;
    expect(compileSchema(GRADING).validate(out)).toBeNull();
    expect(strong.custom).toBe(true);
    expect(out.passed).toBe(true);
    expect(out.grade).toBeGreaterThanOrEqual(16);
    expect(out.letter).toMatch(/^[AB]$/);
    expect(String(out.feedback)).toContain("local evaluator");
    const rows = out.rubric_scores as { criterion: string; points: number; max_points: number; comment: string }[];
    expect(rows.map((r) => [r.criterion, r.max_points])).toEqual([
      ["Thesis", 20],
      ["Evidence", 30],
      ["Counterargument", 15],
      ["Organisation", 15],
      ["Conventions", 20],
    ]);
    for (const r of rows) expect(r.points).toBeLessThanOrEqual(r.max_points);

    const weak = (await run(GRADING, [await textDoc("doc_w", "weak.txt", WEAK_ESSAY)])).value as Record<string, unknown>;
    expect(compileSchema(GRADING).validate(weak)).toBeNull();
    expect(weak.passed).toBe(false);
    expect(weak.letter).toBe("F");
    expect(weak.grade as number).toBeLessThan(out.grade as number);
  });

  test("a CV-screening schema: name, email, years and a date found in the CV; enum and boolean follow the verdict", async () => {
    const r = await run(SCREENING, [await textDoc("doc_cv", "cv.md", CV)], []);
    const out = r.value as Record<string, unknown>;
    expect(compileSchema(SCREENING).validate(out)).toBeNull();
    expect(out.candidate_name).toBe("Maria Keller");
    expect(out.email).toBe("maria.keller@example.org");
    expect(out.years_experience).toBe(8);
    expect(out.available_from).toBe("2019-03-03");
    expect(["shortlist", "maybe", "reject"]).toContain(out.recommendation as string);
    expect(out.meets_requirements).toBe(out.recommendation === "shortlist");
    expect(typeof out.match_percent).toBe("number");
  });

  test("a date field with a pattern gets the CV's date written its way (day first unless it says MM/DD)", async () => {
    const field = (description: string) => ({
      type: "object",
      properties: { available_from: { type: "string", description, pattern: "^\\d{2}/\\d{2}/\\d{4}$" } },
      required: ["available_from"],
    });
    const cv = await textDoc("doc_cv", "cv.md", CV);
    expect((await run(field("Start date"), [cv], [])).value).toEqual({ available_from: "03/03/2019" });
    const start = CV.replace("3 March 2019", "15 March 2019");
    const later = await textDoc("doc_cv2", "cv.md", start);
    expect((await run(field("Start date, DD/MM/YYYY"), [later], [])).value).toEqual({ available_from: "15/03/2019" });
    expect((await run(field("Start date, MM/DD/YYYY"), [later], [])).value).toEqual({ available_from: "03/15/2019" });
  });

  test("quality levels, feedback per area, a score per criterion, allOf parts, and lists that must not be empty", async () => {
    const schema = {
      $defs: { base: { type: "object", properties: { score: { type: "number" }, summary: { type: "string" } }, required: ["score"] } },
      allOf: [
        { $ref: "#/$defs/base" },
        {
          properties: {
            score: { maximum: 10, minimum: 0 },
            overall: { enum: ["poor", "fair", "good", "excellent"] },
            scores: { type: "object", additionalProperties: { type: "integer", minimum: 0, maximum: 5 } },
            feedback: {
              type: "array",
              minItems: 6,
              items: {
                type: "object",
                properties: { area: { type: "string" }, severity: { enum: ["low", "medium", "high"] }, comment: { type: "string" } },
                required: ["area", "severity", "comment"],
                additionalProperties: false,
              },
            },
            weaknesses: { type: "array", items: { type: "string" }, minItems: 1 },
          },
          required: ["summary", "overall", "scores", "feedback", "weaknesses"],
        },
      ],
    };
    const strong = (await run(schema, [await textDoc("doc_s", "strong.txt", STRONG_ESSAY)])).value as Record<string, any>;
    const weak = (await run(schema, [await textDoc("doc_w", "weak.txt", WEAK_ESSAY)])).value as Record<string, any>;
    for (const out of [strong, weak]) expect(compileSchema(schema).validate(out)).toBeNull();
    const titles = ["Thesis", "Evidence", "Counterargument", "Organisation", "Conventions"];
    // allOf's parts together: the score on the 0–10 range one part sets, the summary another requires.
    expect(strong.score).toBe(10);
    expect(strong.summary).toMatch(/^Overall 100\/100/);
    expect(weak.score).toBeLessThan(5);
    expect(strong.overall).toBe("excellent");
    expect(weak.overall).toBe("poor");
    expect(Object.keys(strong.scores)).toEqual(titles);
    expect(Object.values(strong.scores)).toEqual([5, 5, 5, 5, 5]);
    expect(Object.values(weak.scores as Record<string, number>).every((n) => n <= 2)).toBe(true);
    // One feedback item per criterion, its area the criterion and its severity the shortfall; a stub makes up six.
    expect(strong.feedback.slice(0, 5).map((f: { area: string }) => f.area)).toEqual(titles);
    expect(strong.feedback).toHaveLength(6);
    expect(strong.feedback.slice(0, 5).every((f: { severity: string }) => f.severity === "low")).toBe(true);
    expect(weak.feedback.slice(0, 5).filter((f: { severity: string }) => f.severity === "high").length).toBeGreaterThanOrEqual(3);
    // Nothing below two thirds, yet the schema wants a weakness: the lowest criterion, said to be that.
    expect(strong.weaknesses).toHaveLength(1);
    expect(strong.weaknesses[0]).toMatch(/none fell below two thirds/);
    expect(weak.weaknesses.length).toBeGreaterThanOrEqual(3);
  });

  test("checklists, clauses and skills get one item per criterion; present, found and met follow it, risk runs the other way", async () => {
    const item = (name: string, props: Record<string, object>) => ({
      type: "array",
      items: { type: "object", properties: { [name]: { type: "string" }, ...props }, required: [name, ...Object.keys(props)] },
    });
    const schema = {
      type: "object",
      properties: {
        student_name: { type: "string" },
        clauses: item("clause", { found: { type: "boolean" }, risk: { enum: ["low", "medium", "high"] }, quote: { type: "string" } }),
        skills: item("skill", { present: { type: "boolean" } }),
        checklist: item("requirement", { met: { enum: ["yes", "no", "partial"] } }),
        next_steps: { type: "array", items: { type: "string" } },
      },
      required: ["student_name", "clauses", "skills", "checklist", "next_steps"],
    };
    const titles = ["Thesis", "Evidence", "Counterargument", "Organisation", "Conventions"];
    const strongEssay = await textDoc("doc_s", "strong.txt", STRONG_ESSAY);
    const strong = (await run(schema, [strongEssay])).value as Record<string, any>;
    const weak = (await run(schema, [await textDoc("doc_w", "weak.txt", WEAK_ESSAY)])).value as Record<string, any>;
    for (const out of [strong, weak]) {
      expect(compileSchema(schema).validate(out)).toBeNull();
      expect(out.clauses.map((c: { clause: string }) => c.clause)).toEqual(titles);
      expect(out.skills.map((c: { skill: string }) => c.skill)).toEqual(titles);
      expect(out.checklist.map((c: { requirement: string }) => c.requirement)).toEqual(titles);
      // The essays name no student: empty, not a placeholder.
      expect(out.student_name).toBe("");
    }
    expect(strong.clauses.every((c: { found: boolean; risk: string }) => c.found && c.risk === "low")).toBe(true);
    expect(strong.skills.every((c: { present: boolean }) => c.present)).toBe(true);
    expect(strong.checklist.every((c: { met: string }) => c.met === "yes")).toBe(true);
    for (const c of strong.clauses) expect(strongEssay.content.text).toContain(c.quote);
    expect(strong.next_steps).toEqual([]);
    // Found and present mean there at all (above a fifth of the maximum): the weak essay's thesis (5/20) is, unmet.
    expect(weak.clauses.map((c: { found: boolean }) => c.found)).toEqual([true, false, false, false, false]);
    expect(weak.clauses.filter((c: { risk: string }) => c.risk === "high").length).toBeGreaterThanOrEqual(3);
    expect(weak.skills.map((c: { present: boolean }) => c.present)).toEqual([true, false, false, false, false]);
    expect(weak.checklist.every((c: { met: string }) => c.met === "no")).toBe(true);
    // A criterion nothing could be quoted for has an empty quote.
    expect(weak.clauses.find((c: { clause: string }) => c.clause === "Counterargument").quote).toBe("");
    expect(weak.next_steps.length).toBeGreaterThanOrEqual(3);
    expect(weak.next_steps[0]).toMatch(/^Counterargument: 0\/15/);
  });

  test("enums written as identifiers (STRONG_HIRE, no_hire, meets_expectations) and star ratings follow the evaluation", async () => {
    const schema = {
      type: "object",
      properties: {
        decision: { enum: ["STRONG_HIRE", "HIRE", "NO_HIRE"] },
        recommendation: { enum: ["strong_yes", "yes", "no", "strong_no"] },
        status: { enum: ["below_expectations", "meets_expectations", "exceeds_expectations"] },
        stars: { type: "integer", minimum: 1, maximum: 5 },
      },
      required: ["decision", "recommendation", "status", "stars"],
    };
    const strong = (await run(schema, [await textDoc("doc_s", "strong.txt", STRONG_ESSAY)])).value;
    const weak = (await run(schema, [await textDoc("doc_w", "weak.txt", WEAK_ESSAY)])).value;
    // The strong essay scores 100: the clearest yes. The weak one fails, but not by the clearest margin: a plain no.
    expect(strong).toEqual({ decision: "STRONG_HIRE", recommendation: "strong_yes", status: "exceeds_expectations", stars: 5 });
    expect(weak).toMatchObject({ decision: "NO_HIRE", recommendation: "no", status: "below_expectations" });
    expect((weak as { stars: number }).stars).toBeLessThanOrEqual(2);
  });

  test("a schema that names no fields ({} or an open object) gets the standard evaluation", async () => {
    const essay = await textDoc("doc_s", "strong.txt", STRONG_ESSAY);
    const standard = (await run(null as unknown as object, [essay])).value as Record<string, unknown>;
    for (const schema of [{}, { type: "object" }, { type: "object", minProperties: 2 }]) {
      const out = await run(schema, [essay]);
      expect(out.custom).toBe(true);
      expect(out.value).toEqual(standard);
    }
  });

  test("a nested schema with $ref: overall score, verdict and summary, and one item per criterion with quotes", async () => {
    const essay = await textDoc("doc_s", "strong.txt", STRONG_ESSAY);
    const out = (await run(NESTED, [essay])).value as {
      report: { overall: { score: number; verdict: string; summary: string }; criteria: { name: string; score: number; evidence: string[] }[] };
    };
    expect(compileSchema(NESTED).validate(out)).toBeNull();
    expect(out.report.overall.verdict).toBe("pass");
    expect(out.report.overall.score).toBeGreaterThanOrEqual(60);
    expect(out.report.criteria.map((c) => c.name)).toContain("Evidence");
    for (const c of out.report.criteria) {
      expect(c.score).toBeLessThanOrEqual(5);
      for (const q of c.evidence) expect(essay.content.text.includes(q)).toBe(true);
    }
    expect(out.report.criteria.some((c) => c.evidence.length > 0)).toBe(true);
  });

  test("fields the evaluation cannot answer get defaults that validate", async () => {
    const schema = {
      type: "object",
      properties: {
        ticket: { type: "string", pattern: "^T-\\d{4}$" },
        tags: { type: "array", items: { type: "string" }, minItems: 2 },
        score: { type: "number" },
      },
      required: ["ticket", "tags", "score"],
    };
    const out = (await run(schema, [await textDoc("doc_s", "strong.txt", STRONG_ESSAY)])).value as Record<string, unknown>;
    expect(compileSchema(schema).validate(out)).toBeNull();
    expect(out.ticket).toMatch(/^T-\d{4}$/);
    expect(out.score).toBeGreaterThanOrEqual(60);
    // What nothing answers claims nothing: the lowest number allowed, an empty string, false; not made-up figures.
    const unknown = {
      type: "object",
      properties: {
        foo_count: { type: "integer", minimum: 3 },
        bar: { type: "number" },
        memo: { type: "string" },
        flag: { type: "boolean" },
      },
      required: ["foo_count", "bar", "memo", "flag"],
    };
    const essay = await textDoc("doc_s", "strong.txt", STRONG_ESSAY);
    const plain = (await run(unknown, [essay])).value as Record<string, unknown>;
    expect(plain).toEqual({ foo_count: 3, bar: 0, memo: "", flag: false });
    // A schema that refuses the plain values still gets values that validate.
    const refusing = { type: "object", properties: { nonzero: { type: "number", not: { const: 0 } } }, required: ["nonzero"] };
    const other = (await run(refusing, [essay])).value as Record<string, unknown>;
    expect(compileSchema(refusing).validate(other)).toBeNull();
  });
});

// The filling on its own, with evaluations written here: what each field takes from the findings and the input.
const crit = (title: string, score: number, max_score = 10): Criterion => ({
  id: title.toLowerCase().replace(/\W+/g, "_"),
  title,
  score,
  max_score,
  rationale: `${title} scored ${score}/${max_score}: the reason.`,
  evidence: [],
});
const finding = (score: number, verdict: Evaluation["verdict"], criteria: Criterion[] = [crit("Argument", 7), crit("Style", 8)]): Evaluation => ({
  summary: `Overall ${score}/100 (${verdict}) on ${criteria.length} criteria, by the built-in local evaluator.`,
  score,
  verdict,
  criteria,
});

function filled(schema: object, evaluation: Evaluation, text = "", optional: string[] = []): any {
  const out = fillSchema(schema, "seed", { evaluation, text, optional });
  expect(out.problem).toBeNull();
  expect(compileSchema(schema).validate(out.value)).toBeNull();
  return out.value;
}

const str = (description?: string) => ({ type: "string", ...(description ? { description } : {}) });
const date = (description?: string) => ({ type: "string", format: "date", ...(description ? { description } : {}) });
const object = (properties: Record<string, object>) => ({ type: "object", properties, required: Object.keys(properties) });

const PAPER = `The Rivers of My Town

Name: Tomasz Wójcik
Form: 8C
Tutor: Mr. Ellis Grant
Date: 2 February 2027

Rivers shaped where my town was built.`;

describe("output schemas offline: what the input states, and what the findings mean", () => {
  test("'Label: value' lines fill the fields that name their label; a document's heading is never a person's name", () => {
    const schema = object({
      student_name: str(),
      pupil: str("Pupil's full name"),
      n: str("Student's name as written on the paper"),
      tutor: str("Name of the form tutor"),
      form: str(),
      moderator: str("Name of the moderating teacher"),
      learner: object({ full_name: str(), form: str() }),
    });
    // The field's own name before its description: the tutor, not the form or the name the description mentions.
    expect(filled(schema, finding(74, "pass"), PAPER)).toEqual({
      student_name: "Tomasz Wójcik",
      pupil: "Tomasz Wójcik",
      n: "Tomasz Wójcik",
      tutor: "Mr. Ellis Grant",
      form: "8C",
      moderator: "",
      learner: { full_name: "Tomasz Wójcik", form: "8C" },
    });
    const names = object({ author: str(), person_name: str() });
    for (const heading of ["MASTER SERVICES AGREEMENT", "Curriculum Vitae", "# Annual Report"])
      expect(filled(names, finding(74, "pass"), `${heading}\n\nThe text itself, naming nobody.`)).toEqual({ author: "", person_name: "" });
    expect(filled(names, finding(74, "pass"), "Anna Lindqvist\n\nanna@example.com")).toEqual({
      author: "Anna Lindqvist",
      person_name: "Anna Lindqvist",
    });
  });

  test("a cover sheet's table rows are labels as 'Label: value' lines are; a map keyed by a pattern gets an entry per criterion", () => {
    const cover = [
      "# How does the River Lenning change?",
      "",
      "| Cover sheet | |",
      "|---|---|",
      "| Candidate name | Eilidh Marchetti |",
      "| Fieldwork date | Tuesday 30 September 2025 |",
      "| Date handed in | Tuesday 18 November 2025 |",
      "",
      "My enquiry question is how the river changes downstream.",
    ].join("\n");
    // "Date handed in" is the date submitted.
    expect(filled(object({ date_submitted: date() }), finding(74, "pass"), cover).date_submitted).toBe("2025-11-18");
    // A contract's definition is a label too, over a date nearer the words in another clause. (Before: 2029-03-31.)
    const contract = [
      '- **"Commencement Date"** means 1 April 2026.',
      '- **"Initial Term"** means the period from the Commencement Date to',
      "  31 March 2029.",
    ].join("\n");
    expect(filled(object({ commencement_date: date() }), finding(74, "pass"), contract).commencement_date).toBe("2026-04-01");
    // (Before: "" and the fieldwork date: a table's row was no label.)
    expect(filled(object({ candidate_name: str(), date_handed_in: date() }), finding(74, "pass"), cover)).toEqual({
      candidate_name: "Eilidh Marchetti",
      date_handed_in: "2025-11-18",
    });
    const e = finding(60, "needs_review", [crit("Parties", 9), crit("Price", 1), crit("Insurance", 6)]);
    const map = {
      type: "object",
      required: ["checklist"],
      properties: {
        checklist: {
          type: "object",
          minProperties: 3,
          propertyNames: { pattern: "^C(0[1-3])$" },
          patternProperties: { "^C(0[1-3])$": object({ status: { enum: ["met", "partly met", "not met"] } }) },
          additionalProperties: false,
        },
      },
    };
    // (Before: refused as unsatisfiable: one key, "C01", was all the pattern gave.)
    expect(filled(map, e).checklist).toEqual({ C01: { status: "met" }, C02: { status: "not met" }, C03: { status: "partly met" } });
  });

  test("a number is rounded to the field's multipleOf instead of being refused", () => {
    const schema = object({
      grade: { type: "number", minimum: 0, maximum: 20, multipleOf: 0.5, description: "Grade out of 20, half points" },
      mark: { type: "number", minimum: 0, maximum: 10, multipleOf: 0.25, description: "Mark out of 10" },
      score: { type: "integer", minimum: 0, maximum: 100, multipleOf: 5 },
      tenths: { type: "number", minimum: 0, maximum: 1, multipleOf: 0.1, description: "Score as a fraction" },
    });
    expect(filled(schema, finding(73, "pass"))).toEqual({ grade: 14.5, mark: 7.25, score: 75, tenths: 0.7 });
  });

  test("letter grades as English exams write them ('A*' … 'U'); an optional list of flags stays empty, claiming none", () => {
    // The letter stayed the stub's first member, "A*", for a score of 81, and the stub put "plagiarism_suspected" in
    // an optional flags list nothing answers.
    const schema = object({
      letter: { type: "string", enum: ["A*", "A", "B", "C", "D", "E", "U"] },
      flags: { type: "array", items: { enum: ["plagiarism_suspected", "off_topic", "too_short"] }, uniqueItems: true },
    });
    expect(filled(schema, finding(81, "pass"))).toEqual({ letter: "B", flags: [] });
    expect(filled(schema, finding(35, "fail"))).toEqual({ letter: "U", flags: [] });
  });

  test("a tuple (prefixItems) gets each place from its own schema and description", () => {
    const schema = {
      $schema: "https://json-schema.org/draft/2020-12/schema",
      ...object({
        result: {
          type: "array",
          prefixItems: [
            { type: "integer", minimum: 0, maximum: 100, description: "Score out of 100" },
            { enum: ["pass", "fail", "review"], description: "Verdict" },
            { type: "string", description: "Short summary" },
          ],
          items: false,
          minItems: 3,
        },
      }),
    };
    const e = finding(42, "fail");
    expect(filled(schema, e).result).toEqual([42, "fail", e.summary]);
  });

  test("anyOf / oneOf at a field: the branch other than null, meaning what the outer schema says", () => {
    const schema = object({
      mark: { anyOf: [{ type: "integer", minimum: 0, maximum: 100 }, { type: "null" }], description: "Percentage mark; null if unmarked" },
      summary: { anyOf: [{ type: "string" }, { type: "null" }] },
      band: { oneOf: [{ type: "null" }, { type: "number", minimum: 0, maximum: 5 }], title: "Score out of 5" },
    });
    const e = finding(64, "pass");
    expect(filled(schema, e)).toEqual({ mark: 64, summary: e.summary, band: 3.2 });
  });

  test("a percentage written as a string gets the score with a % sign, as the field's pattern has it", () => {
    const schema = object({
      result: { type: "string", pattern: "^(100|[1-9]?[0-9])%$", description: "Final result" },
      percentage: str("Percentage achieved"),
      spaced: { type: "string", pattern: "^\\d+ %$", description: "Score in percent" },
    });
    expect(filled(schema, finding(67, "pass"))).toEqual({ result: "67%", percentage: "67%", spaced: "67 %" });
  });

  test("a date field gets the date its own words stand near, not the input's first date", () => {
    const lease = `LEASE

This lease is dated 3 June 2027. The term commences on 1 July 2027 (the "Start Date"), and rent is due on 10 July 2027.

Signed by the Landlord
Date: 5 June 2027`;
    const schema = object({
      start_date: date(),
      signed_date: date(),
      execution_date: date("When the lease was executed"),
      rent_due: date("Rent due date"),
      d: date("Date of commencement"),
      dated: date(),
    });
    expect(filled(schema, finding(70, "pass"), lease)).toEqual({
      start_date: "2027-07-01",
      signed_date: "2027-06-05",
      execution_date: "2027-06-05",
      rent_due: "2027-07-10",
      d: "2027-07-01",
      dated: "2027-06-03",
    });
  });

  test("needs review: escalate, refer, return for amendment and negotiate say so; a risk level is the middle one", () => {
    const schema = object({
      outcome: { enum: ["Approve", "Return for amendment", "Decline"] },
      route: { enum: ["accept", "Escalate to Legal", "reject"] },
      deal: { enum: ["sign", "negotiate", "do_not_sign"] },
      next: { enum: ["approved", "refer to a senior", "rejected"] },
      risk_level: { enum: ["low", "medium", "high"] },
      overall_risk: { type: "string", enum: ["high", "medium", "low"] },
    });
    const review = {
      outcome: "Return for amendment",
      route: "Escalate to Legal",
      deal: "negotiate",
      next: "refer to a senior",
      risk_level: "medium",
      overall_risk: "medium",
    };
    // At 85 or at 30: a person's call either way.
    expect(filled(schema, finding(85, "needs_review"))).toEqual(review);
    expect(filled(schema, finding(30, "needs_review"))).toEqual(review);
    expect(filled(schema, finding(85, "pass"))).toMatchObject({ outcome: "Approve", deal: "sign", risk_level: "low" });
    expect(filled(schema, finding(10, "fail"))).toMatchObject({ outcome: "Decline", deal: "do_not_sign", risk_level: "high" });
  });

  test("of one criterion, present and found mean above a fifth of its maximum, missing the reverse; met stays at the pass share", () => {
    const e = finding(50, "fail", [crit("Scope", 3), crit("Liability", 2), crit("Fees", 8)]);
    const schema = object({
      clauses: {
        type: "array",
        items: object({
          clause: str(),
          present: { type: "boolean" },
          missing: { type: "boolean" },
          met: { type: "boolean" },
          status: { enum: ["present", "missing"] },
        }),
      },
      every_clause_present: { type: "boolean", description: "True if every required clause is present" },
    });
    const out = filled(schema, e);
    expect(out.clauses).toEqual([
      { clause: "Scope", present: true, missing: false, met: false, status: "present" },
      { clause: "Liability", present: false, missing: true, met: false, status: "missing" },
      { clause: "Fees", present: true, missing: false, met: true, status: "present" },
    ]);
    expect(out.every_clause_present).toBe(false);
  });

  test("a criterion's detail, finding, observation, why and explanation fields get its rationale", () => {
    const e = finding(60, "pass");
    const fields = ["detail", "details", "finding", "observation", "why", "explanation"];
    const schema = object({ findings: { type: "array", items: object(Object.fromEntries([["title", str()], ...fields.map((f) => [f, str()])])) } });
    const out = filled(schema, e);
    expect(out.findings.map((f: Record<string, string>) => f.title)).toEqual(["Argument", "Style"]);
    for (const [i, row] of out.findings.entries()) for (const f of fields) expect(row[f]).toBe(e.criteria[i].rationale);
  });

  test("counts of criteria present (above a fifth) or met (at the pass share), where they fit the field's bounds", () => {
    const e = finding(55, "fail", [crit("Scope", 3), crit("Liability", 2), crit("Fees", 8), crit("Term", 6)]);
    const int = (description?: string, maximum = 10) => ({ type: "integer", minimum: 0, maximum, ...(description ? { description } : {}) });
    const schema = object({
      clauses_present: int(),
      requirements_met_count: int(),
      how_many: int("How many of the requirements the applicant meets"),
      checklist_score: int("Number of the four required clauses that are present", 4),
      missing: int("Number of clauses missing"),
      // Two are met, more than the one this counts: some narrower set the findings do not mark, so left alone.
      essential_met: int("How many essential requirements are met", 1),
    });
    expect(filled(schema, e)).toEqual({
      clauses_present: 3,
      requirements_met_count: 2,
      how_many: 2,
      checklist_score: 3,
      missing: 1,
      essential_met: 0,
    });
  });

  test("essential and desirable counts and lists take the required criteria, or the optional ones", () => {
    const e = finding(83, "pass", [
      crit("E1. Registration", 10),
      crit("E2. Ward experience", 8),
      crit("D1. Mentoring", 5),
      crit("D2. Cardiology", 1),
    ]);
    const int = (maximum: number) => ({ type: "integer", minimum: 0, maximum });
    const schema = object({
      essential_met: int(2),
      desirable_met: int(2),
      missing_essentials: { type: "array", items: str() },
      unmet_desirables: { type: "array", items: str() },
    });
    const d1 = e.criteria[2].id;
    const d2 = e.criteria[3].id;
    // (Before: every criterion counted, 3 met out of a maximum of 2, so both counts were left at 0; and the desirable
    // D1 was listed as a missing essential.)
    const out = filled(schema, e, "", [d1, d2]);
    expect([out.essential_met, out.desirable_met, out.missing_essentials]).toEqual([2, 0, []]);
    expect(out.unmet_desirables.map((x: string) => x.split(":")[0])).toEqual(["D2. Cardiology", "D1. Mentoring"]);
  });

  test("a value another field disagrees with is set, and that field follows (if/then, allOf of conditions)", () => {
    const e = finding(72, "pass", [crit("Method", 8), crit("Analysis", 6)]);
    const classified = {
      type: "object",
      required: ["percent", "classification"],
      properties: {
        percent: { type: "number", minimum: 0, maximum: 100 },
        classification: { enum: ["Distinction", "Pass", "Fail"] },
        resubmission_required: { type: "boolean" },
      },
      if: { properties: { percent: { exclusiveMaximum: 50 } } },
      // biome-ignore lint/suspicious/noThenProperty: JSON Schema's own if/then/else keyword
      then: { required: ["resubmission_required"], properties: { classification: { const: "Fail" }, resubmission_required: { const: true } } },
      else: { properties: { classification: { enum: ["Distinction", "Pass"] } } },
    };
    // (Before: the stub's percent 0 put the output under "then", so 72 was refused and the classification stayed Fail.)
    expect(filled(classified, e)).toEqual({ percent: 72, classification: "Pass", resubmission_required: false });
    const decided = {
      type: "object",
      required: ["decision", "met"],
      properties: { decision: { enum: ["shortlist", "decline"] }, met: { type: "integer", minimum: 0, maximum: 2 } },
      // biome-ignore lint/suspicious/noThenProperty: JSON Schema's own if/then/else keyword
      allOf: [{ if: { properties: { decision: { const: "shortlist" } } }, then: { properties: { met: { const: 2 } } } }],
    };
    expect(filled(decided, e)).toEqual({ decision: "shortlist", met: 2 });
  });

  test("names an object requires without declaring them are filled by what they mean", () => {
    const schema = { type: "object", required: ["candidate_name", "contact_email", "decision", "rationale"], minProperties: 4 };
    const e = finding(83, "pass");
    // (Before: the stub's four empty strings were left, the names being in "required" only.)
    expect(filled(schema, e, "Hannah Kowalczyk, RN\n\nEmail: hannah@example.com")).toEqual({
      candidate_name: "Hannah Kowalczyk",
      contact_email: "hannah@example.com",
      decision: "pass",
      rationale: e.summary,
    });
  });

  test("the shapes teams' own schemas take: awarded marks, short comments, a oneOf of versions, a total out of a constant, a tuple named in its description", () => {
    const long = "A rationale that runs on. ".repeat(30);
    const e = finding(80, "needs_review", [{ ...crit("Method", 8), rationale: long }, crit("Analysis", 6)]);
    const marks = {
      type: "object",
      required: ["criteria"],
      properties: {
        criteria: {
          type: "array",
          items: {
            type: "object",
            required: ["criterion", "awarded", "comment"],
            properties: { criterion: str(), awarded: { type: "integer", minimum: 0, maximum: 10 }, comment: { type: "string", maxLength: 120 } },
          },
        },
      },
    };
    const out = filled(marks, e);
    // (Before: "awarded" said nothing of a score, and a rationale over maxLength was refused, leaving 0 and "".)
    expect(out.criteria.map((c: any) => c.awarded)).toEqual([8, 6]);
    expect(out.criteria[0].comment.length).toBeLessThanOrEqual(120);
    expect(out.criteria[0].comment).toStartWith("A rationale that runs on.");
    const versions = {
      type: "object",
      oneOf: [
        { required: ["grade_points"], properties: { grade_points: { type: "integer", minimum: 1, maximum: 0 } } },
        {
          required: ["version", "total", "out_of", "status"],
          properties: {
            version: { const: 2 },
            total: { type: "number", minimum: 0 },
            out_of: { const: 50 },
            status: { enum: ["compliant", "partially compliant", "non-compliant"] },
            feedback: str(),
          },
        },
      ],
    };
    // (Before: the branch's fields were left as the stub had them, total 0 and feedback "".)
    expect(filled(versions, e)).toEqual({ version: 2, total: 40, out_of: 50, status: "partially compliant", feedback: e.summary });
    const tuple = {
      type: "object",
      required: ["met"],
      properties: {
        met: {
          type: "array",
          description: "[criteria met, criteria missing]",
          prefixItems: [
            { type: "integer", minimum: 0, maximum: 5 },
            { type: "integer", minimum: 0, maximum: 5 },
          ],
          items: false,
        },
      },
    };
    expect(filled(tuple, finding(60, "pass", [crit("A", 8), crit("B", 7), crit("C", 1)]))).toEqual({ met: [2, 1] });
  });

  test("fields named in French, German or Spanish mean what their English words do; their grade words are a ladder", () => {
    const e = finding(62, "pass", [crit("Méthode", 6), crit("Analyse", 6)]);
    const text = "Étudiante: Sofia Marchetti\n\nLe compte rendu.";
    const french = object({
      etudiant: str("Nom et prénom de l'étudiant"),
      note_sur_20: { type: "number", minimum: 0, maximum: 20, description: "Note finale sur 20" },
      mention: { enum: ["Très bien", "Bien", "Assez bien", "Passable", "Insuffisant"] },
      admis: { type: "boolean" },
      appreciation: str(),
    });
    // (Before: "", 0, the first of the mentions whatever the mark, false, "".)
    expect(filled(french, e, text)).toEqual({
      etudiant: "Sofia Marchetti",
      note_sur_20: 12.4,
      mention: "Assez bien",
      admis: true,
      appreciation: e.summary,
    });
    const german = object({ bestanden: { type: "boolean" }, punktzahl: { type: "integer", minimum: 0, maximum: 100 }, zusammenfassung: str() });
    expect(filled(german, e)).toEqual({ bestanden: true, punktzahl: 62, zusammenfassung: e.summary });
    const spanish = object({ aprobado: { enum: ["sí", "no"] }, nota: { type: "number", minimum: 0, maximum: 10 } });
    expect(filled(spanish, finding(30, "fail"))).toEqual({ aprobado: "no", nota: 3 });
    // An English "note" is a comment, not a mark.
    expect(filled(object({ note: str() }), e)).toEqual({ note: e.summary });
  });

  test("fields named in Dutch or Italian mean what their English words do; their verdict words are read", () => {
    const e = finding(74, "pass", [crit("Rijbewijs B", 8), crit("Ervaring", 9), crit("Excel", 1)]);
    const cv = "Naam: Katarzyna Ellery (kandidaatnummer 0457)\n\nk.ellery@example.com\n\nBeschikbaar per 3 augustus 2026.";
    const dutch = object({
      naam: str("Volledige naam van de kandidaat"),
      essentiele_eisen_voldaan: { type: "integer", minimum: 0, maximum: 3, description: "Aantal essentiële eisen waaraan is voldaan" },
      cijfer: { type: "number", minimum: 1, maximum: 10, description: "Rapportcijfer (1-10)" },
      advies: { enum: ["uitnodigen", "reservelijst", "afwijzen"] },
      toelichting: str("Korte toelichting op het advies"),
    });
    // (Before: "", 0, 1, "uitnodigen" only as the stub's first member, and "". A mark of 1–10 is 1 + 0.74 × 9.)
    expect(filled(dutch, e, cv)).toEqual({
      naam: "Katarzyna Ellery",
      essentiele_eisen_voldaan: 2,
      cijfer: 7.66,
      advies: "uitnodigen",
      toelichting: e.summary,
    });
    expect(filled(object({ advies: { enum: ["uitnodigen", "reservelijst", "afwijzen"] } }), finding(50, "needs_review"))).toEqual({
      advies: "reservelijst",
    });
    expect(filled(object({ advies: { enum: ["uitnodigen", "reservelijst", "afwijzen"] } }), finding(20, "fail"))).toEqual({ advies: "afwijzen" });
    const italian = object({
      punteggio: { type: "integer", minimum: 0, maximum: 10, description: "Punteggio complessivo (0-10)" },
      esito: { enum: ["firmare", "restituire per modifiche", "inoltrare all'ufficio legale"] },
      sintesi: str(),
    });
    expect(filled(italian, e)).toEqual({ punteggio: 7, esito: "firmare", sintesi: e.summary });
    expect(filled(italian, finding(55, "needs_review")).esito).toBe("restituire per modifiche");
  });

  test("Polish, Swedish and Portuguese fields and verdict words; a RAG status; a name no one stated says so, never 'stub'", () => {
    const e = finding(74, "pass", [crit("Analiza", 8), crit("Kontekst", 7)]);
    const text = "Uczeń: Imogen Achterberg\n\nSubmitted: 3 March 2026\n\nThe essay.";
    const polish = object({
      uczen: str(),
      ocena_slownie: { enum: ["niedostateczny", "dopuszczający", "dostateczny", "dobry", "bardzo dobry", "celujący"] },
      zaliczone: { type: "boolean" },
      data_oddania: date(),
      uzasadnienie: str(),
    });
    // (Before: "", the first grade word whatever the mark, false, the first date, "".)
    expect(filled(polish, e, text)).toEqual({
      uczen: "Imogen Achterberg",
      ocena_slownie: "bardzo dobry",
      zaliczone: true,
      data_oddania: "2026-03-03",
      uzasadnienie: e.summary,
    });
    // The school grades are a ladder, 6 down to 1.
    expect(filled(polish, finding(8, "fail"), text).ocena_slownie).toBe("niedostateczny");
    const swedish = object({ beslut: { enum: ["kalla till intervju", "reserv", "avslag"] }, motivering: str() });
    expect(filled(swedish, finding(80, "pass"))).toEqual({ beslut: "kalla till intervju", motivering: finding(80, "pass").summary });
    expect(filled(swedish, finding(40, "fail")).beslut).toBe("avslag");
    const portuguese = object({ parecer: { enum: ["assinar", "negociar", "recusar"] } });
    expect(filled(portuguese, finding(60, "needs_review")).parecer).toBe("negociar");
    const rag = object({ status: { enum: ["RED", "AMBER", "GREEN"] } });
    expect([
      filled(rag, finding(80, "pass")).status,
      filled(rag, finding(62, "needs_review")).status,
      filled(rag, finding(20, "fail")).status,
    ]).toEqual(["GREEN", "AMBER", "RED"]);
    expect(filled(object({ referee: { type: "string", minLength: 1 } }), e).referee).toBe("not stated");
  });

  test("a venue hire's parties: a CIC, a name in capitals that starts with THE, the roles it defines, and signature blocks line by line", () => {
    const contract = [
      '(1) **THE CORN EXCHANGE HALLS (WEXMOOR) LTD**, whose registered office is at 2 Market Square (the **"Venue Owner"**); and',
      "",
      '(2) **BRIGHTWICK SCIENCE FESTIVAL CIC**, a community interest company (the **"Hirer"**).',
      "",
      "**Signed** for and on behalf of **THE CORN EXCHANGE HALLS (WEXMOOR) LTD**",
      "",
      "Signature: *M. Oduya-Fensham*",
      "",
      "Name: Marguerite Oduya-Fensham",
      "",
      "Date: 12 January 2026",
      "",
      "**Signed** for and on behalf of **BRIGHTWICK SCIENCE FESTIVAL CIC**",
      "",
      "Signature: *C. Throssell*",
      "",
      "Name: Callum Throssell",
      "",
      "Date: 15 January 2026",
    ].join("\n");
    const side = object({ legal_name: str(), signatory: object({ name: str(), signed_on: date() }) });
    // (Before: no party found (a CIC; a name with a place in brackets), and no block's lines tied to its party.)
    expect(filled(object({ venue_owner: side, hirer: side, locatario: str() }), finding(70, "pass"), contract)).toEqual({
      venue_owner: { legal_name: "The Corn Exchange Halls (Wexmoor) Ltd", signatory: { name: "Marguerite Oduya-Fensham", signed_on: "2026-01-12" } },
      hirer: { legal_name: "Brightwick Science Festival CIC", signatory: { name: "Callum Throssell", signed_on: "2026-01-15" } },
      locatario: "Brightwick Science Festival CIC",
    });
  });

  test("UK degree classes at the score's percentage; identifiers the input states; names without a title; WWW and EBI", () => {
    const classes = object({
      classification: { enum: ["First", "Upper Second", "Lower Second", "Third", "Fail"] },
      band: { enum: ["1st", "2:1", "2:2", "3rd", "Fail"] },
    });
    // (Before: "First" and "1st", the stub's first members, whatever the mark.)
    expect(filled(classes, finding(56, "pass"))).toEqual({ classification: "Lower Second", band: "2:2" });
    expect(filled(classes, finding(72, "pass"))).toEqual({ classification: "First", band: "1st" });
    expect(filled(classes, finding(35, "fail"))).toEqual({ classification: "Fail", band: "Fail" });
    const essay = "**Student:** Rowan Achterberg (student ID 40318826)\n**Tutor:** Dr. Miriam Fenwick-Hale\n\nThe essay.";
    const schema = object({
      studentName: str("Full name of the student"),
      studentId: { type: "string", pattern: "^[0-9]{8}$" },
      candidate: object({ name: str(), number: str("Student number if shown") }),
      tutor: str("Tutor's full name, without title"),
      went_well: { type: "array", items: str(), minItems: 1 },
      even_better_if: { type: "array", items: str(), minItems: 1 },
    });
    const e = finding(70, "pass", [crit("Sources", 9), crit("Context", 4)]);
    // (Before: the name with its bracket, a random ID, "" for the candidate, "Dr." kept, and [""] twice.)
    expect(filled(schema, e, essay)).toEqual({
      studentName: "Rowan Achterberg",
      studentId: "40318826",
      candidate: { name: "Rowan Achterberg", number: "40318826" },
      tutor: "Miriam Fenwick-Hale",
      went_well: ["Sources: 9/10"],
      even_better_if: ["Context: 4/10. Context scored 4/10: the reason."],
    });
  });

  test("rows of one schema for criteria of several maxima: each row's own name, maximum and marks", () => {
    const e = finding(71, "pass", [crit("Source Analysis", 17, 20), crit("Historical Context", 11, 15), crit("Referencing", 0, 10)]);
    const row = {
      type: "object",
      required: ["criterion", "max_marks", "awarded"],
      properties: {
        criterion: { enum: ["Source Analysis", "Historical Context", "Referencing"] },
        max_marks: { type: "integer", enum: [10, 15, 20], description: "Maximum for this criterion, as printed in the rubric" },
        awarded: { type: "integer", minimum: 0, maximum: 20, description: "Marks awarded for this criterion (never more than max_marks)" },
      },
    };
    // (Before: every row "Source Analysis" out of 10, and the marks of 15 and 10 scaled up to 20.)
    expect(filled(object({ criteria: { type: "array", minItems: 3, items: row } }), e).criteria).toEqual([
      { criterion: "Source Analysis", max_marks: 20, awarded: 17 },
      { criterion: "Historical Context", max_marks: 15, awarded: 11 },
      { criterion: "Referencing", max_marks: 10, awarded: 0 },
    ]);
  });

  test("a tuple of parties named by a constant role, a list of signatories, and dates the parties signed", () => {
    const contract = [
      'This Agreement is made between Saltmarsh Ferries Ltd (the "Client") and Quillon Hart Consulting Ltd (the "Consultant").',
      "",
      "It takes effect on 1 April 2026.",
      "",
      "**Signed for and on behalf of Saltmarsh Ferries Ltd (Client)**",
      "",
      "Name: Imogen Rathbone-Cole",
      "Title: Operations Director",
      "Date: 24 March 2026",
      "",
      "**Signed for and on behalf of Quillon Hart Consulting Ltd (Consultant)**",
      "",
      "Name: Declan Oyelaran-Frost",
      "Title: Managing Director",
      "Date: 20 March 2026",
    ].join("\n");
    const party = (role: string) => ({
      type: "object",
      required: ["role", "company", "signatory", "signatory_title"],
      properties: { role: { const: role }, company: str(), signatory: str("Name of the person who signed for this party"), signatory_title: str() },
    });
    const schema = object({
      parties: { type: "array", items: [party("Client"), party("Consultant")], additionalItems: false, minItems: 2 },
      signature_dates: { type: "array", items: [date("Date the Client signed"), date("Date the Consultant signed")], minItems: 2 },
      firmatari: {
        type: "array",
        minItems: 2,
        maxItems: 2,
        items: object({ nome: str("Nome e cognome del firmatario"), qualifica: str(), data_firma: date("Data della firma") }),
      },
    });
    // (Before: the tuple's companies and signatories "", both dates the effective date, and the first signatory twice
    // with the completion date.)
    expect(filled(schema, finding(77, "needs_review"), contract)).toEqual({
      parties: [
        { role: "Client", company: "Saltmarsh Ferries Ltd", signatory: "Imogen Rathbone-Cole", signatory_title: "Operations Director" },
        { role: "Consultant", company: "Quillon Hart Consulting Ltd", signatory: "Declan Oyelaran-Frost", signatory_title: "Managing Director" },
      ],
      signature_dates: ["2026-03-24", "2026-03-20"],
      firmatari: [
        { nome: "Imogen Rathbone-Cole", qualifica: "Operations Director", data_firma: "2026-03-24" },
        { nome: "Declan Oyelaran-Frost", qualifica: "Managing Director", data_firma: "2026-03-20" },
      ],
    });
  });

  test("a labelled date beats one a sentence mentions near the same word; a date pattern with the month's name", () => {
    const cv = "Katarzyna Ellery\n\n**Available to start: 3 August 2026** (four weeks' notice)\n\n- NEBOSH course starting 14 September 2026";
    const schema = object({
      start_date: date(),
      "Available From (DD-MMM-YYYY)": { type: "string", pattern: "^[0-3][0-9]-(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)-[0-9]{4}$" },
    });
    // (Before: the course's date, and a random "17-Jan-9166" from the pattern.)
    expect(filled(schema, finding(80, "pass"), cv)).toEqual({ start_date: "2026-08-03", "Available From (DD-MMM-YYYY)": "03-Aug-2026" });
  });

  test("names written in capitals, split into first and last, or filed surname first; parties named in capitals", () => {
    const cv = "# MARISOL ACHEAMPONG-REYES\n\nData Analyst\nmarisol@example.com";
    const schema = object({
      name: str(),
      person: object({ first_name: str(), last_name: str() }),
      bewerberin: object({ vorname: str(), nachname: str() }),
      applicant: { type: "string", pattern: "^[^,]+, [^,]+$" },
    });
    // (Before: the name stayed in capitals, and the split and surname-first fields were left empty.)
    expect(filled(schema, finding(70, "pass"), cv)).toEqual({
      name: "Marisol Acheampong-Reyes",
      person: { first_name: "Marisol", last_name: "Acheampong-Reyes" },
      bewerberin: { vorname: "Marisol", nachname: "Acheampong-Reyes" },
      applicant: "Acheampong-Reyes, Marisol",
    });
    const contract = [
      '(1) **QUILLON SYSTEMS LIMITED**, a company incorporated in England (the **"Supplier"**); and',
      "",
      '(2) **ASHGROVE VETERINARY GROUP LIMITED**, of Wexcombe (the **"Customer"**).',
      "",
      "Notices: Supplier: quillon@example.com, for the attention of the Chief",
    ].join("\n");
    // (Before: no party was found in capitals, and the notices line's "Supplier:" was taken for its name.)
    expect(filled(object({ supplier: str(), customer: str() }), finding(70, "pass"), contract)).toEqual({
      supplier: "Quillon Systems Limited",
      customer: "Ashgrove Veterinary Group Limited",
    });
    // A field named for reasons is the summary, whatever decision its description mentions; "bedingt geeignet" is a
    // person's call.
    const review = object({ begruendung: str("Begründung der Entscheidung"), eignung: { enum: ["geeignet", "bedingt geeignet", "nicht geeignet"] } });
    const e = finding(62, "needs_review");
    expect(filled(review, e)).toEqual({ begruendung: e.summary, eignung: "bedingt geeignet" });
  });

  test("a panel's and a register's own shapes: rows named by their clause, codes as keys, counts of issues, the criterion to work on first", () => {
    const e = finding(70, "pass", [crit("Parties", 9), crit("Fees", 3), crit("Exit", 8)]);
    const schema = object({
      rows: { type: "array", items: object({ clause: str(), quote: { type: ["string", "null"], maxLength: 30 } }) },
      spec: object({
        C1: object({ met: { enum: ["Y", "N"] } }),
        C2: object({ met: { enum: ["Y", "N"] } }),
        C3: object({ met: { enum: ["Y", "N"] } }),
      }),
      compliant_count: { type: "integer", minimum: 0, maximum: 3 },
      issue_count: { type: "integer", minimum: 0, maximum: 3 },
      "Clauses Met (of 3)": { type: "integer", minimum: 0, maximum: 3 },
      work_on_first: str("The rubric criterion to work on first"),
    });
    e.criteria[0].evidence = [{ quote: "The parties to this agreement are the Supplier and the Customer.", location: {} } as never];
    const out = filled(schema, e);
    // (Before: "rows" was no list of criteria, "C1" … named none, and these counts and the weakest were left empty.)
    expect(out.rows.map((r: { clause: string }) => r.clause)).toEqual(["Parties", "Fees", "Exit"]);
    expect(out.rows[0].quote).toBe("The parties to this agreement");
    expect(out.spec).toEqual({ C1: { met: "Y" }, C2: { met: "N" }, C3: { met: "Y" } });
    expect([out.compliant_count, out.issue_count, out["Clauses Met (of 3)"], out.work_on_first]).toEqual([2, 1, 2, "Fees"]);
  });

  test("Y/N columns are booleans the column's words decide ('Reserve?' says a person's call); met / partly met / not met follow each row", () => {
    const sheet = object({
      "Shortlisted?": { enum: ["Y", "N"], description: "Y if the candidate goes straight to interview" },
      "Reserve?": { enum: ["Y", "N"], description: "Y if the candidate is held in reserve" },
      rows: { type: "array", items: object({ criterion: str(), status: { enum: ["met", "partly met", "not met"] } }) },
    });
    const held = filled(sheet, finding(70, "needs_review", [crit("SQL", 9), crit("Power BI", 5), crit("Logistics", 1)]));
    // (Before: "Y" and "Y": a yes/no enum was read as pass/fail words, and a needs_review fell back to the score. And
    // "met" for every row: "partly met" named no level.)
    expect([held["Shortlisted?"], held["Reserve?"]]).toEqual(["N", "Y"]);
    expect(held.rows.map((r: { status: string }) => r.status)).toEqual(["met", "partly met", "not met"]);
    // "Hold in reserve pool" is a person's call too. (Before: "Invite to interview", the score deciding.)
    expect(
      filled(object({ recommendation: { enum: ["Invite to interview", "Hold in reserve pool", "Reject"] } }), finding(70, "needs_review"))
        .recommendation,
    ).toBe("Hold in reserve pool");
    const passed = filled(sheet, finding(90, "pass", [crit("SQL", 9)]));
    expect([passed["Shortlisted?"], passed["Reserve?"]]).toEqual(["Y", "N"]);
  });

  test("Welsh fields, a German contract review's traffic light, signing recommendations, and GCSE grades written as strings", () => {
    const welsh = object({
      enw_ymgeisydd: str("Enw llawn yr ymgeisydd"),
      cyfanswm_marciau: { type: "integer", minimum: 0, maximum: 40 },
      pasio: { type: "boolean" },
      adborth: str("Adborth i'r ymgeisydd"),
    });
    const e = finding(70, "pass");
    // (Before: "", 0, false and "": no Welsh word was read.)
    expect(filled(welsh, e, "Name: Eilidh Marchetti\n\nMy enquiry.")).toEqual({
      enw_ymgeisydd: "Eilidh Marchetti",
      cyfanswm_marciau: 28,
      pasio: true,
      adborth: e.summary,
    });
    const review = object({
      ampel: { enum: ["grün", "gelb", "rot"] },
      empfehlung: { enum: ["zur Unterschrift freigeben", "nach Änderungen unterschreiben", "nicht unterschreiben"] },
      recommendation: { enum: ["Approve for signature", "Sign after amendments", "Do not sign – return to supplier"] },
      decision: { enum: ["interview", "talent_pool", "decline"] },
    });
    // (Before: "grün", "zur Unterschrift freigeben", "Approve for signature" and "interview" for a person's call: the
    // score decided.)
    expect(filled(review, finding(62, "needs_review"))).toEqual({
      ampel: "gelb",
      empfehlung: "nach Änderungen unterschreiben",
      recommendation: "Sign after amendments",
      decision: "talent_pool",
    });
    expect(filled(review, finding(30, "fail"))).toMatchObject({
      ampel: "rot",
      empfehlung: "nicht unterschreiben",
      recommendation: "Do not sign – return to supplier",
    });
    // A finding's "issue" is what its criterion's rationale says. (Before: "".)
    const findings = object({ findings: { type: "array", items: object({ clause: str(), issue: str() }) } });
    const withFindings = filled(findings, finding(50, "fail", [crit("Price", 2)]));
    expect(withFindings.findings[0]).toEqual({ clause: "Price", issue: withFindings.findings[0].issue });
    expect(withFindings.findings[0].issue.length).toBeGreaterThan(10);
    // A message to someone is the evaluation's summary for them. (Before: "".)
    expect(filled(object({ MessageToParents: { type: "string", maxLength: 800 } }), e).MessageToParents).toBe(e.summary);
    // GCSE grades 9 to 1 and U as strings: the nearest to the score. (Before: "9" whatever the score.)
    const gcse = object({
      working_at_grade: { type: "string", enum: ["9", "8", "7", "6", "5", "4", "3", "2", "1", "U"], description: "Working-at grade" },
    });
    expect(filled(gcse, finding(70, "pass")).working_at_grade).toBe("7");
    expect(filled(gcse, finding(5, "fail")).working_at_grade).toBe("U");
  });

  test("a sheet's columns keyed by criterion with a code letter and a scale ('B Methods (max 8)') get each criterion's mark; 'Essentials Met (out of 5)' counts", () => {
    const e = finding(70, "pass", [
      crit("Enquiry question and hypotheses", 6, 6),
      crit("Methods and data collection", 8, 8),
      crit("Analysis and interpretation", 5, 10),
    ]);
    const sheet = object({
      "A Question and Hypotheses (max 6)": { type: "integer", minimum: 0, maximum: 6 },
      "B Methods (max 8)": { type: "integer", minimum: 0, maximum: 8 },
      "D Analysis (max 10)": { type: "integer", minimum: 0, maximum: 10 },
      "Essentials Met (out of 3)": { type: "integer", minimum: 0, maximum: 3 },
    });
    // (Before: 0, 0, 0, as no criterion was named with "max" in its name; then 10, the maximum; and 0 met.)
    expect(filled(sheet, e)).toEqual({
      "A Question and Hypotheses (max 6)": 6,
      "B Methods (max 8)": 8,
      "D Analysis (max 10)": 5,
      "Essentials Met (out of 3)": 2,
    });
  });

  test("an array that must contain an item of each of several kinds gets one of each (not one item that is all of them)", () => {
    const label = (l: string) => ({ contains: { type: "object", properties: { label: { const: l } }, required: ["label"] }, maxContains: 1 });
    const schema = object({
      keyDates: {
        type: "array",
        uniqueItems: true,
        items: object({ label: { enum: ["termCommencement", "breakDate", "termExpiry"] }, date: date() }),
        allOf: [label("termCommencement"), label("breakDate")],
      },
    });
    // (Before: refused as unsatisfiable, the two "contains" merged into one item labelled both.)
    const out = filled(schema, finding(60, "pass"), "The term commences on 1 August 2026 and the break date is 31 July 2031.");
    expect(out.keyDates.map((d: { label: string }) => d.label).sort()).toEqual(["breakDate", "termCommencement"]);
  });

  test("fields an if/then ties together (a Fail's mark, grade, resubmission and deadline) are set together", () => {
    const slip = {
      type: "object",
      required: ["mark_20", "grade", "resubmission_offered"],
      properties: {
        mark_20: { type: "integer", minimum: 0, maximum: 20, description: "Overall mark out of 20" },
        grade: { enum: ["Distinction", "Merit", "Pass", "Fail"] },
        resubmission_offered: { type: "boolean" },
        resubmission_deadline: { type: "string", format: "date" },
      },
      if: { properties: { grade: { const: "Fail" } } },
      // biome-ignore lint/suspicious/noThenProperty: JSON Schema's own if/then/else keyword
      then: { properties: { mark_20: { maximum: 7 }, resubmission_offered: { const: true } }, required: ["resubmission_deadline"] },
      else: { properties: { mark_20: { minimum: 8 }, resubmission_offered: { const: false } }, not: { required: ["resubmission_deadline"] } },
    };
    // (Before: the stub's Fail held every one of them in place, mark 0.) 82 % is a Distinction (70 % and up).
    expect(filled(slip, finding(82, "pass"))).toEqual({ mark_20: 16, grade: "Distinction", resubmission_offered: false });
    expect(filled(slip, finding(55, "pass"))).toEqual({ mark_20: 11, grade: "Pass", resubmission_offered: false });
  });

  test("an object keyed by the criteria's names gets each criterion's mark, or its comment", () => {
    const e = finding(80, "pass", [crit("Introduction and Aim", 7), crit("Method", 9), crit("Results and Presentation of Data", 4)]);
    const mark = { type: "integer", minimum: 0, maximum: 10 };
    const schema = object({
      criterion_marks: object({ introduction: mark, method: mark, results: mark }),
      comments: object({ method: str(), results: str() }),
      summary: str(),
    });
    // (Before: the marks stayed 0 and the comments empty, the fields' names being the criteria's, not "score".)
    const out = filled(schema, e);
    expect(out.criterion_marks).toEqual({ introduction: 7, method: 9, results: 4 });
    expect(out.comments.method).toBe(e.criteria[1].rationale);
    expect(out.comments.results).toBe(e.criteria[2].rationale);
    expect(out.summary).toBe(e.summary);
  });

  test("a candidate card: a tuple named 'who', a UK mobile whole, how many criteria the advert lists, and 'why'", () => {
    const e = finding(71, "pass", [crit("Degree", 9), crit("Lab experience", 8), crit("Licence", 1), crit("LIMS", 7)]);
    const cv = "Niamh Castellanos\nniamh.castellanos@example.com · 07700 900482\n\nLaboratory technician.";
    const count = { type: "integer", minimum: 0 };
    const schema = object({
      who: {
        type: "array",
        description: "[full name, email, phone]",
        prefixItems: [{ type: "string", minLength: 1 }, { type: "string", format: "email" }, str()],
        items: false,
      },
      counts: { type: "array", description: "[essential criteria met, essential criteria in the advert]", prefixItems: [count, count], items: false },
      why: str(),
    });
    // (Before: the whole tuple a stub ("who" was read as whose name, and "" refused the list), the phone "7700 9004",
    // 0 criteria in the advert, and "why" empty.)
    expect(filled(schema, e, cv)).toEqual({
      who: ["Niamh Castellanos", "niamh.castellanos@example.com", "07700 900482"],
      counts: [3, 4],
      why: e.summary,
    });
  });

  test("a spreadsheet row: marks keyed by criterion headers ('Visual Analysis (0-5)') beside a name, a total and a result", () => {
    const e = finding(85, "pass", [crit("Visual Analysis", 4, 5), crit("Historical Context", 5, 5), crit("Argument and Interpretation", 3, 5)]);
    const mark = { type: "integer", minimum: 0, maximum: 5 };
    const schema = object({
      Student: str(),
      "Visual Analysis (0-5)": mark,
      "Historical Context (0-5)": mark,
      "Argument (0-5)": mark,
      "Total (out of 15)": { type: "integer", minimum: 0, maximum: 15 },
    });
    // (Before: every mark 0: fields of several types were never read as keyed by the criteria.)
    const out = filled(schema, e, "Student: Imogen Achterberg\n\nThe essay.");
    expect([out["Visual Analysis (0-5)"], out["Historical Context (0-5)"], out["Argument (0-5)"]]).toEqual([4, 5, 3]);
    expect(out.Student).toBe("Imogen Achterberg");
  });

  test("the person's name on a CV's first line before the letters after it; a marker is the tutor or teacher line", () => {
    const schema = object({ candidate: object({ name: str() }), marker: object({ name: str() }), tutor: str() });
    const text = "# Hannah Kowalczyk, RN (Adult)\n\nModule tutor: Dr. Alan Brightwater\n\nRegistered nurse since 2023.";
    // (Before: the name was "" and the tutor's line reached neither field.)
    expect(filled(schema, finding(80, "pass"), text)).toEqual({
      candidate: { name: "Hannah Kowalczyk" },
      marker: { name: "Dr. Alan Brightwater" },
      tutor: "Dr. Alan Brightwater",
    });
  });

  test("a number named for nothing takes its parent's meaning (marks awarded and available); a string does not", () => {
    const e = finding(60, "pass", [crit("Argument", 7), crit("Style", 5, 8)]);
    const marks = object({ awarded: { type: "number", minimum: 0 }, available: { type: "number", exclusiveMinimum: 0 } });
    const schema = object({
      marks,
      student: object({ name: str(), set: str() }),
      criteria: {
        type: "array",
        items: object({ criterion: str(), points: object({ value: { type: "integer" }, total_possible: { type: "integer" } }) }),
      },
    });
    const out = filled(schema, e, "Name: Ada Brennan\n\nThe essay.");
    expect(out.marks).toEqual({ awarded: 12, available: 18 });
    expect(out.student).toEqual({ name: "Ada Brennan", set: "" });
    expect(out.criteria).toEqual([
      { criterion: "Argument", points: { value: 7, total_possible: 10 } },
      { criterion: "Style", points: { value: 5, total_possible: 8 } },
    ]);
  });

  test("the organisations that are parties fill company, party and role fields, each by the role the input defines", () => {
    const contract = `CONSULTING AGREEMENT

This agreement is made between **Alder & Finch Consulting LLP**, of 3 Mill Lane, Leeds (the "Consultant"), and
**Brightwater Foods plc**, of 40 Harbour Road, Hull (the "Customer").

1. The Consultant shall advise the Customer on its supply chain.

Signed for **Alder & Finch Consulting LLP**
Name: Joanna Pike
Title: Partner

Signed for **Brightwater Foods plc**
Name: Omar Haddad
Title: Finance Director`;
    const party = object({ company: str(), signatory: object({ name: str(), title: str() }) });
    const schema = object({
      parties: { type: "array", items: { type: "string" }, minItems: 2, uniqueItems: true },
      listed: { type: "array", items: object({ name: str(), role: { enum: ["consultant", "customer", "other"] } }), description: "The parties" },
      supplier: party,
      customer: party,
      client_name: str(),
      organisation: str(),
      reviewer: str("Name of the reviewing lawyer"),
    });
    expect(filled(schema, finding(70, "pass"), contract)).toEqual({
      parties: ["Alder & Finch Consulting LLP", "Brightwater Foods plc"],
      listed: [
        { name: "Alder & Finch Consulting LLP", role: "consultant" },
        { name: "Brightwater Foods plc", role: "customer" },
      ],
      supplier: { company: "Alder & Finch Consulting LLP", signatory: { name: "Joanna Pike", title: "Partner" } },
      customer: { company: "Brightwater Foods plc", signatory: { name: "Omar Haddad", title: "Finance Director" } },
      client_name: "Brightwater Foods plc",
      organisation: "Alder & Finch Consulting LLP",
      // Nobody in the input is the reviewer: a signatory's "Name:" line is no answer.
      reviewer: "",
    });
  });

  test("companies named one after another, or in a sentence in capitals, are each its own party", () => {
    const parties = object({ parties: { type: "array", items: str() } });
    // (Before: "Alder & Finch Consulting LLP and Brightwater Foods plc" was one party; "THIS AGREEMENT IS MADE BETWEEN
    // ACME WIDGETS LIMITED" was none, or with its sentence.)
    expect(filled(parties, finding(70, "pass"), "This agreement is between Alder & Finch Consulting LLP and Brightwater Foods plc.")).toEqual({
      parties: ["Alder & Finch Consulting LLP", "Brightwater Foods plc"],
    });
    expect(filled(parties, finding(70, "pass"), "THIS AGREEMENT IS MADE BETWEEN ACME WIDGETS LIMITED AND BETA LLP.")).toEqual({
      parties: ["Acme Widgets Limited", "Beta LLP"],
    });
  });

  test("an NDA's parties by their roles (bold inside the quotes), each with the signatory of its own signature block", () => {
    const nda = `NON-DISCLOSURE AGREEMENT

(1) **Lumenfold Robotics Ltd**, of Unit 4, Stourley (the "**Disclosing Party**"); and

(2) **Carrowmere Analytics LLP**, of 2 Wharf Row, Millbridge (the "**Recipient**").

1. The Recipient shall keep the Confidential Information secret.

**Signed** for and on behalf of **Lumenfold Robotics Ltd** (Disclosing Party)

Name: Eleanor Vasquez-Reid
Title: Chief Executive Officer
Date: 26 February 2026

**Signed** for and on behalf of **Carrowmere Analytics LLP** (Recipient)

Name: Felix Armitage
Title: Designated Member
Date: 27 February 2026`;
    const signatory = object({ name: str(), title: str(), signed_on: date() });
    const schema = object({
      receiving_party: str(),
      disclosing_party: str(),
      parties: { type: "array", items: object({ name: str(), role: { enum: ["disclosing party", "recipient"] }, signatory }) },
      receiving: object({ legal_name: str(), role: str(), signatory: object({ name: str(), position: str() }) }),
      checks: { type: "array", items: object({ item: str(), result: { enum: ["present", "missing"] } }) },
    });
    // (Before: no roles were read through the bold, so the receiving party was the first one named; and the "Name:"
    // lines, a blank line below "Signed for …", belonged to no party.)
    expect(filled(schema, finding(70, "pass"), nda)).toEqual({
      receiving_party: "Carrowmere Analytics LLP",
      disclosing_party: "Lumenfold Robotics Ltd",
      parties: [
        {
          name: "Lumenfold Robotics Ltd",
          role: "disclosing party",
          signatory: { name: "Eleanor Vasquez-Reid", title: "Chief Executive Officer", signed_on: "2026-02-26" },
        },
        {
          name: "Carrowmere Analytics LLP",
          role: "recipient",
          signatory: { name: "Felix Armitage", title: "Designated Member", signed_on: "2026-02-27" },
        },
      ],
      // (Before: a party's "legal_name" was its signatory's, and a signatory's "position" and a check's "item" empty.)
      receiving: { legal_name: "Carrowmere Analytics LLP", role: "recipient", signatory: { name: "Felix Armitage", position: "Designated Member" } },
      checks: [
        { item: "Argument", result: "present" },
        { item: "Style", result: "present" },
      ],
    });
  });
});
