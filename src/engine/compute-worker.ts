// Worker entry for computeInWorker: generates a stub output for a schema, or validates a value against one, off the
// server's own thread (a schema's work can then be cut off by a time limit instead of stalling every request).
import { compileSchema } from "./schema";
import { type FillSource, fillSchema } from "./schema-fill";
import { stubFromSchema } from "./stub";

declare const self: Worker;

export type ComputeRequest =
  | { kind: "stub"; schema: object; seed: string }
  | { kind: "validate"; schema: object; value: unknown }
  | { kind: "fill"; schema: object; seed: string; source: FillSource };
export type ComputeReply = { ok: true; value: unknown } | { ok: false; message: string };

self.onmessage = (event: MessageEvent<ComputeRequest>) => {
  const job = event.data;
  let reply: ComputeReply;
  try {
    const value =
      job.kind === "stub"
        ? stubFromSchema(job.schema, job.seed)
        : job.kind === "fill"
          ? fillSchema(job.schema, job.seed, job.source)
          : compileSchema(job.schema).validate(job.value);
    reply = { ok: true, value };
  } catch (err) {
    reply = { ok: false, message: err instanceof Error ? err.message : String(err) };
  }
  self.postMessage(reply);
};
