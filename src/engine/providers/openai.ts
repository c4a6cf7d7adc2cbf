// Client for OpenAI-compatible chat-completions servers: JSON output that validates, with fallbacks, one repair, retries and timeouts.
import { parseRetryAfter } from "../../lib/retry-after";

export type ModelErrorCode = "model_error" | "output_invalid";

/** model_error: the server could not be reached or answered errors; output_invalid: its answer stayed unusable. */
export class ModelError extends Error {
  constructor(
    readonly code: ModelErrorCode,
    message: string,
  ) {
    super(message);
    this.name = "ModelError";
  }
}

export interface OpenAIConfig {
  /** e.g. http://host:11434/v1 (a trailing slash is fine) */
  baseUrl: string;
  apiKey?: string;
  /** When unset, the first model the server lists (GET /models) is used. */
  model?: string;
  /** Bound on each HTTP call. */
  timeoutMs: number;
  /** Retries after a 429, a 5xx or a network error; default 3. */
  maxRetries?: number;
  /** First backoff delay, doubled on each retry and jittered; default 500 ms. */
  retryBaseMs?: number;
  fetch?: typeof fetch;
  /** Aborts the call (and its retries) when the work it serves was stopped; the signal's reason is thrown. */
  signal?: AbortSignal;
}

/** The server's ASSAY_LLM_* settings as one call's configuration. */
export const openAIConfig = (
  llm: { baseUrl: string; apiKey: string | null; model: string | null; timeoutMs: number },
  signal?: AbortSignal,
): OpenAIConfig => ({ baseUrl: llm.baseUrl, apiKey: llm.apiKey ?? undefined, model: llm.model ?? undefined, timeoutMs: llm.timeoutMs, signal });

export interface ChatMessage {
  role: "system" | "user" | "assistant";
  content: string;
}

export interface ChatJsonRequest {
  messages: ChatMessage[];
  schema: object;
  schemaName?: string;
  /** null when the value is valid, else what is wrong (quoted back to the model in the repair request). */
  validate: (value: unknown) => string | null;
}

export interface ChatJsonResult {
  value: unknown;
  usage: { input_tokens: number; output_tokens: number };
  model: string;
}

// How a server is asked for JSON, best first. "prompt" means no response_format at all.
type OutputMode = "json_schema" | "json_object" | "prompt";
const NEXT_MODE: Record<OutputMode, OutputMode | null> = { json_schema: "json_object", json_object: "prompt", prompt: null };

// Per base URL, in memory: the mode the server accepted after a fallback, and its default model.
// Losing them on restart costs one rejected request or one GET /models.
const modeByServer = new Map<string, OutputMode>();
const defaultModelByServer = new Map<string, Promise<string>>();

const MAX_RETRY_AFTER_MS = 30_000;

/** Ask for a JSON answer that passes `req.validate`; throws ModelError. Usage is summed over every call made. */
export async function chatJson(cfg: OpenAIConfig, req: ChatJsonRequest): Promise<ChatJsonResult> {
  const base = cfg.baseUrl.trim().replace(/\/+$/, "");
  const model = cfg.model?.trim() || (await defaultModel(cfg, base));
  const usage = { input_tokens: 0, output_tokens: 0 };
  let answeredBy = model;

  const ask = async (messages: ChatMessage[]): Promise<string> => {
    const r = await complete(cfg, base, model, messages, req);
    usage.input_tokens += r.inputTokens;
    usage.output_tokens += r.outputTokens;
    if (r.model) answeredBy = r.model;
    return r.content;
  };

  const first = await ask(req.messages);
  let result = interpret(first, req.validate);
  if (result.ok) return { value: result.value, usage, model: answeredBy };

  const repair: ChatMessage[] = [
    ...req.messages,
    { role: "assistant", content: first || "(empty answer)" },
    {
      role: "user",
      content:
        `Your answer could not be used: ${result.problem}\n` +
        "Reply with the corrected JSON only, with no explanation and no code fences. " +
        `It must validate against this JSON Schema:\n${JSON.stringify(req.schema)}`,
    },
  ];
  result = interpret(await ask(repair), req.validate);
  if (result.ok) return { value: result.value, usage, model: answeredBy };
  throw new ModelError(
    "output_invalid",
    redact(cfg, `The model's answer did not match the output schema, even after a repair request: ${clip(result.problem, 600)}`),
  );
}

// ---------------------------------------------------------------------------

interface Completion {
  content: string;
  inputTokens: number;
  outputTokens: number;
  model: string | null;
}

async function complete(cfg: OpenAIConfig, base: string, model: string, messages: ChatMessage[], req: ChatJsonRequest): Promise<Completion> {
  let mode: OutputMode = modeByServer.get(base) ?? "json_schema";
  let fellBack = false;
  let schemaSpecific = false;
  for (;;) {
    const body = {
      model,
      temperature: 0,
      messages: mode === "json_schema" ? messages : withSchemaInstructions(messages, req.schema),
      ...responseFormat(mode, req),
    };
    const res = await send(cfg, "POST", `${base}/chat/completions`, body);
    if (res.ok) {
      // Remember a fallback only once it worked, and not when the refusal was about this
      // particular schema (e.g. a hosted API's strict-mode rules) rather than the feature.
      if (fellBack && !schemaSpecific) modeByServer.set(base, mode);
      return readCompletion(cfg, res.json);
    }
    const next = NEXT_MODE[mode];
    if (next && (res.status === 400 || res.status === 422) && /response_format|json_schema|json_object|not supported|unsupported/i.test(res.text)) {
      schemaSpecific ||= mode === "json_schema" && /invalid schema|schema is invalid/i.test(res.text);
      fellBack = true;
      mode = next;
      continue;
    }
    throw new ModelError("model_error", redact(cfg, `The model server answered HTTP ${res.status}${errorDetail(res.text)}.`));
  }
}

function responseFormat(mode: OutputMode, req: ChatJsonRequest): Record<string, unknown> {
  if (mode === "json_object") return { response_format: { type: "json_object" } };
  if (mode === "prompt") return {};
  return {
    response_format: {
      type: "json_schema",
      json_schema: {
        name: (req.schemaName ?? "output").replace(/[^a-zA-Z0-9_-]/g, "_").slice(0, 64) || "output",
        schema: req.schema,
        // Strict mode (OpenAI) refuses schemas with optional properties or open objects;
        // ask for it only when the schema meets its rules. Other servers ignore the flag.
        strict: isStrictCompatible(req.schema),
      },
    },
  };
}

/** Without json_schema the schema travels in the system message. */
function withSchemaInstructions(messages: ChatMessage[], schema: object): ChatMessage[] {
  const instruction =
    "Answer with a single JSON value, with no explanation and no code fences, " +
    `that validates against this JSON Schema:\n${JSON.stringify(schema)}`;
  const [head, ...rest] = messages;
  if (head?.role === "system") return [{ role: "system", content: `${head.content}\n\n${instruction}` }, ...rest];
  return [{ role: "system", content: instruction }, ...messages];
}

/** Every object closed (additionalProperties: false) with all its properties required. */
function isStrictCompatible(schema: unknown): boolean {
  if (Array.isArray(schema)) return schema.every(isStrictCompatible);
  if (typeof schema !== "object" || schema === null) return true;
  const s = schema as Record<string, unknown>;
  if (s.properties && typeof s.properties === "object") {
    const required = Array.isArray(s.required) ? s.required : [];
    if (s.additionalProperties !== false) return false;
    if (!Object.keys(s.properties).every((k) => required.includes(k))) return false;
  }
  return Object.entries(s).every(([k, v]) => k === "enum" || k === "const" || k === "default" || k === "examples" || isStrictCompatible(v));
}

function readCompletion(cfg: OpenAIConfig, json: unknown): Completion {
  const r = (json ?? {}) as {
    choices?: { message?: { content?: unknown } }[];
    usage?: { prompt_tokens?: unknown; completion_tokens?: unknown };
    model?: unknown;
  };
  if (!Array.isArray(r.choices)) {
    throw new ModelError("model_error", redact(cfg, "The model server's answer has no choices."));
  }
  const raw = r.choices[0]?.message?.content;
  // Some servers send content as parts: [{type: "text", text}].
  const content = Array.isArray(raw)
    ? raw.map((p) => (typeof p === "string" ? p : typeof p?.text === "string" ? p.text : "")).join("")
    : typeof raw === "string"
      ? raw
      : "";
  const count = (n: unknown) => (typeof n === "number" && Number.isFinite(n) && n > 0 ? Math.round(n) : 0);
  return {
    content,
    inputTokens: count(r.usage?.prompt_tokens),
    outputTokens: count(r.usage?.completion_tokens),
    model: typeof r.model === "string" && r.model ? r.model : null,
  };
}

type Interpreted = { ok: true; value: unknown } | { ok: false; problem: string };

/** Parse the answer as JSON, tolerating fences, reasoning blocks and prose around it, then validate. */
function interpret(content: string, validate: (v: unknown) => string | null): Interpreted {
  const text = content.replace(/<think>[\s\S]*?<\/think>/gi, "").trim();
  if (!text) return { ok: false, problem: "the answer was empty." };
  const candidates = [text];
  const fenced = /```(?:json)?\s*([\s\S]*?)```/i.exec(text);
  if (fenced) candidates.push(fenced[1].trim());
  for (const [open, close] of [
    ["{", "}"],
    ["[", "]"],
  ]) {
    const from = text.indexOf(open);
    const to = text.lastIndexOf(close);
    if (from >= 0 && to > from) candidates.push(text.slice(from, to + 1));
  }
  for (const candidate of candidates) {
    let value: unknown;
    try {
      value = JSON.parse(candidate);
    } catch {
      continue;
    }
    // Some models double-encode: a JSON string holding the JSON.
    if (typeof value === "string" && /^\s*[[{]/.test(value)) {
      try {
        value = JSON.parse(value);
      } catch {
        // keep the string; validation will say what is wrong
      }
    }
    const problem = validate(value);
    return problem === null ? { ok: true, value } : { ok: false, problem: `it does not match the schema: ${problem}` };
  }
  return { ok: false, problem: "it is not valid JSON." };
}

// ---------------------------------------------------------------------------
// HTTP with timeout and retries

type Sent = { ok: true; json: unknown } | { ok: false; status: number; text: string };

async function send(cfg: OpenAIConfig, method: "GET" | "POST", url: string, body?: unknown): Promise<Sent> {
  const doFetch = cfg.fetch ?? fetch;
  const maxRetries = Math.max(0, cfg.maxRetries ?? 3);
  const headers: Record<string, string> = { accept: "application/json" };
  if (body !== undefined) headers["content-type"] = "application/json";
  if (cfg.apiKey) headers.authorization = `Bearer ${cfg.apiKey}`;
  const payload = body === undefined ? undefined : JSON.stringify(body);

  for (let attempt = 0; ; attempt++) {
    let status: number;
    let text: string;
    let retryAfter: string | null;
    try {
      const timeout = AbortSignal.timeout(Math.max(1, cfg.timeoutMs));
      const res = await doFetch(url, { method, headers, body: payload, signal: cfg.signal ? AbortSignal.any([timeout, cfg.signal]) : timeout });
      status = res.status;
      retryAfter = res.headers.get("retry-after");
      text = await res.text(); // still under the same time limit
    } catch (e) {
      cfg.signal?.throwIfAborted();
      if (isTimeout(e)) {
        // Not retried: a server that takes this long is overloaded or the prompt is too big.
        throw new ModelError("model_error", `The model server did not answer within ${cfg.timeoutMs} ms.`);
      }
      if (attempt < maxRetries) {
        await sleep(backoff(cfg, attempt), cfg.signal);
        continue;
      }
      throw new ModelError("model_error", redact(cfg, `Could not reach the model server (${networkReason(e)}).`));
    }
    if (status >= 200 && status < 300) {
      try {
        return { ok: true, json: JSON.parse(text) };
      } catch {
        throw new ModelError("model_error", "The model server answered with something that is not JSON.");
      }
    }
    if ((status === 429 || status >= 500) && attempt < maxRetries) {
      await sleep(parseRetryAfter(retryAfter, Date.now(), MAX_RETRY_AFTER_MS) ?? backoff(cfg, attempt), cfg.signal);
      continue;
    }
    return { ok: false, status, text };
  }
}

function backoff(cfg: OpenAIConfig, attempt: number): number {
  const base = cfg.retryBaseMs ?? 500;
  return Math.min(MAX_RETRY_AFTER_MS, base * 2 ** attempt * (0.75 + Math.random() * 0.5));
}

async function defaultModel(cfg: OpenAIConfig, base: string): Promise<string> {
  let pending = defaultModelByServer.get(base);
  if (!pending) {
    pending = (async () => {
      // Shared by every caller that waits for it, so no one caller's signal may abort it.
      const res = await send({ ...cfg, signal: undefined }, "GET", `${base}/models`);
      if (!res.ok) {
        throw new ModelError(
          "model_error",
          redact(cfg, `No model is configured and the model server answered HTTP ${res.status} to the model list; set ASSAY_LLM_MODEL.`),
        );
      }
      const data = (res.json as { data?: { id?: unknown }[] } | null)?.data;
      const id = Array.isArray(data) ? data.find((m) => typeof m?.id === "string" && m.id)?.id : undefined;
      if (typeof id !== "string") {
        throw new ModelError("model_error", "No model is configured and the model server lists none; set ASSAY_LLM_MODEL.");
      }
      return id;
    })();
    defaultModelByServer.set(base, pending);
    // A failure is not cached: the server may be starting up.
    pending.catch(() => defaultModelByServer.delete(base));
  }
  return pending;
}

function isTimeout(e: unknown): boolean {
  return e instanceof Error && (e.name === "TimeoutError" || e.name === "AbortError");
}

function networkReason(e: unknown): string {
  const code = (e as { code?: unknown })?.code;
  if (typeof code === "string" && code) return code;
  return e instanceof Error ? e.name : "network error";
}

/** The server's own error message (OpenAI style {error: {message}}), short. */
function errorDetail(text: string): string {
  let message = text;
  try {
    const parsed = JSON.parse(text) as { error?: unknown; message?: unknown; detail?: unknown };
    const e = parsed.error;
    const m = typeof e === "string" ? e : ((e as { message?: unknown })?.message ?? parsed.message ?? parsed.detail);
    if (typeof m === "string") message = m;
  } catch {
    // not JSON: use the text as is
  }
  message = message.replace(/\s+/g, " ").trim();
  return message ? `: ${clip(message, 200)}` : "";
}

/** Messages end up in run errors: never let the API key through, even if a server echoes it. */
function redact(cfg: OpenAIConfig, message: string): string {
  const key = cfg.apiKey;
  return key && key.length >= 4 ? message.split(key).join("[redacted]") : message;
}

function clip(s: string, max: number): string {
  return s.length > max ? `${s.slice(0, max)}…` : s;
}

/** Waits `ms`, or rejects with the signal's reason as soon as it aborts. */
function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", stop);
      resolve();
    }, ms);
    const stop = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    if (signal?.aborted) stop();
    else signal?.addEventListener("abort", stop, { once: true });
  });
}
