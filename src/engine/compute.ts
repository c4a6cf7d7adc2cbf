// Output work that a workflow's schema decides the size of (test-mode stubs, validating an output) runs in a Worker
// with a time limit: a schema can then never stall the server's other requests, only fail its own run.
import { workerUrl } from "../lib/worker-url";
import type { ComputeReply, ComputeRequest } from "./compute-worker";
import { EngineError } from "./errors";
import type { FillResult, FillSource } from "./schema-fill";

/** Longer than any schema within the workflow limits needs (well under a second); a run fails past it. */
const COMPUTE_TIMEOUT_MS = 10_000;

let url: string | undefined;

function run(job: ComputeRequest, timeoutMs: number): Promise<unknown> {
  url ??= workerUrl(import.meta.url, "./compute-worker.ts", ["engine/compute-worker.js", "compute-worker.js", "src/engine/compute-worker.js"]);
  const worker = new Worker(url);
  return new Promise((resolve, reject) => {
    const done = (settle: () => void) => {
      clearTimeout(timer);
      worker.terminate();
      settle();
    };
    const timer = setTimeout(
      () =>
        done(() =>
          reject(new EngineError("output_invalid", `Producing the output took longer than ${timeoutMs / 1000} s; simplify the output schema.`)),
        ),
      timeoutMs,
    );
    worker.addEventListener("message", (event: MessageEvent<ComputeReply>) => {
      const reply = event.data;
      done(() =>
        reply.ok ? resolve(reply.value) : reject(new EngineError("output_invalid", `The workflow's output schema cannot be used: ${reply.message}`)),
      );
    });
    worker.addEventListener("error", (event) => {
      event.preventDefault();
      done(() => reject(new EngineError("output_invalid", "Producing the output failed unexpectedly")));
    });
    worker.postMessage(job);
  });
}

/** A test-mode stub output that validates against `schema`, generated off the server's thread. */
export const stubInWorker = (schema: object, seed: string, timeoutMs = COMPUTE_TIMEOUT_MS) => run({ kind: "stub", schema, seed }, timeoutMs);

/** null when `value` validates against `schema`, else the problem; checked off the server's thread. */
export const validateInWorker = async (schema: object, value: unknown, timeoutMs = COMPUTE_TIMEOUT_MS) =>
  (await run({ kind: "validate", schema, value }, timeoutMs)) as string | null;

/** The local evaluation mapped onto a workflow's output schema (schema-fill.ts), off the server's thread. */
export const fillInWorker = async (schema: object, seed: string, source: FillSource, timeoutMs = COMPUTE_TIMEOUT_MS) =>
  (await run({ kind: "fill", schema, seed, source }, timeoutMs)) as FillResult;
