// evaluate(): policies and their budgets, test mode, the OpenAI-compatible path against a fake server, output validation and files.
import { afterEach, describe, expect, test } from "bun:test";
import path from "node:path";
import type { Config } from "../../src/config";
import { closeDb, openDb, tx } from "../../src/db/client";
import { documents, workspaces } from "../../src/db/schema";
import { EngineError, type EvaluateInput, evaluate } from "../../src/engine";
import { compileSchema, EVALUATION_SCHEMA } from "../../src/engine/schema";
import type { Evaluation, ModelPolicy, OutputFormat } from "../../src/engine/types";
import { extract } from "../../src/extract";
import { shapeOutput } from "../../src/render";
import { indexDocument } from "../../src/retrieval";
import { tempDir } from "../helpers";
import { testDatabaseUrl } from "../postgres";
import { collapse, corpusDoc, RUBRIC_MD, STRONG_ESSAY, textDoc } from "./fixtures";

const rubric = await textDoc("ref_rubric", "rubric.md", RUBRIC_MD);
const essay = await textDoc("doc_essay", "essay.txt", STRONG_ESSAY);

type Over = Partial<EvaluateInput> & { policy?: ModelPolicy; schema?: object | null; prompt?: string | null };

function input(over: Over = {}): EvaluateInput {
  const { policy, schema, prompt, ...rest } = over;
  return {
    workspaceId: "ws_test",
    mode: "live",
    workflow: {
      userPrompt: prompt === undefined ? "Grade the persuasive essay against the rubric." : prompt,
      outputSchema: schema ?? null,
      modelPolicy: policy ?? "auto",
      productCode: "education",
    },
    references: [rubric],
    inputs: [essay],
    llm: null,
    contextBudgetChars: 400_000,
    runId: "run_test1",
    ...rest,
  };
}

/** What the run worker does: evaluate, then shape the run's output and render its file. */
async function evaluateToFile(over: Over & { format?: OutputFormat } = {}) {
  const { format, ...rest } = over;
  const r = await evaluate(input(rest));
  const meta = {
    title: "Essay feedback",
    workflowName: "Essay feedback",
    runId: "run_test1",
    generatedAt: new Date("2026-11-22T12:00:00Z"),
    documents: [],
  };
  return { ...r, ...(await shapeOutput(format ?? "json", r.value, r.custom, meta, r.summary)) };
}

async function engineError(p: Promise<unknown>): Promise<EngineError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof EngineError) return e;
    throw e;
  }
  throw new Error("expected an EngineError");
}

describe("policies", () => {
  test.each([
    ["auto", "fulltext"],
    ["gemini-file-search", "file_search"],
    ["deepseek-1m-fulltext", "fulltext"],
    ["hybrid", "hybrid"],
  ] as const)("%s is reported as rag_strategy %s, by the local provider too", async (policy, strategy) => {
    const r = await evaluate(input({ policy }));
    expect(r.usage).toEqual({ input_tokens: null, output_tokens: null, model: "local", rag_strategy: strategy, unresolved_quotes: null });
    expect((r.value as Evaluation).criteria).toHaveLength(5);
  });

  test("auto takes fulltext while everything fits the budget and hybrid once it does not", async () => {
    const total = rubric.content.text.length + essay.content.text.length;
    expect((await evaluate(input({ contextBudgetChars: total }))).usage.rag_strategy).toBe("fulltext");
    expect((await evaluate(input({ contextBudgetChars: total - 1 }))).usage.rag_strategy).toBe("hybrid");
  });

  test("fulltext over the budget fails with context_too_large, naming the sizes", async () => {
    const big = await corpusDoc("ref_big", "pdf/tika-testPDF-protected.pdf");
    const err = await engineError(evaluate(input({ policy: "deepseek-1m-fulltext", references: [big], contextBudgetChars: 5_000 })));
    expect(err.code).toBe("context_too_large");
    const total = big.content.text.length + essay.content.text.length;
    expect(err.message).toContain(total.toLocaleString("en-US"));
    expect(err.message).toContain("5,000");
    // hybrid sends the input whole and only as much reference text as fits: the same run succeeds.
    const hybrid = await evaluate(input({ policy: "hybrid", references: [big], contextBudgetChars: 5_000 }));
    expect(hybrid.usage.rag_strategy).toBe("hybrid");
  });

  test("an input larger than the budget fails under every policy, and a test key meets the same error", async () => {
    for (const policy of ["auto", "hybrid", "gemini-file-search"] as const) {
      const err = await engineError(evaluate(input({ policy, contextBudgetChars: 1_000 })));
      expect(err.code).toBe("context_too_large");
      expect(err.message).toContain("input documents");
    }
    expect((await engineError(evaluate(input({ mode: "test", contextBudgetChars: 1_000 })))).code).toBe("context_too_large");
  });

  test("a run without input text fails with no_input_text", async () => {
    expect((await engineError(evaluate(input({ inputs: [] })))).code).toBe("no_input_text");
  });
});

// ---------------------------------------------------------------------------
// A fake OpenAI-compatible server: records each chat request and answers with the scripted reply.

interface Seen {
  body: { model: string; messages: { role: string; content: string }[]; response_format?: unknown };
  authorization: string | null;
}
const servers: ReturnType<typeof Bun.serve>[] = [];
afterEach(() => {
  for (const s of servers.splice(0)) s.stop(true);
});

function fakeModel(reply: (seen: Seen, n: number) => Response) {
  const calls: Seen[] = [];
  const server = Bun.serve({
    port: 0,
    async fetch(req) {
      const url = new URL(req.url);
      if (url.pathname !== "/v1/chat/completions") return new Response("not found", { status: 404 });
      const seen: Seen = { body: (await req.json()) as Seen["body"], authorization: req.headers.get("authorization") };
      calls.push(seen);
      return reply(seen, calls.length);
    },
  });
  servers.push(server);
  const llm: NonNullable<Config["llm"]> = {
    baseUrl: `http://127.0.0.1:${server.port}/v1`,
    apiKey: "sk-fake-123456",
    model: "fake-model",
    timeoutMs: 5_000,
    samples: 1,
  };
  return { llm, calls };
}

function completion(content: unknown, usage = { prompt_tokens: 1200, completion_tokens: 300 }): Response {
  return Response.json({
    id: "chatcmpl-1",
    object: "chat.completion",
    model: "fake-model-2026",
    choices: [
      { index: 0, message: { role: "assistant", content: typeof content === "string" ? content : JSON.stringify(content) }, finish_reason: "stop" },
    ],
    usage,
  });
}

const EXACT = "Third, trees raise property values.";
// The essay writes “Green City, Clean Waters” with curly quotes and one space; the model straightened and doubled them.
const NEAR = 'For example, Philadelphia\'s "Green City,  Clean Waters" plan uses trees to cut stormwater costs.';
const INVENTED = "Trees single-handedly solved the city's budget deficit in 2019.";

function modelEvaluation(): Evaluation {
  return {
    summary: "A well-argued essay with specific evidence; the counterargument is brief.",
    score: 82,
    verdict: "pass",
    criteria: [
      {
        id: "evidence",
        title: "Evidence",
        score: 26,
        max_score: 30,
        rationale: "Specific figures and named sources.",
        evidence: [
          { document_id: "doc_essay", quote: EXACT, location: { page: 9 } },
          { document_id: "doc_essay", quote: NEAR, location: {} },
          { document_id: "doc_essay", quote: INVENTED, location: {} },
        ],
      },
      { id: "thesis", title: "Thesis", score: 18, max_score: 20, rationale: "Clear position.", evidence: [] },
    ],
  };
}

describe("OpenAI-compatible model", () => {
  test("the request holds the prompt, the rubric and the input; quotes are checked, repaired or dropped; tokens and model are reported", async () => {
    const { llm, calls } = fakeModel(() => completion(modelEvaluation()));
    const r = await evaluate(input({ llm, policy: "deepseek-1m-fulltext" }));

    expect(calls).toHaveLength(1);
    const [system, user] = calls[0].body.messages;
    expect(system.role).toBe("system");
    expect(system.content).toContain("verbatim");
    expect(user.content).toContain("Grade the persuasive essay against the rubric.");
    expect(user.content).toContain("Acknowledges an opposing view, such as the cost of planting"); // rubric text
    expect(user.content).toContain("ref_rubric");
    expect(user.content).toContain("a single large oak can intercept thousands of litres"); // input text
    expect(user.content).toContain("doc_essay");
    expect(calls[0].body.model).toBe("fake-model");
    expect(calls[0].authorization).toBe("Bearer sk-fake-123456");

    expect(r.usage).toEqual({ input_tokens: 1200, output_tokens: 300, model: "fake-model-2026", rag_strategy: "fulltext", unresolved_quotes: 1 });
    const out = r.value as Evaluation;
    expect(compileSchema(EVALUATION_SCHEMA).validate(out)).toBeNull();
    const quotes = out.criteria[0].evidence.map((e) => e.quote);
    expect(quotes).toHaveLength(2);
    expect(quotes[0]).toBe(EXACT);
    // Repaired to the document's own characters.
    expect(quotes[1]).toBe("For example, Philadelphia's “Green City, Clean Waters” plan uses trees to cut stormwater costs.");
    for (const e of out.criteria[0].evidence) {
      expect(essay.content.text.includes(e.quote)).toBe(true);
      expect(e.location).toEqual({}); // a TXT file has one section without a place name; the invented page 9 is gone
    }
  });

  test("file_search over the full-text index sends the reference passages relevant to the input, not the whole reference", async () => {
    const dir = tempDir("assay-engine-");
    // The PostgreSQL pass of the suite gives a fresh database; otherwise a SQLite file of our own.
    const db = await openDb((await testDatabaseUrl()) ?? path.join(dir, "assay.db"));
    await tx(db, async (t) => {
      await t.insert(workspaces).values({ id: "ws_test", name: "t", createdAt: 0 });
      await t
        .insert(documents)
        .values({ id: "doc_refsrc", workspaceId: "ws_test", filename: "handbook.md", objectKey: "k", status: "extracted", createdAt: 0 });
    });
    const filler = (topic: string) => `${topic} `.repeat(1).concat("Unrelated guidance about ", topic, ". ").repeat(40);
    const handbook = [
      "# Grading handbook",
      "## Urban trees essays\nEssays on urban tree planting should discuss shade, stormwater runoff and property values.",
      `## Laboratory safety\n${filler("goggles and fume cupboards")}`,
      `## Library opening hours\n${filler("weekend opening hours")}`,
    ].join("\n\n");
    const content = await extract(new TextEncoder().encode(handbook), { filename: "handbook.md" });
    await indexDocument(db, { workspaceId: "ws_test", documentId: "doc_refsrc", doc: content });
    const reference = { id: "ref_handbook", documentId: "doc_refsrc", name: "handbook.md", content };

    const { llm, calls } = fakeModel(() => completion(modelEvaluation()));
    const r = await evaluate(input({ llm, db, policy: "gemini-file-search", references: [reference] }));
    expect(r.usage.rag_strategy).toBe("file_search");
    const user = calls[0].body.messages[1].content;
    expect(user).toContain("stormwater runoff and property values");
    expect(user).toContain("ref_handbook");
    expect(user).not.toContain("weekend opening hours");
    await closeDb(db);
  });

  test("an answer that still misses a custom schema after the repair request fails with output_invalid", async () => {
    const schema = {
      type: "object",
      properties: { grade: { type: "string", enum: ["A", "B", "C"] } },
      required: ["grade"],
      additionalProperties: false,
    };
    const { llm, calls } = fakeModel(() => completion({ grade: "excellent" }));
    const err = await engineError(evaluate(input({ llm, schema })));
    expect(err.code).toBe("output_invalid");
    expect(calls).toHaveLength(2); // the answer, then one repair request
  });

  test("an answer that meets a custom schema is the output as is", async () => {
    const schema = {
      type: "object",
      properties: { grade: { type: "string", enum: ["A", "B", "C"] } },
      required: ["grade"],
      additionalProperties: false,
    };
    const { llm } = fakeModel(() => completion({ grade: "B" }));
    const r = await evaluateToFile({ llm, schema });
    expect(r.output).toEqual({ grade: "B" });
    expect(JSON.parse(new TextDecoder().decode(r.file!.bytes))).toEqual({ grade: "B" });
  });

  test("a server that answers errors fails the run with model_error", async () => {
    const { llm } = fakeModel(() => Response.json({ error: { message: "model not loaded" } }, { status: 400 }));
    const err = await engineError(evaluate(input({ llm })));
    expect(err.code).toBe("model_error");
    expect(err.message).toContain("model not loaded");
  });
});

describe("test mode", () => {
  test("a custom schema gets a stub that validates, and no model is called even when one is configured", async () => {
    const schema = {
      type: "object",
      properties: {
        grade: { type: "string", enum: ["A", "B", "C"] },
        points: { type: "integer", minimum: 0, maximum: 100 },
        comments: { type: "array", items: { type: "string" }, minItems: 1 },
      },
      required: ["grade", "points", "comments"],
      additionalProperties: false,
    };
    const { llm, calls } = fakeModel(() => completion({}));
    const r = await evaluate(input({ mode: "test", llm, schema, policy: "hybrid" }));
    expect(calls).toHaveLength(0);
    expect(compileSchema(schema).validate(r.value)).toBeNull();
    expect(r.usage).toEqual({ input_tokens: null, output_tokens: null, model: "test", rag_strategy: "hybrid", unresolved_quotes: null });
    // The same run id gives the same stub.
    expect((await evaluate(input({ mode: "test", llm, schema, policy: "hybrid" }))).value).toEqual(r.value);
  });

  test("without a schema the stub is an evaluation of the rubric's criteria, quoting the input", async () => {
    const r = await evaluate(input({ mode: "test" }));
    const out = r.value as Evaluation;
    expect(compileSchema(EVALUATION_SCHEMA).validate(out)).toBeNull();
    expect(out.criteria.map((c) => c.title)).toEqual(["Thesis", "Evidence", "Counterargument", "Organisation", "Conventions"]);
    expect(out.summary).toContain("Test mode");
    for (const e of out.criteria.flatMap((c) => c.evidence)) expect(essay.content.text.includes(e.quote)).toBe(true);
  });
});

describe("output", () => {
  test("the local evaluator fills a custom schema; only a schema nothing satisfies fails with output_invalid, naming the part", async () => {
    const schema = { type: "object", properties: { grade: { type: "string" } }, required: ["grade"] };
    const r = await evaluate(input({ schema }));
    expect(r.custom).toBe(true);
    expect(r.value).toEqual({ grade: expect.stringMatching(/^[A-F]$/) });
    const impossible = { type: "object", properties: { grade: { type: "string" }, flag: { not: {} } }, required: ["grade", "flag"] };
    const err = await engineError(evaluate(input({ schema: impossible })));
    expect(err.code).toBe("output_invalid");
    expect(err.message).toContain("/flag");
  });

  const FORMATS: [OutputFormat, string, string][] = [
    ["json", "application/json", "json"],
    ["markdown", "text/markdown", "md"],
    ["docx", "application/vnd.openxmlformats-officedocument.wordprocessingml.document", "docx"],
    ["xlsx", "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", "xlsx"],
    ["csv", "text/csv", "csv"],
  ];

  // The CSV renderer writes one table, a row per criterion, and no summary row: there the rationales are checked.
  test.each(FORMATS)("%s: a file the extractor reads back with the summary (CSV: the rationales) in it", async (format, mime, extension) => {
    const r = await evaluateToFile({ format });
    expect(r.file).not.toBeNull();
    expect(r.file!.mime_type.startsWith(mime)).toBe(true);
    expect(r.file!.extension).toBe(extension);
    const summary = String(r.output.summary);
    expect(summary.length).toBeGreaterThan(20);
    const back = await extract(r.file!.bytes, { filename: `output.${extension}` });
    if (format === "csv") {
      for (const c of r.output.criteria as Evaluation["criteria"]) expect(collapse(back.text)).toContain(collapse(c.rationale));
    } else expect(collapse(back.text)).toContain(collapse(summary));
    if (format === "json") {
      expect(JSON.parse(new TextDecoder().decode(r.file!.bytes))).toEqual(r.output);
      expect(r.output.format).toBeUndefined();
    } else {
      expect(r.output.format).toBe(format);
      expect(r.output.verdict).toMatch(/^(pass|fail|needs_review)$/);
      expect(Array.isArray(r.output.criteria)).toBe(true);
    }
  });

  test("offline, a schema without a summary field still gets the evaluation's summary; text nothing answers is never 'stub'", async () => {
    const schema = {
      type: "object",
      required: ["Sheet"],
      properties: {
        Sheet: { type: "array", minItems: 1, items: { type: "object", required: ["x"], properties: { x: { type: "string", minLength: 300 } } } },
      },
    };
    const r = await evaluateToFile({ schema, format: "xlsx" });
    // (Before: summary "" and x "stub stub stub …" in a charged live run.)
    const out = r.output as { summary: string; data: { Sheet: { x: string }[] } };
    expect(out.summary).toStartWith("Overall ");
    expect(out.data.Sheet[0].x).not.toContain("stub");
    expect(out.data.Sheet[0].x.length).toBeGreaterThanOrEqual(300);
    expect(out.data.Sheet[0].x).toStartWith(out.summary.slice(0, 40));
  });

  test("a custom schema with a file format: output is {format, summary, data} and the file holds the data", async () => {
    const schema = {
      type: "object",
      properties: {
        summary: { type: "string" },
        items: { type: "array", items: { type: "object", properties: { name: { type: "string" } }, required: ["name"] } },
      },
      required: ["summary", "items"],
    };
    const value = { summary: "Two items checked.", items: [{ name: "Shade" }, { name: "Runoff" }] };
    const { llm } = fakeModel(() => completion(value));
    const r = await evaluateToFile({ llm, schema, format: "xlsx" });
    expect(r.output).toEqual({ format: "xlsx", summary: "Two items checked.", data: value });
    const back = await extract(r.file!.bytes, { filename: "output.xlsx" });
    expect(back.text).toContain("Runoff");
  });
});
