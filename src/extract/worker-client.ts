// Runs extraction in a Worker with a time limit, so a hostile or huge document can neither block the server
// nor run forever: on timeout the worker is terminated, and a crashed worker becomes an ExtractError.
import { availableParallelism } from "node:os";
import { workerUrl } from "../lib/worker-url.ts";
import type { Hints } from "./detect.ts";
import { ExtractError, type ExtractErrorCode, type ExtractedDocument } from "./types.ts";

const DEFAULT_TIMEOUT_MS = 60_000;

export type WorkerRequest = { bytes: Uint8Array; hints: Hints };
/** `heapBytes`: memory the worker keeps after the job (its JS heap and PDFium's WebAssembly heap), to retire it. */
export type WorkerReply = ({ ok: true; doc: ExtractedDocument } | { ok: false; code: ExtractErrorCode; message: string }) & { heapBytes?: number };

// At most one extraction per core at a time: each one can use hundreds of MB and a full core.
const maxConcurrent = Math.max(1, availableParallelism());
let running = 0;
const waiting: Array<() => void> = [];

async function acquire(): Promise<void> {
  if (running < maxConcurrent) {
    running++;
    return;
  }
  await new Promise<void>((resolve) => waiting.push(resolve));
}

function release() {
  const next = waiting.shift();
  if (next)
    next(); // the slot passes straight to the next caller
  else running--;
}

/**
 * Extracts in a Worker. The time limit counts from when the worker gets the document, not from waiting for a slot.
 * `transfer: true` moves the bytes to the worker instead of copying them: the caller's array is empty afterwards, so
 * only a caller that no longer needs the bytes (and owns their whole buffer) may ask for it.
 */
export async function extractInWorker(
  bytes: Uint8Array,
  hints: Hints = {},
  opts: { timeoutMs?: number; transfer?: boolean } = {},
): Promise<ExtractedDocument> {
  await acquire();
  try {
    return await runInWorker(
      bytes,
      { filename: hints.filename, mimeType: hints.mimeType },
      opts.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      opts.transfer === true,
    );
  } finally {
    release();
  }
}

// Workers are reused after a successful extraction, which saves loading PDFium/mammoth/exceljs per call and, above
// all, keeps their code JIT-compiled: a fresh worker reads its first documents at about half speed (issue 13.3:
// retiring every 50 documents halved the pool's PDF throughput). Reuse stays conservative: never after an error, a
// timeout or a legacy .xls (SheetJS has known prototype-pollution issues, so its worker is discarded); a worker that
// keeps more than MAX_WORKER_HEAP_BYTES after a job (a huge document grew its heap, and a WebAssembly heap never
// shrinks) is retired, and so is one after MAX_JOBS_PER_WORKER documents, as a bound on any slow leak.
const MAX_JOBS_PER_WORKER = 5_000;
const MAX_WORKER_HEAP_BYTES = 256 * 1024 * 1024;

interface PooledWorker {
  worker: Worker;
  jobs: number;
  alive: boolean;
}

const idle: PooledWorker[] = [];

let resolvedWorkerUrl: string | undefined;

function spawn(): PooledWorker {
  resolvedWorkerUrl ??= workerUrl(import.meta.url, "./worker.ts", ["extract/worker.js", "worker.js", "src/extract/worker.js"]);
  const pooled: PooledWorker = { worker: new Worker(resolvedWorkerUrl), jobs: 0, alive: true };
  pooled.worker.addEventListener("close", () => {
    pooled.alive = false;
    const i = idle.indexOf(pooled);
    if (i >= 0) idle.splice(i, 1);
  });
  return pooled;
}

function takeWorker(): PooledWorker {
  let pooled = idle.pop();
  while (pooled && !pooled.alive) pooled = idle.pop();
  pooled ??= spawn();
  pooled.worker.ref();
  return pooled;
}

function giveBack(pooled: PooledWorker, reusable: boolean) {
  if (reusable && pooled.alive && pooled.jobs < MAX_JOBS_PER_WORKER && idle.length < maxConcurrent) {
    pooled.worker.unref(); // an idle worker must not keep the process alive
    idle.push(pooled);
  } else {
    pooled.alive = false;
    pooled.worker.terminate();
  }
}

function runInWorker(bytes: Uint8Array, hints: Hints, timeoutMs: number, transfer: boolean): Promise<ExtractedDocument> {
  return new Promise((resolve, reject) => {
    const pooled = takeWorker();
    const { worker } = pooled;
    pooled.jobs++;
    let settled = false;
    const finish = (reusable: boolean, settle: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      worker.removeEventListener("message", onMessage);
      worker.removeEventListener("error", onError);
      worker.removeEventListener("messageerror", onError);
      worker.removeEventListener("close", onClose);
      giveBack(pooled, reusable);
      settle();
    };
    const fail = (message: string) => () => reject(new ExtractError("unprocessable_document", message));
    const onMessage = (event: MessageEvent<WorkerReply>) => {
      const reply = event.data;
      const lean = (reply.heapBytes ?? 0) <= MAX_WORKER_HEAP_BYTES;
      if (reply.ok) finish(lean && reply.doc.format !== "xls", () => resolve(reply.doc));
      else finish(false, () => reject(new ExtractError(reply.code, reply.message)));
    };
    const onError = (event: Event) => {
      event.preventDefault();
      finish(false, fail("extraction failed unexpectedly"));
    };
    const onClose = () => finish(false, fail("extraction failed unexpectedly (the worker stopped)"));
    const timer = setTimeout(() => finish(false, fail("extraction timed out")), timeoutMs);
    worker.addEventListener("message", onMessage);
    worker.addEventListener("error", onError);
    worker.addEventListener("messageerror", onError);
    worker.addEventListener("close", onClose);
    const request: WorkerRequest = { bytes, hints };
    // Only a buffer the view covers whole can move: transferring a shared pool buffer would empty its other views.
    const movable = transfer && bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength && bytes.buffer instanceof ArrayBuffer;
    worker.postMessage(request, movable ? [bytes.buffer as ArrayBuffer] : []);
  });
}
