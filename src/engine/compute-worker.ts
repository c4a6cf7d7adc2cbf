// Worker entry for engine/compute.ts: generates a stub output for a schema, validates a value against one, or runs the
// built-in local evaluator, off the server's own thread (the work can then be cut off by a time limit instead of
// stalling every request, and evaluations use the other cores).
import type { Section } from "../extract/types";
import { findCriteria } from "./local/criteria";
import { evaluateLocally } from "./local/evaluate";
import { compileSchema } from "./schema";
import { type FillSource, fillSchema } from "./schema-fill";
import { stubFromSchema } from "./stub";
import type { EngineDocument } from "./types";

declare const self: Worker;

export type ComputeRequest =
  | { kind: "stub"; schema: object; seed: string }
  | { kind: "validate"; schema: object; value: unknown }
  | { kind: "fill"; schema: object; seed: string; source: FillSource }
  | {
      kind: "local";
      sources: { sections: Section[] }[];
      prompt: string | null;
      inputs: EngineDocument[];
      passThreshold?: number;
      lengthCounts: boolean;
      titlesNamed: boolean;
      allRequired: boolean;
    };
export type ComputeReply = { ok: true; value: unknown } | { ok: false; message: string };

self.onmessage = (event: MessageEvent<ComputeRequest>) => {
  const job = event.data;
  let reply: ComputeReply;
  try {
    reply = { ok: true, value: compute(job) };
  } catch (err) {
    reply = { ok: false, message: err instanceof Error ? err.message : String(err) };
  }
  self.postMessage(reply);
};

function compute(job: ComputeRequest): unknown {
  if (job.kind === "stub") return stubFromSchema(job.schema, job.seed);
  if (job.kind === "validate") return compileSchema(job.schema).validate(job.value);
  if (job.kind === "fill") return fillSchema(job.schema, job.seed, job.source);
  const { criteria } = findCriteria(job.sources, job.prompt);
  const evaluation = evaluateLocally({
    criteria,
    inputs: job.inputs,
    prompt: job.prompt,
    referenceTexts: job.sources.map((s) => s.sections.map((x) => x.text).join("\n\n")),
    passThreshold: job.passThreshold,
    lengthCounts: job.lengthCounts,
    titlesNamed: job.titlesNamed,
    allRequired: job.allRequired,
  });
  return { evaluation, optional: criteria.filter((c) => c.optional).map((c) => c.id) };
}
