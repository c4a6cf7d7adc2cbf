// Wire format of runs (spec §2 Run, RunUsage, RunOutputFile; §3 Run status).
import { t } from "elysia";
import type { runs } from "../../db/schema";
import { JsonInteger, RequestBody } from "../../http/body";
import { iso, isoOrNull } from "../../lib/time";

export type RunRow = typeof runs.$inferSelect;
/** live or test: the mode of the key that created the run (a session creates live runs). */
export type KeyMode = RunRow["keyMode"];
const RUN_STATUSES = ["queued", "running", "succeeded", "failed", "canceled", "refunded"] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];

const RunStatusSchema = t.Union([
  t.Literal("queued"),
  t.Literal("running"),
  t.Literal("succeeded"),
  t.Literal("failed"),
  t.Literal("canceled"),
  t.Literal("refunded"),
]);
const NullableDate = t.Union([t.String({ format: "date-time" }), t.Null()]);

const RunUsage = t.Object(
  {
    input_tokens: t.Union([JsonInteger(), t.Null()]),
    output_tokens: t.Union([JsonInteger(), t.Null()]),
    model: t.Union([t.String(), t.Null()], { examples: ["local"] }),
    rag_strategy: t.Union([t.String(), t.Null()], { examples: ["hybrid"] }),
    unresolved_quotes: t.Union([JsonInteger(), t.Null()], {
      description:
        "Evidence quotes the model gave that are not verbatim text of the documents: dropped from the output. null when no model answered.",
      examples: [0],
    }),
  },
  { title: "RunUsage" },
);

export const RunOutputFile = t.Object(
  {
    url: t.String({ description: "Signed download URL, valid for one hour" }),
    expires_at: t.String({ format: "date-time" }),
    mime_type: t.String({ examples: ["application/vnd.openxmlformats-officedocument.wordprocessingml.document"] }),
  },
  { title: "RunOutputFile" },
);

export const Run = t.Object(
  {
    id: t.String({ examples: ["run_7hJ2kL9mN3pQ5rS8tU1vW4xY"] }),
    object: t.Literal("run"),
    workflow_id: t.String(),
    status: RunStatusSchema,
    mode: t.Union([t.Literal("sync"), t.Literal("async")]),
    livemode: t.Boolean({ description: "false for runs created with a svc_test_ key (stubbed output, no credits)" }),
    quoted_credits: t.Number({ examples: [1.5] }),
    charged_credits: t.Union([t.Number(), t.Null()]),
    input_documents: t.Array(t.String()),
    metadata: t.Record(t.String(), t.Unknown()),
    result_url: t.String(),
    output_format: t.Union([t.String(), t.Null()]),
    output: t.Union([t.Record(t.String(), t.Unknown()), t.Null()], { description: "The evaluation, when status is succeeded" }),
    output_file: t.Union([RunOutputFile, t.Null()]),
    usage: RunUsage,
    error: t.Union([t.Object({ code: t.String(), message: t.String() }), t.Null()]),
    created_at: t.String({ format: "date-time" }),
    started_at: NullableDate,
    finished_at: NullableDate,
  },
  { title: "Run" },
);

export const CreateRunBody = RequestBody({
  mode: t.Optional(t.Union([t.Literal("sync"), t.Literal("async")])),
  input_documents: t.Array(t.String(), { minItems: 1, maxItems: 50, description: "Completed documents (POST /v1/documents)" }),
  metadata: t.Optional(t.Record(t.String(), t.Unknown(), { description: "Your own key-values, returned on the run (16 kB at most)" })),
});

export const ListRunsQuery = t.Object({
  limit: t.Optional(t.Integer({ minimum: 1, maximum: 100, default: 20 })),
  cursor: t.Optional(t.String()),
  workflow_id: t.Optional(t.String()),
  status: t.Optional(RunStatusSchema),
  created_after: t.Optional(
    t.String({ description: "Runs created at or after this instant (ISO 8601 date or date-time; a date is UTC midnight)", examples: ["2026-11-01"] }),
  ),
  created_before: t.Optional(t.String({ description: "Runs created before this instant (ISO 8601 date or date-time)", examples: ["2026-12-01"] })),
  mode: t.Optional(
    t.Union([t.Literal("live"), t.Literal("test")], {
      description: "live or test runs only (a session sees both; an API key only ever sees its own mode's runs)",
    }),
  ),
});

const EMPTY_USAGE = { input_tokens: null, output_tokens: null, model: null, rag_strategy: null, unresolved_quotes: null };

/** `outputFile` is computed by the caller (a fresh signed URL) for succeeded and refunded runs. */
export function toRunJson(row: RunRow, publicUrl: string, outputFile: { url: string; expires_at: string; mime_type: string } | null = null) {
  const done = row.status === "succeeded" || row.status === "refunded";
  return {
    id: row.id,
    object: "run" as const,
    workflow_id: row.workflowId,
    status: row.status,
    mode: row.mode as "async" | "sync",
    livemode: row.keyMode === "live",
    quoted_credits: row.quotedCredits,
    charged_credits: row.chargedCredits,
    input_documents: row.inputDocuments,
    metadata: row.metadata,
    result_url: `${publicUrl}/v1/runs/${row.id}`,
    output_format: row.outputFormat,
    output: done ? ((row.output as Record<string, unknown> | null) ?? null) : null,
    output_file: done ? outputFile : null,
    usage: { ...EMPTY_USAGE, ...(row.usage ?? {}) } as typeof EMPTY_USAGE,
    error: row.error ?? null,
    created_at: iso(row.createdAt),
    started_at: isoOrNull(row.startedAt),
    finished_at: isoOrNull(row.finishedAt),
  };
}
