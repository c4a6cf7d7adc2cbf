// PostgreSQL tables, for drizzle-kit's migrations: mirrors schema.ts column by column, as its SQLite tables query PostgreSQL too.
import { bigint, doublePrecision, index, integer, pgTable, primaryKey, text, uniqueIndex } from "drizzle-orm/pg-core";

/**
 * The storage types, chosen for the values the SQLite column objects read and write:
 * - times are integer milliseconds, past 2^31: bigint, which the pg driver parses into a JS number;
 * - SQLite's autoincrement ids are 64-bit rowids: bigint identity, so an insert that omits the id gets one;
 * - byte sizes are bigint (an object in S3 can pass 2 GB); counts, ordinals and offsets into a JS string stay integer;
 * - JSON stays text, not jsonb: the SQLite column object does its own JSON.stringify / JSON.parse;
 * - the enums of text columns are plain text (the SQLite objects carry the TypeScript types).
 * The full-text index on chunks (a generated tsvector column `tsv` and its GIN index) is the custom migration
 * 0001_fts: it is left out of this file so that selecting a chunk never reads it.
 */
const ms = (name: string) => bigint(name, { mode: "number" });
const bytes = (name: string) => bigint(name, { mode: "number" });
const json = (name: string) => text(name);
const autoId = () => bigint("id", { mode: "number" }).primaryKey().generatedByDefaultAsIdentity();

export const workspaces = pgTable("workspaces", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  createdAt: ms("created_at").notNull(),
});

export const users = pgTable(
  "users",
  {
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id),
    email: text("email").notNull(),
    passwordHash: text("password_hash"),
    role: text("role").notNull(),
    oidcSub: text("oidc_sub"),
    createdAt: ms("created_at").notNull(),
  },
  (t) => [uniqueIndex("users_email").on(t.email), uniqueIndex("users_oidc_sub").on(t.oidcSub)],
);

export const sessions = pgTable(
  "sessions",
  {
    tokenHash: text("token_hash").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id),
    expiresAt: ms("expires_at").notNull(),
    revokedAt: ms("revoked_at"),
    createdAt: ms("created_at").notNull(),
  },
  (t) => [index("sessions_user").on(t.userId)],
);

export const apiKeys = pgTable(
  "api_keys",
  {
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id),
    userId: text("user_id")
      .notNull()
      .references(() => users.id),
    name: text("name").notNull(),
    mode: text("mode").notNull(),
    keyPrefix: text("key_prefix").notNull(),
    last4: text("last4").notNull(),
    tokenHash: text("token_hash").notNull(),
    scopes: json("scopes").notNull(),
    status: text("status").notNull(),
    rateLimitRpm: integer("rate_limit_rpm"),
    expiresAt: ms("expires_at"),
    lastUsedAt: ms("last_used_at"),
    createdAt: ms("created_at").notNull(),
    revokedAt: ms("revoked_at"),
  },
  (t) => [uniqueIndex("api_keys_token_hash").on(t.tokenHash), index("api_keys_ws_created").on(t.workspaceId, t.createdAt, t.id)],
);

export const creditLedger = pgTable(
  "credit_ledger",
  {
    id: autoId(),
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id),
    kind: text("kind").notNull(),
    delta: doublePrecision("delta").notNull(),
    reason: text("reason").notNull(),
    runId: text("run_id"),
    note: text("note"),
    createdAt: ms("created_at").notNull(),
  },
  (t) => [index("credit_ledger_ws").on(t.workspaceId, t.kind), index("credit_ledger_run").on(t.runId)],
);

export const creditBalances = pgTable(
  "credit_balances",
  {
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id),
    kind: text("kind").notNull(),
    balance: doublePrecision("balance").notNull(),
  },
  (t) => [primaryKey({ columns: [t.workspaceId, t.kind] })],
);

export const documents = pgTable(
  "documents",
  {
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id),
    filename: text("filename").notNull(),
    declaredMimeType: text("declared_mime_type"),
    declaredSize: bytes("declared_size"),
    objectKey: text("object_key").notNull(),
    status: text("status").notNull(),
    mimeType: text("mime_type"),
    sizeBytes: bytes("size_bytes"),
    pageCount: integer("page_count"),
    textChars: integer("text_chars"),
    extracted: json("extracted"),
    error: text("error"),
    createdAt: ms("created_at").notNull(),
  },
  (t) => [index("documents_ws_created").on(t.workspaceId, t.createdAt, t.id), index("documents_object_key").on(t.objectKey)],
);

export const referenceDocuments = pgTable(
  "reference_documents",
  {
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id),
    documentId: text("document_id")
      .notNull()
      .references(() => documents.id),
    name: text("name").notNull(),
    status: text("status").notNull(),
    failureReason: text("failure_reason"),
    deletedAt: ms("deleted_at"),
    createdAt: ms("created_at").notNull(),
    updatedAt: ms("updated_at").notNull(),
  },
  (t) => [index("reference_documents_ws_created").on(t.workspaceId, t.createdAt, t.id)],
);

export const chunks = pgTable(
  "chunks",
  {
    id: autoId(),
    workspaceId: text("workspace_id").notNull(),
    documentId: text("document_id")
      .notNull()
      .references(() => documents.id),
    ord: integer("ord").notNull(),
    text: text("text").notNull(),
    location: json("location").notNull(),
    startOffset: integer("start_offset").notNull(),
  },
  (t) => [index("chunks_document").on(t.documentId, t.ord)],
);

export const jobs = pgTable(
  "jobs",
  {
    id: autoId(),
    kind: text("kind").notNull(),
    subjectId: text("subject_id").notNull(),
    status: text("status").notNull(),
    attempts: integer("attempts").notNull().default(0),
    nextAttemptAt: ms("next_attempt_at").notNull(),
    lockedUntil: ms("locked_until"),
    lastError: text("last_error"),
    createdAt: ms("created_at").notNull(),
  },
  (t) => [index("jobs_ready").on(t.status, t.nextAttemptAt), index("jobs_subject").on(t.kind, t.subjectId)],
);

export const webhookEndpoints = pgTable(
  "webhook_endpoints",
  {
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id),
    url: text("url").notNull(),
    events: json("events").notNull(),
    secret: text("secret").notNull(),
    status: text("status").notNull(),
    deletedAt: ms("deleted_at"),
    createdAt: ms("created_at").notNull(),
    updatedAt: ms("updated_at").notNull(),
  },
  (t) => [index("webhook_endpoints_ws_created").on(t.workspaceId, t.createdAt, t.id)],
);

export const workflows = pgTable(
  "workflows",
  {
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id),
    productCode: text("product_code").notNull(),
    name: text("name").notNull(),
    status: text("status").notNull(),
    promptTemplateId: text("prompt_template_id"),
    userPrompt: text("user_prompt"),
    referenceDocumentIds: json("reference_document_ids").notNull(),
    outputFormat: text("output_format").notNull(),
    outputSchema: json("output_schema"),
    outputSchemaSampleId: text("output_schema_sample_id"),
    defaultMode: text("default_mode").notNull(),
    defaultModelPolicy: text("default_model_policy").notNull(),
    webhookEndpointId: text("webhook_endpoint_id"),
    deletedAt: ms("deleted_at"),
    createdAt: ms("created_at").notNull(),
    updatedAt: ms("updated_at").notNull(),
  },
  (t) => [index("workflows_ws_created").on(t.workspaceId, t.createdAt, t.id)],
);

export const runs = pgTable(
  "runs",
  {
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id),
    workflowId: text("workflow_id").notNull(),
    apiKeyId: text("api_key_id"),
    keyMode: text("key_mode").notNull(),
    status: text("status").notNull(),
    mode: text("mode").notNull(),
    quotedCredits: doublePrecision("quoted_credits").notNull(),
    chargedCredits: doublePrecision("charged_credits"),
    inputDocuments: json("input_documents").notNull(),
    metadata: json("metadata").notNull(),
    outputFormat: text("output_format"),
    output: json("output"),
    outputObjectKey: text("output_object_key"),
    outputMimeType: text("output_mime_type"),
    usage: json("usage"),
    error: json("error"),
    attempts: integer("attempts").notNull().default(0),
    lockedUntil: ms("locked_until"),
    createdAt: ms("created_at").notNull(),
    startedAt: ms("started_at"),
    finishedAt: ms("finished_at"),
  },
  (t) => [
    index("runs_ws_created").on(t.workspaceId, t.createdAt, t.id),
    index("runs_status").on(t.status, t.createdAt),
    index("runs_ws_status").on(t.workspaceId, t.status),
    index("runs_ws_started").on(t.workspaceId, t.startedAt),
    index("runs_workflow").on(t.workflowId, t.createdAt),
    index("runs_queue_heads").on(t.status, t.workspaceId, t.createdAt, t.lockedUntil),
  ],
);

export const events = pgTable(
  "events",
  {
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id").notNull(),
    type: text("type").notNull(),
    subjectId: text("subject_id").notNull(),
    data: json("data").notNull(),
    dispatchedAt: ms("dispatched_at"),
    createdAt: ms("created_at").notNull(),
  },
  (t) => [index("events_undispatched").on(t.dispatchedAt, t.createdAt)],
);

export const webhookDeliveries = pgTable(
  "webhook_deliveries",
  {
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id").notNull(),
    endpointId: text("endpoint_id").notNull(),
    eventId: text("event_id").notNull(),
    eventType: text("event_type").notNull(),
    payload: text("payload").notNull(),
    status: text("status").notNull(),
    attempts: json("attempts").notNull(),
    firstAttemptAt: ms("first_attempt_at"),
    nextAttemptAt: ms("next_attempt_at"),
    lockedUntil: ms("locked_until"),
    createdAt: ms("created_at").notNull(),
  },
  (t) => [
    uniqueIndex("webhook_deliveries_event_endpoint").on(t.eventId, t.endpointId),
    index("webhook_deliveries_due").on(t.status, t.nextAttemptAt),
    index("webhook_deliveries_endpoint").on(t.endpointId, t.createdAt, t.id),
    index("webhook_deliveries_endpoint_lease").on(t.endpointId, t.status, t.lockedUntil),
    index("webhook_deliveries_ws_lease").on(t.workspaceId, t.status, t.lockedUntil),
  ],
);

export const idempotencyKeys = pgTable(
  "idempotency_keys",
  {
    scope: text("scope").primaryKey(),
    requestHash: text("request_hash").notNull(),
    responseStatus: integer("response_status"),
    responseBody: text("response_body"),
    createdAt: ms("created_at").notNull(),
  },
  (t) => [index("idempotency_keys_created").on(t.createdAt)],
);

export const settings = pgTable("settings", {
  key: text("key").primaryKey(),
  value: text("value").notNull(),
});

export const rateWindows = pgTable("rate_windows", {
  id: text("id").primaryKey(),
  windowStart: bigint("window_start", { mode: "number" }).notNull(),
  count: integer("count").notNull(),
});
