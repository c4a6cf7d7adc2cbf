// Wire format of workflows (spec §2 Workflow, §4 Workflows).
import { t } from "elysia";
import type { workflows } from "../../db/schema";
import { RequestBody } from "../../http/body";
import { iso } from "../../lib/time";

export type WorkflowRow = typeof workflows.$inferSelect;

const OutputFormat = t.Union([t.Literal("json"), t.Literal("markdown"), t.Literal("docx"), t.Literal("xlsx"), t.Literal("csv")]);
const Mode = t.Union([t.Literal("sync"), t.Literal("async")]);
const Policy = t.Union([t.Literal("auto"), t.Literal("gemini-file-search"), t.Literal("deepseek-1m-fulltext"), t.Literal("hybrid")]);
const Status = t.Union([t.Literal("active"), t.Literal("paused"), t.Literal("archived")]);

export const Workflow = t.Object(
  {
    id: t.String({ examples: ["wf_3kQ9mZx1LpR7aB2cD4eF6gH8"] }),
    object: t.Literal("workflow"),
    product_code: t.String({ examples: ["education"] }),
    name: t.String({ examples: ["Year 10 persuasive essays"] }),
    status: Status,
    prompt_template_id: t.Union([t.String(), t.Null()]),
    user_prompt: t.Union([t.String(), t.Null()]),
    reference_document_ids: t.Array(t.String()),
    output_format: OutputFormat,
    output_schema: t.Union([t.Record(t.String(), t.Unknown()), t.Null()]),
    output_schema_sample_id: t.Union([t.String(), t.Null()]),
    default_mode: Mode,
    default_model_policy: Policy,
    webhook_endpoint_id: t.Union([t.String(), t.Null()]),
    created_at: t.String({ format: "date-time" }),
    updated_at: t.String({ format: "date-time" }),
  },
  { title: "Workflow" },
);

/**
 * Not t.Record: Elysia turns any value into an object for it ("a string" became {"0":"a",…}), so the service checks
 * it. The type list (not "object" alone) also keeps Elysia's body mirror from choking on an object without properties.
 */
const OutputSchema = t.Unknown({
  type: ["object", "null"],
  description: "A JSON Schema (draft 2020-12 or 07) describing an object, which the output must validate against; null = none",
});

export const CreateWorkflowBody = RequestBody(
  {
    product_code: t.String({ minLength: 1, examples: ["education"] }),
    name: t.String({ minLength: 1, maxLength: 200, examples: ["Year 10 persuasive essays"] }),
    prompt_template_id: t.Optional(t.String()),
    user_prompt: t.Optional(t.String({ maxLength: 20000, examples: ["Grade the essay against the attached rubric; quote the essay as evidence."] })),
    reference_document_ids: t.Optional(t.Array(t.String(), { maxItems: 50 })),
    output_format: t.Optional(OutputFormat),
    output_schema_sample_id: t.Optional(
      t.String({
        description:
          "A completed document (doc_…) or reference document (ref_…) holding a sample JSON, CSV or XLSX; the output schema is inferred from it",
      }),
    ),
    output_schema: t.Optional(OutputSchema),
    default_mode: t.Optional(Mode),
    default_model_policy: t.Optional(Policy),
    webhook_endpoint_id: t.Optional(t.String()),
  },
  {
    // One whole body as the example: generated ones would give both output_schema and output_schema_sample_id.
    examples: [
      {
        product_code: "education",
        name: "Year 10 persuasive essays",
        prompt_template_id: "tpl_8bqqzQ7P6c5lWlvS",
        reference_document_ids: ["ref_5Hk2Lp9Qr3St7Uv1Wx4Yz6Ab"],
        output_format: "json",
        output_schema: { type: "object", required: ["grade"], properties: { grade: { type: "string" }, comments: { type: "string" } } },
        default_mode: "async",
        default_model_policy: "auto",
        webhook_endpoint_id: "whk_2Bc4De6Fg8Hj1Kl3Mn5Pq7Rs",
      },
    ],
  },
);

export const UpdateWorkflowBody = RequestBody(
  {
    name: t.Optional(t.String({ minLength: 1, maxLength: 200 })),
    status: t.Optional(Status),
    user_prompt: t.Optional(t.Union([t.String({ maxLength: 20000 }), t.Null()])),
    output_schema: t.Optional(OutputSchema),
  },
  { examples: [{ name: "Year 10 persuasive essays (2027)", user_prompt: "Grade the essay against the 2027 rubric; quote the essay as evidence." }] },
);

export function toWorkflowJson(row: WorkflowRow) {
  return {
    id: row.id,
    object: "workflow" as const,
    product_code: row.productCode,
    name: row.name,
    status: row.status,
    prompt_template_id: row.promptTemplateId,
    user_prompt: row.userPrompt,
    reference_document_ids: row.referenceDocumentIds,
    output_format: row.outputFormat as "json",
    output_schema: row.outputSchema,
    output_schema_sample_id: row.outputSchemaSampleId,
    default_mode: row.defaultMode as "async",
    default_model_policy: row.defaultModelPolicy as "auto",
    webhook_endpoint_id: row.webhookEndpointId,
    created_at: iso(row.createdAt),
    updated_at: iso(row.updatedAt),
  };
}
