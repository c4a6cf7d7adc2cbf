// Workflows: validation against the catalog and the workspace's own resources, create, read, update, soft delete.
import { and, eq, inArray, isNull, sql } from "drizzle-orm";
import { promptTemplates } from "../../catalog";
import type { Context } from "../../context";
import { type Db, prepared, tx } from "../../db/client";
import { documents, referenceDocuments, webhookEndpoints, workflows } from "../../db/schema";
import { resolveOutputSchema } from "../../engine/output-schema";
import { isPlainObject, SchemaError } from "../../engine/schema";
import type { ExtractedDocument } from "../../extract/types";
import { ApiError } from "../../http/errors";
import { checkName } from "../../http/names";
import { listPage } from "../../http/pagination";
import type { Clock } from "../../lib/clock";
import { newId } from "../../lib/ids";
import { objectStore } from "../../storage";
import { getProduct } from "../products/service";
import { toWorkflowJson, type WorkflowRow } from "./model";

export interface CreateWorkflowInput {
  product_code: string;
  name: string;
  prompt_template_id?: string;
  user_prompt?: string;
  reference_document_ids?: string[];
  output_format?: string;
  output_schema_sample_id?: string;
  /** Checked here: the body schema cannot refuse a non-object without Elysia coercing it first. */
  output_schema?: unknown;
  default_mode?: string;
  default_model_policy?: string;
  webhook_endpoint_id?: string;
}

function invalid(param: string, message: string): never {
  throw new ApiError(400, "validation_error", message, param);
}

function checkProduct(code: string) {
  let product: ReturnType<typeof getProduct>;
  try {
    product = getProduct(code);
  } catch {
    return invalid("product_code", `product_code "${code}" is not a product (GET /v1/products lists them)`);
  }
  if (product.status === "deprecated") invalid("product_code", `product "${code}" is deprecated; choose another product`);
  return product;
}

const NAME_MAX = 200;

/** Every id must be a reference document of this workspace (not deleted); duplicates are kept once. */
async function checkReferences(db: Db, workspaceId: string, ids: string[]): Promise<string[]> {
  const unique = [...new Set(ids)];
  if (!unique.length) return [];
  const rows = await db
    .select({ id: referenceDocuments.id })
    .from(referenceDocuments)
    .where(and(eq(referenceDocuments.workspaceId, workspaceId), inArray(referenceDocuments.id, unique), isNull(referenceDocuments.deletedAt)));
  const found = new Set(rows.map((r) => r.id));
  ids.forEach((id, i) => {
    if (!found.has(id)) invalid(`reference_document_ids.${i}`, `${id} is not a reference document of this workspace`);
  });
  return unique;
}

async function checkWebhookEndpoint(db: Db, workspaceId: string, id: string): Promise<void> {
  const [row] = await db
    .select({ id: webhookEndpoints.id })
    .from(webhookEndpoints)
    .where(and(eq(webhookEndpoints.id, id), eq(webhookEndpoints.workspaceId, workspaceId), isNull(webhookEndpoints.deletedAt)))
    .limit(1);
  if (!row) invalid("webhook_endpoint_id", `${id} is not a webhook endpoint of this workspace`);
}

/**
 * The sample named by output_schema_sample_id (a completed document, or a reference document's original): its
 * extracted content, plus the original text for JSON and CSV so the schema comes from the exact values.
 */
async function sampleDocument(ctx: Context, workspaceId: string, id: string): Promise<{ doc: ExtractedDocument; originalText?: string }> {
  const { db } = ctx;
  let documentId = id;
  if (id.startsWith("ref_")) {
    const [ref] = await db
      .select({ documentId: referenceDocuments.documentId })
      .from(referenceDocuments)
      .where(and(eq(referenceDocuments.id, id), eq(referenceDocuments.workspaceId, workspaceId)))
      .limit(1);
    if (!ref) invalid("output_schema_sample_id", `${id} is not a reference document of this workspace`);
    documentId = ref.documentId;
  }
  const [row] = await db
    .select({ extracted: documents.extracted, objectKey: documents.objectKey })
    .from(documents)
    .where(and(eq(documents.id, documentId), eq(documents.workspaceId, workspaceId)))
    .limit(1);
  if (!row) invalid("output_schema_sample_id", `${id} is not a document of this workspace`);
  if (!row.extracted) invalid("output_schema_sample_id", `${id} has not been completed (or is still being indexed)`);
  const doc = row.extracted as ExtractedDocument;
  if (doc.format !== "json" && doc.format !== "csv") return { doc };
  const blob = await objectStore(ctx).get(row.objectKey);
  return { doc, originalText: blob ? await blob.text() : undefined };
}

/** A given output_schema (create or PATCH): a JSON object that compiles as a JSON Schema within bounds; null = none. */
function checkOutputSchema(value: unknown): Record<string, unknown> | null {
  if (value === null || value === undefined) return null;
  if (!isPlainObject(value)) invalid("output_schema", "output_schema must be a JSON object holding a JSON Schema");
  try {
    return resolveOutputSchema({ outputSchema: value });
  } catch (err) {
    if (err instanceof SchemaError) invalid("output_schema", err.message);
    throw err;
  }
}

async function outputSchemaFor(ctx: Context, workspaceId: string, input: CreateWorkflowInput): Promise<Record<string, unknown> | null> {
  if (input.output_schema != null) return checkOutputSchema(input.output_schema);
  if (!input.output_schema_sample_id) return null;
  try {
    return resolveOutputSchema({ sample: await sampleDocument(ctx, workspaceId, input.output_schema_sample_id) });
  } catch (err) {
    if (err instanceof SchemaError) invalid("output_schema_sample_id", err.message);
    throw err;
  }
}

export async function createWorkflow(ctx: Context, workspaceId: string, input: CreateWorkflowInput): Promise<WorkflowRow> {
  const { db, clock } = ctx;
  const product = checkProduct(input.product_code);
  const name = checkName(input.name, NAME_MAX);
  if (input.prompt_template_id && !promptTemplates.some((t) => t.id === input.prompt_template_id)) {
    invalid("prompt_template_id", `${input.prompt_template_id} is not a prompt template (GET /v1/prompt-templates lists them)`);
  }
  if (input.output_schema != null && input.output_schema_sample_id) {
    invalid("output_schema_sample_id", "give output_schema or output_schema_sample_id, not both");
  }
  const referenceIds = await checkReferences(db, workspaceId, input.reference_document_ids ?? []);
  if (input.webhook_endpoint_id) await checkWebhookEndpoint(db, workspaceId, input.webhook_endpoint_id);
  const outputSchema = await outputSchemaFor(ctx, workspaceId, input);
  // Without a prompt of its own, a workflow evaluates with its template's prompt.
  const template = promptTemplates.find((t) => t.id === input.prompt_template_id);
  const now = clock.now();
  const row: WorkflowRow = {
    id: newId("wf"),
    workspaceId,
    productCode: product.code,
    name,
    status: "active",
    promptTemplateId: input.prompt_template_id ?? null,
    userPrompt: input.user_prompt ?? template?.user_prompt_seed ?? null,
    referenceDocumentIds: referenceIds,
    outputFormat: input.output_format ?? template?.recommended_output_format ?? "json",
    outputSchema,
    outputSchemaSampleId: input.output_schema_sample_id ?? null,
    defaultMode: input.default_mode ?? "async",
    defaultModelPolicy: input.default_model_policy ?? product.default_model_policy,
    webhookEndpointId: input.webhook_endpoint_id ?? null,
    deletedAt: null,
    createdAt: now,
    updatedAt: now,
  };
  await tx(db, (t) => t.insert(workflows).values(row));
  return row;
}

/** A workflow of the workspace; deleted ones are gone (404) unless `includeDeleted` (runs keep reading theirs). */
export async function getWorkflow(db: Db, workspaceId: string, id: string, includeDeleted = false): Promise<WorkflowRow> {
  // Read on every run creation and every run the worker takes: prepared once.
  const found = await prepared(
    db,
    "workflow-in-workspace",
    () =>
      db
        .select()
        .from(workflows)
        .where(and(eq(workflows.id, sql.placeholder("id")), eq(workflows.workspaceId, sql.placeholder("workspaceId")))),
    { id, workspaceId },
  );
  const row = found[0];
  if (!row || (row.deletedAt !== null && !includeDeleted)) throw new ApiError(404, "not_found", `No workflow ${id}`);
  return row;
}

export async function listWorkflows(db: Db, secret: string, workspaceId: string, q: { limit?: number; cursor?: string }) {
  return listPage(db, secret, workflows, { workspaceId, deletedAt: null }, q, toWorkflowJson);
}

export async function updateWorkflow(
  db: Db,
  clock: Clock,
  workspaceId: string,
  id: string,
  patch: { name?: string; status?: WorkflowRow["status"]; user_prompt?: string | null; output_schema?: unknown },
): Promise<WorkflowRow> {
  const row = await getWorkflow(db, workspaceId, id);
  const changes: Partial<WorkflowRow> = { updatedAt: clock.now() };
  if (patch.name !== undefined) changes.name = checkName(patch.name, NAME_MAX);
  if (patch.status !== undefined) changes.status = patch.status;
  if (patch.user_prompt !== undefined) changes.userPrompt = patch.user_prompt;
  if (patch.output_schema !== undefined) {
    changes.outputSchema = checkOutputSchema(patch.output_schema);
    // The schema is now the one given (or none), no longer the one inferred from a sample.
    changes.outputSchemaSampleId = null;
  }
  await tx(db, (t) => t.update(workflows).set(changes).where(eq(workflows.id, row.id)));
  return { ...row, ...changes };
}

/** Soft delete: the workflow disappears from the API, its runs stay readable. */
export async function deleteWorkflow(db: Db, clock: Clock, workspaceId: string, id: string) {
  const row = await getWorkflow(db, workspaceId, id);
  await tx(db, (t) => t.update(workflows).set({ deletedAt: clock.now() }).where(eq(workflows.id, row.id)));
  return { id: row.id, object: "workflow" as const, deleted: true as const };
}
