// The console's one client of the public /v1 API: every call the console makes goes through here, with the session
// token, and every failure becomes an ApiError that says what went wrong in words, with the request id.

interface User {
  id: string;
  email: string;
  role: "admin" | "member";
}
export interface Session {
  token: string;
  expires_at?: string;
  user: User;
}
export interface Page<T> {
  data: T[];
  next_cursor: string | null;
}
export interface Balance {
  pro_credits: number;
  bonus_pro: number;
  regular_pro: number;
  basic_credits_excluded: boolean;
}
export interface UsageReport {
  period: { from: string; to: string };
  total_runs: number;
  total_credits: number;
  by_workflow?: { workflow_id: string; name: string; runs: number; credits: number }[];
}
export interface PromptTemplate {
  id: string;
  slug: string;
  title: string;
  description: string | null;
  category: string;
  user_prompt_seed: string;
  recommended_output_format: OutputFormat | null;
  locale: string;
}
export const CATEGORIES = ["general", "education", "legal", "grading", "hr"] as const;
export interface InputDocument {
  id: string;
  filename?: string;
  mime_type: string | null;
  size_bytes: number | null;
  page_count: number | null;
  extracted: boolean;
  created_at: string;
}
type ReferenceStatus = "processing" | "ready" | "failed";
export interface ReferenceDocument {
  id: string;
  name: string;
  status: ReferenceStatus;
  created_at: string;
  failure_reason?: string;
}
interface Upload {
  id: string;
  upload_url: string;
  upload_content_type: string;
  expires_at: string;
}
export interface Product {
  code: string;
  name: string;
  description: string | null;
  status: string;
}
export const OUTPUT_FORMATS = ["json", "markdown", "docx", "xlsx", "csv"] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];
export const MODEL_POLICIES = ["auto", "gemini-file-search", "deepseek-1m-fulltext", "hybrid"] as const;
export type ModelPolicy = (typeof MODEL_POLICIES)[number];
export interface Workflow {
  id: string;
  product_code: string;
  name: string;
  status: "active" | "paused" | "archived";
  prompt_template_id: string | null;
  user_prompt: string | null;
  reference_document_ids: string[];
  output_format: OutputFormat;
  output_schema: Record<string, unknown> | null;
  default_mode: "sync" | "async";
  default_model_policy: ModelPolicy;
  webhook_endpoint_id: string | null;
  created_at: string;
  updated_at?: string;
}
export interface NewWorkflow {
  product_code: string;
  name: string;
  prompt_template_id?: string;
  user_prompt?: string;
  reference_document_ids: string[];
  output_format: OutputFormat;
  output_schema?: Record<string, unknown>;
  output_schema_sample_id?: string;
  default_mode?: "sync" | "async";
  default_model_policy?: ModelPolicy;
  webhook_endpoint_id?: string;
}
export interface WorkflowChange {
  name?: string;
  status?: Workflow["status"];
  user_prompt?: string | null;
  output_schema?: Record<string, unknown> | null;
}
export const RUN_STATUSES = ["queued", "running", "succeeded", "failed", "canceled", "refunded"] as const;
type RunStatus = (typeof RUN_STATUSES)[number];
interface Evidence {
  document_id: string;
  quote: string;
  location: Location;
}
/** A place in a document: what an evidence quote's `location` and a text section's `location` name. */
export type Location = Record<string, string | number>;
/** GET /v1/documents/{id}/text and GET /v1/reference-documents/{id}/text (Assay extensions). */
export interface DocumentText {
  object: "document_text";
  document_id: string;
  format: string;
  page_count: number | null;
  sections: { location: Location; text: string }[];
}
export interface AdminUser {
  id: string;
  object: "user";
  email: string;
  role: "admin" | "member";
  workspace_id: string;
  created_at: string;
}
export interface Criterion {
  id: string;
  title: string;
  score: number;
  max_score: number;
  rationale: string;
  evidence: Evidence[];
}
interface Evaluation {
  summary?: string;
  score?: number;
  verdict?: string;
  criteria?: Criterion[];
}
export interface Run {
  id: string;
  workflow_id: string;
  status: RunStatus;
  livemode: boolean;
  quoted_credits: number;
  charged_credits: number | null;
  input_documents: string[];
  output_format: string | null;
  output: (Evaluation & Record<string, unknown>) | null;
  output_file: { url: string; expires_at: string; mime_type: string } | null;
  usage: {
    model: string | null;
    rag_strategy: string | null;
    input_tokens: number | null;
    output_tokens: number | null;
    unresolved_quotes?: number | null;
  };
  error: { code?: string; message?: string } | null;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
}
export const SCOPES = [
  "runs:read",
  "runs:write",
  "workflows:read",
  "workflows:write",
  "documents:write",
  "reference_documents:read",
  "reference_documents:write",
  "webhooks:read",
  "webhooks:write",
  "usage:read",
] as const;
export interface ApiKey {
  public_id: string;
  name: string;
  mode: "live" | "test";
  key_prefix: string;
  last4: string;
  scopes: string[];
  status: "active" | "revoked";
  rate_limit_rpm?: number | null;
  expires_at?: string | null;
  last_used_at: string | null;
  created_at: string;
}
export interface SecretApiKey extends ApiKey {
  token: string;
  warning: string;
}
export const EVENT_TYPES = ["run.succeeded", "run.failed", "run.canceled", "reference_document.ready"] as const;
export interface WebhookEndpoint {
  id: string;
  url: string;
  events: string[];
  status: "active" | "disabled";
  created_at: string;
}
export interface WebhookDelivery {
  id: string;
  event_id?: string;
  event_type: string;
  status: "pending" | "succeeded" | "failed";
  attempts: { at: string; status: number | null; duration_ms: number; error?: string }[];
  next_attempt_at: string | null;
  created_at: string;
}

/** An API error body `{ error: { code, message, param?, request_id } }`, or a network failure (status 0). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly requestId: string | null,
    readonly param?: string,
  ) {
    super(message);
  }
  /** The words the console shows. */
  describe(): string {
    const field = this.param ? ` (field: ${this.param})` : "";
    const id = this.requestId ? ` — request id ${this.requestId}` : "";
    return `${this.message}${field} [${this.code}${this.status ? `, HTTP ${this.status}` : ""}]${id}`;
  }
}

const STORAGE_KEY = "assay.session";
let session: Session | null = readStored();
let onSignedOut: () => void = () => {};

function readStored(): Session | null {
  try {
    const raw = sessionStorage.getItem(STORAGE_KEY);
    return raw ? (JSON.parse(raw) as Session) : null;
  } catch {
    return null;
  }
}

export const currentSession = () => session;
/** Called when the API says the session is no longer valid (expired, revoked). */
export function whenSignedOut(fn: () => void) {
  onSignedOut = fn;
}
// sessionStorage: the token lives as long as the tab, never in a cookie (so no CSRF), never on disk.
function setSession(s: Session | null) {
  session = s;
  if (s) sessionStorage.setItem(STORAGE_KEY, JSON.stringify(s));
  else sessionStorage.removeItem(STORAGE_KEY);
}

/** Signed URLs carry the server's public URL; the console is served by that same server, so it uses the path only
 * (its CSP allows its own origin alone). */
const sameOrigin = (url: string) => {
  const u = new URL(url, location.href);
  return u.pathname + u.search;
};

async function toError(res: Response): Promise<ApiError> {
  const requestId = res.headers.get("x-request-id");
  try {
    const body = (await res.json()) as { error?: { code: string; message: string; param?: string; request_id?: string } };
    if (body.error) return new ApiError(res.status, body.error.code, body.error.message, body.error.request_id ?? requestId, body.error.param);
  } catch {}
  return new ApiError(res.status, "http_error", `The server answered ${res.status} ${res.statusText}`, requestId);
}

async function call<T>(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<T> {
  const h: Record<string, string> = { ...headers };
  if (session) h.authorization = `Bearer ${session.token}`;
  if (body !== undefined) h["content-type"] = "application/json";
  let res: Response;
  try {
    res = await fetch(`/v1${path}`, { method, headers: h, body: body === undefined ? undefined : JSON.stringify(body) });
  } catch (err) {
    throw new ApiError(0, "network_error", `The server could not be reached (${(err as Error).message})`, null);
  }
  if (!res.ok) {
    const error = await toError(res);
    if (res.status === 401 && session && !path.startsWith("/auth/")) {
      setSession(null);
      onSignedOut();
    }
    throw error;
  }
  return (await res.json()) as T;
}

/** PUT a file to a signed upload URL, reporting progress (fetch cannot report upload progress; XHR can). */
function put(url: string, file: Blob, contentType: string, onProgress?: (fraction: number) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open("PUT", sameOrigin(url));
    xhr.setRequestHeader("content-type", contentType);
    xhr.upload.onprogress = (e) => e.lengthComputable && onProgress?.(e.loaded / e.total);
    xhr.onerror = () => reject(new ApiError(0, "network_error", "The upload was interrupted", null));
    xhr.onload = () => {
      if (xhr.status >= 200 && xhr.status < 300) return resolve();
      const requestId = xhr.getResponseHeader("x-request-id");
      try {
        const e = JSON.parse(xhr.responseText).error;
        reject(new ApiError(xhr.status, e.code, e.message, e.request_id ?? requestId, e.param));
      } catch {
        reject(new ApiError(xhr.status, "http_error", `The upload failed with HTTP ${xhr.status}`, requestId));
      }
    };
    xhr.send(file);
  });
}

const q = (params: Record<string, string | number | undefined | null>) => {
  const s = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== "") s.set(k, String(v));
  const text = s.toString();
  return text ? `?${text}` : "";
};
const id = encodeURIComponent;

export const api = {
  async login(email: string, password: string) {
    setSession(await call<Session>("POST", "/auth/login", { email, password }));
    return session as Session;
  },
  /** First run: creates the first (admin) user with the one-time setup token and signs in. */
  async setup(token: string, email: string, password: string) {
    setSession(await call<Session>("POST", "/auth/setup", { token, email, password }));
    return session as Session;
  },
  async logout() {
    try {
      await call("POST", "/auth/logout");
    } finally {
      setSession(null);
    }
  },
  balance: () => call<Balance>("GET", "/usage/balance"),
  /** Runs and credits from `from` to `to` (YYYY-MM-DD, both included); without them, the current month. */
  usage: (from?: string, to?: string) => call<UsageReport>("GET", `/usage${q({ from, to })}`),
  promptTemplates: () => call<{ data: PromptTemplate[] }>("GET", "/prompt-templates"),
  generatePrompt: (body: { goal: string; category: string; output_format: OutputFormat }) =>
    call<{ user_prompt: string; recommended_output_format: OutputFormat | null }>("POST", "/prompt-templates/generate", body),
  products: () => call<{ data: Product[] }>("GET", "/products"),

  references: (cursor?: string | null) => call<Page<ReferenceDocument>>("GET", `/reference-documents${q({ limit: 100, cursor })}`),
  referenceText: (refId: string) => call<DocumentText>("GET", `/reference-documents/${id(refId)}/text`),
  reference: (refId: string) => call<ReferenceDocument>("GET", `/reference-documents/${id(refId)}`),
  deleteReference: (refId: string) => call("DELETE", `/reference-documents/${id(refId)}`),
  /** The presigned flow: declare, PUT the bytes, complete (which starts indexing). */
  async uploadReference(file: File, name: string, onProgress?: (f: number) => void) {
    const created = await call<ReferenceDocument & Upload>("POST", "/reference-documents", {
      name,
      filename: file.name,
      size_bytes: file.size,
      ...(file.type ? { mime_type: file.type } : {}),
    });
    await put(created.upload_url, file, created.upload_content_type, onProgress);
    return call<ReferenceDocument>("POST", `/reference-documents/${id(created.id)}/complete`);
  },

  /** An input document: declare, PUT, complete (text extracted); its id goes into a run. */
  async uploadDocument(file: File, onProgress?: (f: number) => void) {
    const created = await call<Upload>("POST", "/documents", {
      filename: file.name,
      size_bytes: file.size,
      ...(file.type ? { mime_type: file.type } : {}),
    });
    await put(created.upload_url, file, created.upload_content_type, onProgress);
    return call<InputDocument>("POST", `/documents/${id(created.id)}/complete`);
  },
  document: (docId: string) => call<InputDocument>("GET", `/documents/${id(docId)}`),
  documentText: (docId: string) => call<DocumentText>("GET", `/documents/${id(docId)}/text`),

  workflows: (cursor?: string | null) => call<Page<Workflow>>("GET", `/workflows${q({ limit: 100, cursor })}`),
  workflow: (wfId: string) => call<Workflow>("GET", `/workflows/${id(wfId)}`),
  createWorkflow: (body: NewWorkflow) => call<Workflow>("POST", "/workflows", body),
  updateWorkflow: (wfId: string, body: WorkflowChange) => call<Workflow>("PATCH", `/workflows/${id(wfId)}`, body),
  deleteWorkflow: (wfId: string) => call("DELETE", `/workflows/${id(wfId)}`),

  runs: (filter: {
    status?: string;
    workflow_id?: string;
    mode?: string;
    created_after?: string;
    created_before?: string;
    cursor?: string | null;
    limit?: number;
  }) => call<Page<Run>>("GET", `/runs${q({ limit: filter.limit ?? 20, ...filter })}`),
  run: (runId: string) => call<Run>("GET", `/runs/${id(runId)}`),
  startRun: (wfId: string, documentIds: string[]) =>
    call<Run>("POST", `/workflows/${id(wfId)}/runs`, { mode: "async", input_documents: documentIds }, { "idempotency-key": crypto.randomUUID() }),
  cancelRun: (runId: string) => call<Run>("POST", `/runs/${id(runId)}/cancel`),
  runOutput: (runId: string) => call<{ url: string; expires_at: string; mime_type: string }>("GET", `/runs/${id(runId)}/output`),

  keys: () => call<{ data: ApiKey[] }>("GET", "/keys"),
  createKey: (body: { name: string; mode: "live" | "test"; scopes: string[]; rate_limit_rpm?: number; expires_at?: string }) =>
    call<SecretApiKey>("POST", "/keys", body),
  revokeKey: (keyId: string) => call<ApiKey>("DELETE", `/keys/${id(keyId)}`),

  webhooks: () => call<{ data: WebhookEndpoint[] }>("GET", "/webhook-endpoints"),
  createWebhook: (url: string, events: string[]) =>
    call<WebhookEndpoint & { secret: string; warning: string }>("POST", "/webhook-endpoints", { url, events }),
  updateWebhook: (whkId: string, body: { url?: string; events?: string[]; status?: WebhookEndpoint["status"] }) =>
    call<WebhookEndpoint>("PATCH", `/webhook-endpoints/${id(whkId)}`, body),
  deleteWebhook: (whkId: string) => call("DELETE", `/webhook-endpoints/${id(whkId)}`),
  deliveries: (whkId: string) => call<Page<WebhookDelivery>>("GET", `/webhook-endpoints/${id(whkId)}/deliveries${q({ limit: 50 })}`),
  delivery: (whkId: string, whdId: string) =>
    call<WebhookDelivery & { payload: unknown }>("GET", `/webhook-endpoints/${id(whkId)}/deliveries/${id(whdId)}`),
  retryDelivery: (whkId: string, whdId: string) => call<WebhookDelivery>("POST", `/webhook-endpoints/${id(whkId)}/deliveries/${id(whdId)}/retry`),

  users: (cursor?: string | null, limit = 20) => call<Page<AdminUser>>("GET", `/admin/users${q({ limit, cursor })}`),
  createUser: (body: { email: string; password: string; role: "admin" | "member" }) => call<AdminUser>("POST", "/admin/users", body),
  setRole: (userId: string, role: "admin" | "member") => call<AdminUser>("PATCH", `/admin/users/${id(userId)}`, { role }),
  refundRun: (runId: string) => call<Run>("POST", `/admin/runs/${id(runId)}/refund`),
  grantCredits: (body: { email: string; amount: number; kind: "regular" | "bonus"; note?: string }) => call<Balance>("POST", "/admin/credits", body),
};
