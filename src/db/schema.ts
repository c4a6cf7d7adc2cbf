// Every table of Assay, in one place. Times are integer milliseconds since the epoch (UTC).
import { index, integer, primaryKey, real, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

const ms = (name: string) => integer(name);
const json = <T>(name: string) => text(name, { mode: "json" }).$type<T>();

export const workspaces = sqliteTable("workspaces", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  createdAt: ms("created_at").notNull(),
});

export const users = sqliteTable(
  "users",
  {
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id),
    email: text("email").notNull(),
    passwordHash: text("password_hash"),
    role: text("role", { enum: ["admin", "member"] }).notNull(),
    oidcSub: text("oidc_sub"),
    createdAt: ms("created_at").notNull(),
  },
  (t) => [uniqueIndex("users_email").on(t.email), uniqueIndex("users_oidc_sub").on(t.oidcSub)],
);

/** Login sessions: only the SHA-256 of the `sess_` token is kept. */
export const sessions = sqliteTable(
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

export const apiKeys = sqliteTable(
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
    mode: text("mode", { enum: ["live", "test"] }).notNull(),
    keyPrefix: text("key_prefix").notNull(),
    last4: text("last4").notNull(),
    tokenHash: text("token_hash").notNull(),
    scopes: json<string[]>("scopes").notNull(),
    status: text("status", { enum: ["active", "revoked"] }).notNull(),
    rateLimitRpm: integer("rate_limit_rpm"),
    expiresAt: ms("expires_at"),
    lastUsedAt: ms("last_used_at"),
    createdAt: ms("created_at").notNull(),
    revokedAt: ms("revoked_at"),
  },
  (t) => [uniqueIndex("api_keys_token_hash").on(t.tokenHash), index("api_keys_ws_created").on(t.workspaceId, t.createdAt, t.id)],
);

/**
 * Append-only credit ledger; a workspace's balance is the sum of its rows per kind (kept in credit_balances).
 * A hold is a negative row; its release a positive one; a charge turns a hold final (delta 0, for the record).
 */
export const creditLedger = sqliteTable(
  "credit_ledger",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id),
    kind: text("kind", { enum: ["regular", "bonus"] }).notNull(),
    delta: real("delta").notNull(),
    reason: text("reason", { enum: ["grant", "hold", "release", "charge", "refund", "admin"] }).notNull(),
    runId: text("run_id"),
    note: text("note"),
    createdAt: ms("created_at").notNull(),
  },
  (t) => [index("credit_ledger_ws").on(t.workspaceId, t.kind), index("credit_ledger_run").on(t.runId)],
);

/**
 * The ledger's sum per workspace and kind, updated in the same transaction as every ledger row, so reading a balance
 * costs one row however long the ledger grows. `assay doctor` checks the two agree.
 */
export const creditBalances = sqliteTable(
  "credit_balances",
  {
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id),
    kind: text("kind", { enum: ["regular", "bonus"] }).notNull(),
    balance: real("balance").notNull(),
  },
  (t) => [primaryKey({ columns: [t.workspaceId, t.kind] })],
);

/** Stored originals, shared by input documents and reference documents. */
export const documents = sqliteTable(
  "documents",
  {
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id),
    filename: text("filename").notNull(),
    declaredMimeType: text("declared_mime_type"),
    declaredSize: integer("declared_size"),
    objectKey: text("object_key").notNull(),
    status: text("status", { enum: ["pending", "uploaded", "extracted", "failed"] }).notNull(),
    mimeType: text("mime_type"),
    sizeBytes: integer("size_bytes"),
    pageCount: integer("page_count"),
    textChars: integer("text_chars"),
    /** The extracted document (text + sections) as JSON, so evaluation never re-parses the original. */
    extracted: json<unknown>("extracted"),
    error: text("error"),
    createdAt: ms("created_at").notNull(),
  },
  (t) => [index("documents_ws_created").on(t.workspaceId, t.createdAt, t.id), index("documents_object_key").on(t.objectKey)],
);

export const referenceDocuments = sqliteTable(
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
    status: text("status", { enum: ["processing", "ready", "failed"] }).notNull(),
    failureReason: text("failure_reason"),
    deletedAt: ms("deleted_at"),
    createdAt: ms("created_at").notNull(),
    updatedAt: ms("updated_at").notNull(),
  },
  (t) => [index("reference_documents_ws_created").on(t.workspaceId, t.createdAt, t.id)],
);

/** Retrieval chunks; the FTS5 index over `text` is a custom migration (chunks_fts). */
export const chunks = sqliteTable(
  "chunks",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    workspaceId: text("workspace_id").notNull(),
    documentId: text("document_id")
      .notNull()
      .references(() => documents.id),
    ord: integer("ord").notNull(),
    text: text("text").notNull(),
    location: json<Record<string, unknown>>("location").notNull(),
    startOffset: integer("start_offset").notNull(),
  },
  (t) => [index("chunks_document").on(t.documentId, t.ord)],
);

/** Background work that must survive a restart: indexing, cleanup. Claimed with one UPDATE … RETURNING. */
export const jobs = sqliteTable(
  "jobs",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    kind: text("kind").notNull(),
    subjectId: text("subject_id").notNull(),
    status: text("status", { enum: ["queued", "running", "done", "failed"] }).notNull(),
    attempts: integer("attempts").notNull().default(0),
    nextAttemptAt: ms("next_attempt_at").notNull(),
    lockedUntil: ms("locked_until"),
    lastError: text("last_error"),
    createdAt: ms("created_at").notNull(),
  },
  (t) => [index("jobs_ready").on(t.status, t.nextAttemptAt), index("jobs_subject").on(t.kind, t.subjectId)],
);

export const webhookEndpoints = sqliteTable(
  "webhook_endpoints",
  {
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id),
    url: text("url").notNull(),
    events: json<string[]>("events").notNull(),
    secret: text("secret").notNull(),
    status: text("status", { enum: ["active", "disabled"] }).notNull(),
    deletedAt: ms("deleted_at"),
    createdAt: ms("created_at").notNull(),
    updatedAt: ms("updated_at").notNull(),
  },
  (t) => [index("webhook_endpoints_ws_created").on(t.workspaceId, t.createdAt, t.id)],
);

export const workflows = sqliteTable(
  "workflows",
  {
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id),
    productCode: text("product_code").notNull(),
    name: text("name").notNull(),
    status: text("status", { enum: ["active", "paused", "archived"] }).notNull(),
    promptTemplateId: text("prompt_template_id"),
    userPrompt: text("user_prompt"),
    referenceDocumentIds: json<string[]>("reference_document_ids").notNull(),
    outputFormat: text("output_format").notNull(),
    outputSchema: json<Record<string, unknown>>("output_schema"),
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

export const runs = sqliteTable(
  "runs",
  {
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id),
    workflowId: text("workflow_id").notNull(),
    apiKeyId: text("api_key_id"),
    keyMode: text("key_mode", { enum: ["live", "test"] }).notNull(),
    status: text("status", { enum: ["queued", "running", "succeeded", "failed", "canceled", "refunded"] }).notNull(),
    mode: text("mode").notNull(),
    quotedCredits: real("quoted_credits").notNull(),
    chargedCredits: real("charged_credits"),
    inputDocuments: json<string[]>("input_documents").notNull(),
    metadata: json<Record<string, unknown>>("metadata").notNull(),
    outputFormat: text("output_format"),
    output: json<unknown>("output"),
    outputObjectKey: text("output_object_key"),
    outputMimeType: text("output_mime_type"),
    usage: json<Record<string, unknown>>("usage"),
    error: json<{ code: string; message: string }>("error"),
    attempts: integer("attempts").notNull().default(0),
    lockedUntil: ms("locked_until"),
    createdAt: ms("created_at").notNull(),
    startedAt: ms("started_at"),
    finishedAt: ms("finished_at"),
  },
  (t) => [
    index("runs_ws_created").on(t.workspaceId, t.createdAt, t.id),
    index("runs_status").on(t.status, t.createdAt),
    // The fair claim: runs running per workspace, and when a workspace was last served.
    index("runs_ws_status").on(t.workspaceId, t.status),
    index("runs_ws_started").on(t.workspaceId, t.startedAt),
    index("runs_workflow").on(t.workflowId, t.createdAt),
    // The run queue's pick (each workspace's oldest free queued run) reads only this index: 4x faster with 6,000 queued.
    index("runs_queue_heads").on(t.status, t.workspaceId, t.createdAt, t.lockedUntil),
  ],
);

/** Outbox: every event is written in the same transaction as the change it reports. */
export const events = sqliteTable(
  "events",
  {
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id").notNull(),
    type: text("type").notNull(),
    subjectId: text("subject_id").notNull(),
    /** Workflow's own endpoint for run events, fanned out in addition to subscribers. */
    /** The payload's `data` ({run} or {reference_document}) as it was when the event happened. */
    data: json<Record<string, unknown>>("data").notNull(),
    dispatchedAt: ms("dispatched_at"),
    createdAt: ms("created_at").notNull(),
  },
  (t) => [index("events_undispatched").on(t.dispatchedAt, t.createdAt)],
);

export const webhookDeliveries = sqliteTable(
  "webhook_deliveries",
  {
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id").notNull(),
    endpointId: text("endpoint_id").notNull(),
    eventId: text("event_id").notNull(),
    eventType: text("event_type").notNull(),
    payload: text("payload").notNull(),
    status: text("status", { enum: ["pending", "succeeded", "failed"] }).notNull(),
    attempts: json<{ at: string; status: number | null; duration_ms: number; error?: string }[]>("attempts").notNull(),
    firstAttemptAt: ms("first_attempt_at"),
    nextAttemptAt: ms("next_attempt_at"),
    lockedUntil: ms("locked_until"),
    createdAt: ms("created_at").notNull(),
  },
  (t) => [
    uniqueIndex("webhook_deliveries_event_endpoint").on(t.eventId, t.endpointId),
    index("webhook_deliveries_due").on(t.status, t.nextAttemptAt),
    index("webhook_deliveries_endpoint").on(t.endpointId, t.createdAt, t.id),
    // Deliveries in flight (pending with a live lease) per endpoint and per workspace, for the fair claim.
    index("webhook_deliveries_endpoint_lease").on(t.endpointId, t.status, t.lockedUntil),
    index("webhook_deliveries_ws_lease").on(t.workspaceId, t.status, t.lockedUntil),
  ],
);

/** Idempotency-Key records, scoped per API key + method + path; kept 24 h. */
export const idempotencyKeys = sqliteTable(
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

/**
 * What every process sharing the database must agree on: on PostgreSQL the signing secret (`secret`) lives here, so
 * a URL or cursor signed by one process is honoured by all.
 */
export const settings = sqliteTable("settings", {
  key: text("key").primaryKey(),
  value: text("value").notNull(),
});

/**
 * Rate-limit windows shared by the processes of a PostgreSQL deployment: one row per API key or session (`id`), the
 * current one-minute window and its count. (One process on SQLite counts in memory and leaves this table empty.)
 */
export const rateWindows = sqliteTable("rate_windows", {
  id: text("id").primaryKey(),
  windowStart: ms("window_start").notNull(),
  count: integer("count").notNull(),
});
