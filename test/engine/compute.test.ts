// Output work decided by a schema runs in a worker with a time limit: even a schema the workflow limits would refuse
// (millions of required items) only fails its own run, and the server's thread stays free meanwhile.
import { expect, test } from "bun:test";
import { evaluateLocallyInWorker, stubInWorker, validateInWorker } from "../../src/engine/compute";
import { EngineError } from "../../src/engine/errors";
import { findCriteria } from "../../src/engine/local/criteria";
import { evaluateLocally } from "../../src/engine/local/evaluate";

test("a stub and a validation come back from the worker", async () => {
  const schema = { type: "object", properties: { grade: { type: "string", enum: ["A", "B"] } }, required: ["grade"] };
  const value = (await stubInWorker(schema, "seed")) as { grade: string };
  expect(["A", "B"]).toContain(value.grade);
  expect(await validateInWorker(schema, value)).toBeNull();
  expect(await validateInWorker(schema, { grade: "Z" })).toContain("grade");
});

test("work past the time limit is cut off as output_invalid, while this thread keeps running", async () => {
  // 25 million required items: far past what the workflow limits accept, and seconds of work for the generator.
  const grid = { type: "array", minItems: 5_000, items: { type: "array", minItems: 5_000, items: { type: "integer" } } };
  const schema = { type: "object", properties: { grid }, required: ["grid"] };
  let ticks = 0;
  const ticker = setInterval(() => ticks++, 10);
  const started = performance.now();
  const err = await stubInWorker(schema, "seed", 500).catch((e) => e);
  clearInterval(ticker);
  expect(err).toBeInstanceOf(EngineError);
  expect((err as EngineError).code).toBe("output_invalid");
  expect((err as EngineError).message).toContain("longer than 0.5 s");
  expect(performance.now() - started).toBeLessThan(2_000);
  expect(ticks).toBeGreaterThan(20); // the event loop went on while the worker was stuck
});

test("the local evaluator gives in a worker exactly what it gives in this thread, and an abort cuts it off", async () => {
  const essay = "School uniforms reduce bullying. A 2019 study of 40 schools found reports fell by 23 percent.\n\nCritics disagree.";
  const rubric = "1. Evidence (50 points): claims cite studies and figures.\n2. Counterarguments (50 points): objections are answered.";
  const doc = (text: string) => ({
    format: "txt" as const,
    mime_type: "text/plain",
    text,
    page_count: null,
    sections: text.split("\n\n").map((t) => ({ location: {}, text: t })),
  });
  const inputs = [{ id: "doc_1", name: "essay.txt", content: doc(essay) }];
  const sources = [{ sections: doc(rubric).sections }];
  const prompt = "Grade the essay.";
  const here = evaluateLocally({ criteria: findCriteria(sources, prompt).criteria, inputs, prompt, referenceTexts: [rubric] });
  expect(await evaluateLocallyInWorker({ sources, prompt, inputs, lengthCounts: true, titlesNamed: false, allRequired: false })).toEqual({
    evaluation: here,
    optional: [],
  });
  const controller = new AbortController();
  const pending = evaluateLocallyInWorker({ sources, prompt, inputs, lengthCounts: true, titlesNamed: false, allRequired: false }, controller.signal);
  controller.abort(new Error("lease lost"));
  expect(((await pending.catch((e) => e)) as Error).message).toBe("lease lost");
});
