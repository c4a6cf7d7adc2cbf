// Any output schema offline: the local evaluator's findings mapped onto a workflow's own schema, validated.
import { describe, expect, test } from "bun:test";
import { type EvaluateInput, evaluate } from "../../src/engine";
import { compileSchema } from "../../src/engine/schema";
import type { EngineDocument } from "../../src/engine/types";
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
    expect(weak.clauses.every((c: { found: boolean }) => !c.found)).toBe(true);
    expect(weak.clauses.filter((c: { risk: string }) => c.risk === "high").length).toBeGreaterThanOrEqual(3);
    expect(weak.skills.every((c: { present: boolean }) => !c.present)).toBe(true);
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
