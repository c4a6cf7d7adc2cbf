// Output work decided by a schema runs in a worker with a time limit: even a schema the workflow limits would refuse
// (millions of required items) only fails its own run, and the server's thread stays free meanwhile.
import { expect, test } from "bun:test";
import { stubInWorker, validateInWorker } from "../../src/engine/compute";
import { EngineError } from "../../src/engine/errors";

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
