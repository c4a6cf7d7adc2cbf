// CPU work of the engine that runs in a Worker with a time limit: output work that a workflow's schema decides the
// size of (test-mode stubs, validating an output), so a schema can never stall the server's other requests, only fail
// its own run; and the built-in local evaluator, so that evaluations use the machine's other cores while the main
// thread serves requests and the queue (issue 13.4: on the main thread it was two thirds of a run's CPU there).
import { availableParallelism } from "node:os";
import { workerUrl } from "../lib/worker-url";
import type { ComputeReply, ComputeRequest } from "./compute-worker";
import { EngineError } from "./errors";
import type { FillResult, FillSource } from "./schema-fill";
import type { Evaluation } from "./types";

/** Longer than any schema within the workflow limits needs (well under a second); a run fails past it. */
const COMPUTE_TIMEOUT_MS = 10_000;
/** The local evaluator reads a 5,000-page input in seconds; past this something is wrong, and the run fails. */
const LOCAL_TIMEOUT_MS = 120_000;

let url: string | undefined;

// Workers are kept warm between jobs (their modules loaded and JIT-compiled): starting one costs tens of ms, more
// than a local evaluation. One that timed out, crashed or was aborted is terminated, never reused. At most one job
// per core runs at a time, the rest wait for a slot: more would only share the cores, and each extra worker would
// be started cold and thrown away (with ASSAY_WORKERS=4 that doubled the CPU per run).
const idle: Worker[] = [];
const maxWorkers = Math.max(1, availableParallelism());
let running = 0;
const waiting: Array<() => void> = [];

async function acquire(signal?: AbortSignal): Promise<void> {
  if (running < maxWorkers) {
    running++;
    return;
  }
  await new Promise<void>((resolve) => waiting.push(resolve));
  // The slot is ours now; one aborted meanwhile gives it straight back.
  if (signal?.aborted) {
    release();
    signal.throwIfAborted();
  }
}

function release() {
  const next = waiting.shift();
  if (next)
    next(); // the slot passes straight to the next caller
  else running--;
}

function take(): Worker {
  const warm = idle.pop();
  if (warm) {
    warm.ref();
    return warm;
  }
  url ??= workerUrl(import.meta.url, "./compute-worker.ts", ["engine/compute-worker.js", "compute-worker.js", "src/engine/compute-worker.js"]);
  const worker = new Worker(url);
  worker.addEventListener("close", () => {
    const i = idle.indexOf(worker);
    if (i >= 0) idle.splice(i, 1);
  });
  return worker;
}

function giveBack(worker: Worker) {
  if (idle.length < maxWorkers) {
    worker.unref(); // an idle worker must not keep the process alive
    idle.push(worker);
  } else worker.terminate();
}

interface Failures {
  timedOut: (ms: number) => Error;
  failed: (message: string) => Error;
  crashed: () => Error;
}

const SCHEMA_FAILURES: Failures = {
  timedOut: (ms) => new EngineError("output_invalid", `Producing the output took longer than ${ms / 1000} s; simplify the output schema.`),
  failed: (message) => new EngineError("output_invalid", `The workflow's output schema cannot be used: ${message}`),
  crashed: () => new EngineError("output_invalid", "Producing the output failed unexpectedly"),
};

/** Runs a job in a pooled worker; the time limit counts from when the worker gets the job, not from waiting for a slot. */
async function run(job: ComputeRequest, timeoutMs: number, failures: Failures, signal?: AbortSignal): Promise<unknown> {
  signal?.throwIfAborted();
  await acquire(signal);
  try {
    signal?.throwIfAborted(); // aborted while the slot was being handed over
    return await runIn(take(), job, timeoutMs, failures, signal);
  } finally {
    release();
  }
}

function runIn(worker: Worker, job: ComputeRequest, timeoutMs: number, failures: Failures, signal?: AbortSignal): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const done = (reusable: boolean, settle: () => void) => {
      clearTimeout(timer);
      worker.removeEventListener("message", onMessage);
      worker.removeEventListener("error", onError);
      signal?.removeEventListener("abort", onAbort);
      if (reusable) giveBack(worker);
      else worker.terminate();
      settle();
    };
    const timer = setTimeout(() => done(false, () => reject(failures.timedOut(timeoutMs))), timeoutMs);
    const onMessage = (event: MessageEvent<ComputeReply>) => {
      const reply = event.data;
      done(true, () => (reply.ok ? resolve(reply.value) : reject(failures.failed(reply.message))));
    };
    const onError = (event: Event) => {
      event.preventDefault();
      done(false, () => reject(failures.crashed()));
    };
    // A lost lease or a stopping server: the work is cut off at once rather than finished for nobody.
    const onAbort = () => done(false, () => reject(signal?.reason));
    worker.addEventListener("message", onMessage);
    worker.addEventListener("error", onError);
    signal?.addEventListener("abort", onAbort, { once: true });
    worker.postMessage(job);
  });
}

/** A test-mode stub output that validates against `schema`, generated off the server's thread. */
export const stubInWorker = (schema: object, seed: string, timeoutMs = COMPUTE_TIMEOUT_MS) =>
  run({ kind: "stub", schema, seed }, timeoutMs, SCHEMA_FAILURES);

/** null when `value` validates against `schema`, else the problem; checked off the server's thread. */
export const validateInWorker = async (schema: object, value: unknown, timeoutMs = COMPUTE_TIMEOUT_MS) =>
  (await run({ kind: "validate", schema, value }, timeoutMs, SCHEMA_FAILURES)) as string | null;

/** The local evaluation mapped onto a workflow's output schema (schema-fill.ts), off the server's thread. */
export const fillInWorker = async (schema: object, seed: string, source: FillSource, timeoutMs = COMPUTE_TIMEOUT_MS) =>
  (await run({ kind: "fill", schema, seed, source }, timeoutMs, SCHEMA_FAILURES)) as FillResult;

/** The local evaluation, and the ids of the criteria the rubric marks optional (for an output schema's counts). */
export interface LocalResult {
  evaluation: Evaluation;
  optional: string[];
}

/**
 * The built-in local evaluator (criteria from `sources` and the prompt, then the evaluation), off the server's
 * thread: the same deterministic result as in-process. A failure inside it is an unexpected error, as it was in-process.
 */
export const evaluateLocallyInWorker = async (
  input: Omit<Extract<ComputeRequest, { kind: "local" }>, "kind">,
  signal?: AbortSignal,
  timeoutMs = LOCAL_TIMEOUT_MS,
) => (await run({ kind: "local", ...input }, timeoutMs, LOCAL_FAILURES, signal)) as LocalResult;

const LOCAL_FAILURES: Failures = {
  timedOut: (ms) => new EngineError("model_error", `The built-in local evaluator took longer than ${ms / 1000} s on these documents.`),
  failed: (message) => new Error(`the local evaluator failed: ${message}`),
  crashed: () => new Error("the local evaluator's worker stopped unexpectedly"),
};
