// Model grading that follows the rubric (issue 14.4): one call per criterion with its levels and evidence, samples and
// their median, disagreement as needs_review, quotes checked against the input; a fake OpenAI-compatible server.
import { afterEach, describe, expect, test } from "bun:test";
import type { Config } from "../../src/config";
import { type EvaluateInput, evaluate } from "../../src/engine";
import { compileSchema, EVALUATION_SCHEMA } from "../../src/engine/schema";
import type { Evaluation, ModelPolicy } from "../../src/engine/types";
import { RUBRIC_MD, STRONG_ESSAY, textDoc } from "./fixtures";

const LEVELS_RUBRIC = `# Story rubric

## Task
Write a story about a time you or someone you know was patient.

## Traits

### Ideas
- 3: Tells a clearly focused story with well chosen, vivid details.
- 2: Tells a story that is adequately focused, with some details.
- 1: Tells a story with little focus and few details.
- 0: No story, or off the task.

### Conventions
- 3: Consistent, accurate spelling, punctuation and grammar.
- 2: Adequate command of spelling, punctuation and grammar.
- 1: Limited command of spelling, punctuation and grammar.
- 0: Little or no command of spelling, punctuation and grammar.
`;

const STORY = [
  "My grandmother taught me patience at the bus stop on Elm Street.",
  "The bus was forty minutes late and the rain would not stop.",
  "Instead of complaining, she told me how she once waited three days for a letter from my grandfather.",
  "When the bus finally came, she smiled and said that waiting is just time you have not used yet.",
].join(" ");
const QUOTE = "The bus was forty minutes late and the rain would not stop.";
const INVENTED = "She waited a whole year for the bus.";

interface Seen {
  body: { messages: { role: string; content: string }[]; temperature: number; response_format?: { json_schema?: { schema: unknown } } };
}
const servers: ReturnType<typeof Bun.serve>[] = [];
afterEach(() => {
  for (const s of servers.splice(0)) s.stop(true);
});

/** A fake model server; `reply` gets the user message and how many calls named the same criterion before. */
function fakeModel(reply: (user: string, nthForCriterion: number) => unknown, samples = 1) {
  const calls: Seen[] = [];
  const perCriterion = new Map<string, number>();
  const server = Bun.serve({
    port: 0,
    async fetch(req) {
      const seen = { body: (await req.json()) as Seen["body"] };
      calls.push(seen);
      const user = seen.body.messages.find((m) => m.role === "user")?.content ?? "";
      const criterion = /# Criterion: ([^\n(]+)/.exec(user)?.[1]?.trim() ?? "";
      const n = (perCriterion.get(criterion) ?? 0) + 1;
      perCriterion.set(criterion, n);
      return Response.json({
        model: "fake-7b",
        choices: [{ index: 0, message: { role: "assistant", content: JSON.stringify(reply(user, n)) }, finish_reason: "stop" }],
        usage: { prompt_tokens: 100, completion_tokens: 20 },
      });
    },
  });
  servers.push(server);
  const llm: NonNullable<Config["llm"]> = {
    baseUrl: `http://127.0.0.1:${server.port}/v1`,
    apiKey: null,
    model: "fake-7b",
    timeoutMs: 5_000,
    samples,
  };
  return { llm, calls };
}

async function input(
  llm: NonNullable<Config["llm"]>,
  over: { rubric?: string; text?: string; policy?: ModelPolicy; product?: string } = {},
): Promise<EvaluateInput> {
  return {
    workspaceId: "ws_test",
    mode: "live",
    workflow: { userPrompt: null, outputSchema: null, modelPolicy: over.policy ?? "auto", productCode: over.product ?? "education" },
    references: [await textDoc("ref_rubric", "rubric.md", over.rubric ?? LEVELS_RUBRIC)],
    inputs: [await textDoc("doc_story", "story.txt", over.text ?? STORY)],
    llm,
    contextBudgetChars: 400_000,
  };
}

const criterionOf = (user: string) => /# Criterion: ([^\n(]+)/.exec(user)?.[1]?.trim();

describe("model grading by rubric criterion", () => {
  test("one call per criterion, each carrying that criterion's levels and the input, level before number, temperature 0", async () => {
    const { llm, calls } = fakeModel((user) => ({
      evidence: [{ document_id: "doc_story", quote: QUOTE, location: {} }],
      rationale: "Focused on one wait, with details.",
      level_descriptor: criterionOf(user) === "Ideas" ? "Tells a clearly focused story with well chosen, vivid details." : "Adequate command.",
      score: criterionOf(user) === "Ideas" ? 3 : 2,
    }));
    const r = await evaluate(await input(llm));

    expect(calls).toHaveLength(2);
    const users = calls.map((c) => c.body.messages[1].content);
    expect(users.map(criterionOf).sort()).toEqual(["Conventions", "Ideas"]);
    for (const call of calls) expect(call.body.temperature).toBe(0);
    const ideas = users.find((u) => criterionOf(u) === "Ideas") as string;
    const conventions = users.find((u) => criterionOf(u) === "Conventions") as string;
    expect(ideas).toContain("- 3: Tells a clearly focused story with well chosen, vivid details.");
    expect(ideas).toContain("- 0: No story, or off the task.");
    expect(ideas).not.toContain("spelling, punctuation and grammar");
    expect(conventions).toContain("- 2: Adequate command of spelling, punctuation and grammar.");
    expect(conventions).not.toContain("vivid details");
    for (const u of users) expect(u).toContain(QUOTE); // the evidence: a short input is shown whole
    // The schema asks for the level's descriptor before the number, and the number is one of the levels.
    const schema = calls[0].body.response_format?.json_schema?.schema as { properties: Record<string, { enum?: number[] }> };
    const keys = Object.keys(schema.properties);
    expect(keys.indexOf("level_descriptor")).toBeLessThan(keys.indexOf("score"));
    expect(schema.properties.score.enum).toEqual([0, 1, 2, 3]);

    const out = r.value as Evaluation;
    expect(compileSchema(EVALUATION_SCHEMA).validate(out)).toBeNull();
    expect(out.criteria.map((c) => [c.title, c.score, c.max_score])).toEqual([
      ["Ideas", 3, 3],
      ["Conventions", 2, 3],
    ]);
    expect(out.score).toBe(83);
    expect(out.verdict).toBe("pass"); // the rubric's "Adequate" level 2 puts the line at 67
    expect(out.criteria[0].rationale).toContain("Level 3: Tells a clearly focused story");
    expect(r.usage).toEqual({ input_tokens: 200, output_tokens: 40, model: "fake-7b", rag_strategy: "fulltext", unresolved_quotes: 0 });
  });

  test("a long input: each criterion's prompt holds the passages retrieved for it, not the whole input", async () => {
    const filler = Array.from(
      { length: 120 },
      (_, i) => `Paragraph ${i} is about the school canteen menu, lunch queues and the price of sandwiches on Fridays.`,
    ).join("\n\n");
    const text = `${filler}\n\n${STRONG_ESSAY}`;
    const { llm, calls } = fakeModel(() => ({ evidence: [], rationale: "ok", score: 10 }));
    await evaluate(await input(llm, { rubric: RUBRIC_MD, text }));
    expect(calls).toHaveLength(5);
    const evidenceCall = calls.map((c) => c.body.messages[1].content).find((u) => criterionOf(u) === "Evidence") as string;
    expect(evidenceCall).toContain("passages of the input most relevant to this criterion");
    expect(evidenceCall).toContain("stormwater");
    expect(evidenceCall.length).toBeLessThan(text.length);
  });

  test("samples: the median is kept; samples on different levels make the run needs_review", async () => {
    const ideas = [3, 1, 2];
    const { llm, calls } = fakeModel(
      (user, n) => ({
        evidence: [],
        rationale: `sample ${n}`,
        level_descriptor: "x",
        score: criterionOf(user) === "Ideas" ? ideas[n - 1] : 3,
      }),
      3,
    );
    const r = await evaluate(await input(llm));
    expect(calls).toHaveLength(6); // 2 criteria × 3 samples
    const out = r.value as Evaluation;
    expect(out.criteria.map((c) => c.score)).toEqual([2, 3]);
    expect(out.criteria[0].rationale).toContain("disagreed (3, 1, 2)");
    expect(out.verdict).toBe("needs_review");
    expect(out.summary).toContain("disagreed on Ideas");
    expect(r.usage.input_tokens).toBe(600);
  });

  test("samples that agree decide the verdict", async () => {
    const { llm } = fakeModel(() => ({ evidence: [], rationale: "r", level_descriptor: "x", score: 1 }), 3);
    const out = (await evaluate(await input(llm))).value as Evaluation;
    expect(out.verdict).toBe("fail");
    expect(out.score).toBe(33);
  });

  test("a weighted rubric: each criterion graded on its own scale, the overall score weighing each by its weight", async () => {
    const weighted = [
      "Each criterion is scored on a 1-5 scale (1 = Poor, 2 = Fair, 3 = Good, 4 = Very good, 5 = Excellent).",
      "",
      "| Criterion | Weight | What we look for |",
      "|---|---|---|",
      "| Ideas | 75% | A clearly focused story with vivid details. |",
      "| Conventions | 25% | Accurate spelling, punctuation and grammar. |",
    ].join("\n");
    const { llm, calls } = fakeModel((user) => ({
      evidence: [],
      rationale: "r",
      level_descriptor: "x",
      score: criterionOf(user) === "Ideas" ? 5 : 1,
    }));
    const out = (await evaluate(await input(llm, { rubric: weighted }))).value as Evaluation;
    expect(calls[0].body.messages.find((m) => m.role === "user")?.content).toContain("(scored 0–5)");
    expect(out.criteria.map((c) => [c.score, c.max_score])).toEqual([
      [5, 5],
      [1, 5],
    ]);
    // 0.75 × 5/5 + 0.25 × 1/5 = 80 (summed, 6 of 10 would be 60).
    expect(out.score).toBe(80);
    expect(out.criteria[0].rationale).toContain("It weighs 75% of the overall score.");
  });

  test("a job advert's nice-to-haves add to the score but are no part of the pass", async () => {
    // The model met both must-haves and neither extra: 20 of 40 (50) failed at the default line of 60.
    const advert = [
      "## Requirements",
      "- Ideas that keep a clear focus",
      "- Conventions of spelling and grammar",
      "## Nice to have",
      "- Dialogue",
      "- A twist at the end",
    ].join("\n");
    const { llm } = fakeModel((user) => ({ evidence: [], rationale: "r", score: /Ideas|Conventions/.test(criterionOf(user) ?? "") ? 10 : 0 }));
    const out = (await evaluate({ ...(await input(llm, { rubric: advert })), passThreshold: 60 })).value as Evaluation;
    expect(out.score).toBe(50);
    expect(out.verdict).toBe("pass");
    expect(out.summary).toContain("against a pass line of 60 (the required criteria 100/100; the optional ones add to the score only)");
  });

  describe("a job's must-haves (hr): the local evaluator's rules hold the model's verdict back", () => {
    const advert = ["## Requirements", "- 5+ years of Python experience", "- SQL and data modelling", "## Nice to have", "- Kubernetes"].join("\n");
    const cv = (roles: string) => `Jane Doe\nSoftware engineer\n\nExperience\n${roles}\n\nSkills\nPython, SQL, data modelling.`;
    // The model gives every criterion its top: only the CV's dates or a must-have it scored as missing can change a pass.
    const allTop = () => fakeModel(() => ({ evidence: [], rationale: "Meets it.", score: 10 }));

    test("a CV whose dated roles show a year against five asked fails, and the summary says so", async () => {
      const { llm } = allTop();
      const text = cv("Python developer, Acme Ltd, Jan 2023 – Dec 2023");
      const out = (await evaluate({ ...(await input(llm, { rubric: advert, text, product: "hr" })), passThreshold: 60 })).value as Evaluation;
      expect(out.score).toBe(100);
      expect(out.verdict).toBe("fail");
      expect(out.summary).toContain("Fewer years than required: 5+ years of Python experience (asks 5, the dated roles show about 1)");
      // Under another product the same answers pass: the rule is the must-haves'.
      const essay = (await evaluate({ ...(await input(llm, { rubric: advert, text })), passThreshold: 60 })).value as Evaluation;
      expect(essay.verdict).toBe("pass");
    });

    test("short by less than a quarter of the years asked is a person's call; enough years pass", async () => {
      const { llm } = allTop();
      const near = cv("Python developer, Acme Ltd, Jan 2016 – Dec 2016\nData engineer, Beta plc, Jan 2018 – Dec 2020");
      const nearOut = (await evaluate({ ...(await input(llm, { rubric: advert, text: near, product: "hr" })), passThreshold: 60 }))
        .value as Evaluation;
      expect(nearOut.verdict).toBe("needs_review");
      expect(nearOut.summary).toContain("asks 5, the dated roles show about 4");
      const enough = cv("Python developer, Acme Ltd, Jan 2014 – Dec 2016\nData engineer, Beta plc, Jan 2017 – Dec 2020");
      const enoughOut = (await evaluate({ ...(await input(llm, { rubric: advert, text: enough, product: "hr" })), passThreshold: 60 }))
        .value as Evaluation;
      expect(enoughOut.verdict).toBe("pass");
      expect(enoughOut.summary).not.toContain("Fewer years");
    });

    test("a pass with a must-have the model scored as missing is a person's call; a missing nice-to-have is not", async () => {
      const text = cv("Python developer, Acme Ltd, Jan 2014 – Dec 2020");
      const missing = (title: string) =>
        fakeModel((user) => ({ evidence: [], rationale: "r", score: criterionOf(user)?.startsWith(title) ? 1 : 10 }));
      const sql = (await evaluate({ ...(await input(missing("SQL").llm, { rubric: advert, text, product: "hr" })), passThreshold: 50 }))
        .value as Evaluation;
      expect(sql.verdict).toBe("needs_review");
      expect(sql.summary).toContain("Not found: SQL and data modelling.");
      const k8s = (await evaluate({ ...(await input(missing("Kubernetes").llm, { rubric: advert, text, product: "hr" })), passThreshold: 50 }))
        .value as Evaluation;
      expect(k8s.verdict).toBe("pass");
      expect(k8s.summary).not.toContain("Not found");
    });
  });

  test("quotes that are not text of the input are dropped and counted; kept ones carry their location", async () => {
    const { llm } = fakeModel(() => ({
      evidence: [
        { document_id: "doc_story", quote: QUOTE, location: { page: 4 } },
        { document_id: "doc_story", quote: INVENTED, location: {} },
      ],
      rationale: "r",
      level_descriptor: "x",
      score: 2,
    }));
    const r = await evaluate(await input(llm));
    const out = r.value as Evaluation;
    expect(r.usage.unresolved_quotes).toBe(2); // one per criterion
    for (const c of out.criteria) {
      expect(c.evidence).toEqual([{ document_id: "doc_story", quote: QUOTE, location: {} }]);
    }
  });

  test("the fulltext and file_search policies and custom schemas keep the one whole-document call", async () => {
    const whole: Evaluation = { summary: "s", score: 50, verdict: "fail", criteria: [] };
    const { llm, calls } = fakeModel(() => whole);
    await evaluate(await input(llm, { policy: "deepseek-1m-fulltext" }));
    await evaluate(await input(llm, { policy: "gemini-file-search" }));
    expect(calls).toHaveLength(2);
    for (const c of calls) expect(c.body.messages[1].content).not.toContain("# Criterion:");
  });
});

test("a criterion whose call fails fails the run with model_error, and the calls still waiting are not made", async () => {
  const { llm, calls } = fakeModel(() => ({ evidence: [], rationale: "r", score: 10 }));
  let n = 0;
  const failing = Bun.serve({
    port: 0,
    fetch() {
      n++;
      return Response.json({ error: { message: "model not loaded" } }, { status: 400 });
    },
  });
  servers.push(failing);
  const err = await evaluate(
    await input({ ...llm, baseUrl: `http://127.0.0.1:${failing.port}/v1` }, { rubric: RUBRIC_MD, text: STRONG_ESSAY }),
  ).catch((e) => e);
  expect(err.code).toBe("model_error");
  expect(err.message).toContain("model not loaded");
  expect(n).toBeLessThanOrEqual(2); // two in flight at most, not the five criteria
  expect(calls).toHaveLength(0);
});
