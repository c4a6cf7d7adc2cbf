// The OpenAI-compatible client against a real local HTTP server that speaks the chat-completions protocol.
import { afterEach, describe, expect, test } from "bun:test";
import { chatJson, ModelError, type OpenAIConfig } from "../../src/engine/providers/openai";
import { compileSchema } from "../../src/engine/schema";

const SCHEMA = {
  type: "object",
  properties: { verdict: { type: "string", enum: ["pass", "fail"] }, score: { type: "integer", minimum: 0, maximum: 10 } },
  required: ["verdict", "score"],
  additionalProperties: false,
};
const { validate } = compileSchema(SCHEMA);
const PROMPT = "Evaluate the contract: the supplier shall deliver within 30 days.";
const MESSAGES = [
  { role: "system" as const, content: "You evaluate documents." },
  { role: "user" as const, content: PROMPT },
];
const API_KEY = "sk-test-secret-key-123456";

interface Seen {
  method: string;
  path: string;
  authorization: string | null;
  body: any;
}

type Reply = (seen: Seen, n: number) => Response | Promise<Response>;

// A fake server: records every request and answers with the reply scripted for that call
// (the last reply repeats).
function fakeServer(replies: Reply[]) {
  const seen: Seen[] = [];
  const chatCalls: Seen[] = [];
  const server = Bun.serve({
    port: 0,
    async fetch(req) {
      const url = new URL(req.url);
      const entry: Seen = {
        method: req.method,
        path: url.pathname,
        authorization: req.headers.get("authorization"),
        body: req.method === "POST" ? await req.json() : null,
      };
      seen.push(entry);
      if (url.pathname === "/v1/models") {
        return Response.json({ object: "list", data: [{ id: "listed-model", object: "model" }, { id: "other" }] });
      }
      if (url.pathname !== "/v1/chat/completions") return new Response("not found", { status: 404 });
      chatCalls.push(entry);
      const reply = replies[Math.min(chatCalls.length - 1, replies.length - 1)];
      return reply(entry, chatCalls.length);
    },
  });
  servers.push(server);
  return { url: `http://127.0.0.1:${server.port}/v1`, seen, chatCalls };
}

const servers: ReturnType<typeof Bun.serve>[] = [];
afterEach(() => {
  for (const s of servers.splice(0)) s.stop(true);
});

// What a real server answers: choices[0].message.content, usage and the model that ran.
function completion(content: string, usage = { prompt_tokens: 100, completion_tokens: 20 }, model = "served-model") {
  return () =>
    Response.json({
      id: "chatcmpl-1",
      object: "chat.completion",
      model,
      choices: [{ index: 0, message: { role: "assistant", content }, finish_reason: "stop" }],
      usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
    });
}

function config(url: string, extra: Partial<OpenAIConfig> = {}): OpenAIConfig {
  return { baseUrl: url, apiKey: API_KEY, model: "test-model", timeoutMs: 5000, retryBaseMs: 20, ...extra };
}

async function modelError(p: Promise<unknown>): Promise<ModelError> {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(ModelError);
    return e as ModelError;
  }
  throw new Error("expected a ModelError");
}

describe("chatJson", () => {
  test("sends the prompt with json_schema structured output and returns the value, usage and model", async () => {
    const server = fakeServer([completion('{"verdict":"pass","score":8}', { prompt_tokens: 321, completion_tokens: 12 })]);
    const result = await chatJson(config(`${server.url}/`), { messages: MESSAGES, schema: SCHEMA, schemaName: "contract review", validate });

    expect(result).toEqual({ value: { verdict: "pass", score: 8 }, usage: { input_tokens: 321, output_tokens: 12 }, model: "served-model" });
    expect(server.seen).toHaveLength(1);
    const [call] = server.chatCalls;
    expect(call.method).toBe("POST");
    expect(call.path).toBe("/v1/chat/completions"); // trailing slash of the base URL tolerated
    expect(call.authorization).toBe(`Bearer ${API_KEY}`);
    expect(call.body.model).toBe("test-model");
    expect(call.body.temperature).toBe(0);
    expect(call.body.messages).toEqual(MESSAGES);
    expect(call.body.response_format).toEqual({
      type: "json_schema",
      json_schema: { name: "contract_review", schema: SCHEMA, strict: true },
    });
  });

  test("no API key: no Authorization header; usage missing from the answer counts as 0", async () => {
    const server = fakeServer([
      () => Response.json({ choices: [{ message: { role: "assistant", content: '```json\n{"verdict":"fail","score":2}\n```' } }] }),
    ]);
    const result = await chatJson(config(server.url, { apiKey: undefined }), { messages: MESSAGES, schema: SCHEMA, validate });
    expect(result).toEqual({ value: { verdict: "fail", score: 2 }, usage: { input_tokens: 0, output_tokens: 0 }, model: "test-model" });
    expect(server.chatCalls[0].authorization).toBeNull();
  });

  test("a server without json_schema support gets json_object with the schema in the system message, and that is remembered", async () => {
    const server = fakeServer([
      (seen) => {
        if (seen.body.response_format?.type === "json_schema") {
          return Response.json(
            { error: { message: "response_format type json_schema is not supported", type: "invalid_request_error" } },
            { status: 400 },
          );
        }
        return completion('Here you go: {"verdict":"pass","score":9}')();
      },
    ]);
    const cfg = config(server.url);
    const first = await chatJson(cfg, { messages: MESSAGES, schema: SCHEMA, validate });
    expect(first.value).toEqual({ verdict: "pass", score: 9 });
    expect(first.usage).toEqual({ input_tokens: 100, output_tokens: 20 }); // the refused call has no usage
    expect(server.chatCalls.map((c) => c.body.response_format.type)).toEqual(["json_schema", "json_object"]);
    const fallback = server.chatCalls[1].body.messages;
    expect(fallback[0].role).toBe("system");
    expect(fallback[0].content).toContain("You evaluate documents.");
    expect(fallback[0].content).toContain(JSON.stringify(SCHEMA));
    expect(fallback[1].content).toBe(PROMPT);

    await chatJson(cfg, { messages: MESSAGES, schema: SCHEMA, validate });
    expect(server.chatCalls.map((c) => c.body.response_format.type)).toEqual(["json_schema", "json_object", "json_object"]);
  });

  test("malformed JSON gets one repair request quoting the problem; usage is summed over both calls", async () => {
    const server = fakeServer([
      completion('{"verdict": "pass", "score": 8', { prompt_tokens: 100, completion_tokens: 10 }),
      completion('{"verdict":"pass","score":8}', { prompt_tokens: 150, completion_tokens: 11 }, "served-model-2"),
    ]);
    const result = await chatJson(config(server.url), { messages: MESSAGES, schema: SCHEMA, validate });
    expect(result).toEqual({ value: { verdict: "pass", score: 8 }, usage: { input_tokens: 250, output_tokens: 21 }, model: "served-model-2" });
    expect(server.chatCalls).toHaveLength(2);
    const repair = server.chatCalls[1].body.messages;
    expect(repair.slice(0, 2)).toEqual(MESSAGES);
    expect(repair[2]).toEqual({ role: "assistant", content: '{"verdict": "pass", "score": 8' });
    expect(repair[3].role).toBe("user");
    expect(repair[3].content).toContain("not valid JSON");
  });

  test("JSON that does not match the schema is repaired with the validation error quoted", async () => {
    const server = fakeServer([completion('{"verdict":"maybe","score":8}'), completion('{"verdict":"fail","score":3}')]);
    const result = await chatJson(config(server.url), { messages: MESSAGES, schema: SCHEMA, validate });
    expect(result.value).toEqual({ verdict: "fail", score: 3 });
    expect(server.chatCalls[1].body.messages[3].content).toContain(`/verdict must be one of "pass", "fail"`);
  });

  test("still unusable after the repair: output_invalid", async () => {
    const server = fakeServer([completion("I think the contract is fine."), completion('{"verdict":"pass"}')]);
    const e = await modelError(chatJson(config(server.url), { messages: MESSAGES, schema: SCHEMA, validate }));
    expect(e.code).toBe("output_invalid");
    expect(e.message).toContain("must have required property 'score'");
    expect(server.chatCalls).toHaveLength(2);
  });

  test("429 with Retry-After: 0 is retried", async () => {
    const server = fakeServer([
      () => new Response(JSON.stringify({ error: { message: "rate limited" } }), { status: 429, headers: { "retry-after": "0" } }),
      completion('{"verdict":"pass","score":10}'),
    ]);
    const result = await chatJson(config(server.url, { retryBaseMs: 5000 }), { messages: MESSAGES, schema: SCHEMA, validate });
    expect(result.value).toEqual({ verdict: "pass", score: 10 });
    expect(server.chatCalls).toHaveLength(2);
  });

  test("5xx every time: retried maxRetries times with growing waits, then model_error without the API key", async () => {
    const server = fakeServer([() => Response.json({ error: { message: `upstream exploded for key ${API_KEY}` } }, { status: 500 })]);
    const started = performance.now();
    const e = await modelError(chatJson(config(server.url), { messages: MESSAGES, schema: SCHEMA, validate }));
    const elapsed = performance.now() - started;
    expect(e.code).toBe("model_error");
    expect(e.message).toContain("HTTP 500");
    expect(e.message).not.toContain(API_KEY);
    expect(server.chatCalls).toHaveLength(4); // the call and 3 retries
    expect(elapsed).toBeGreaterThanOrEqual((20 + 40 + 80) * 0.75); // backoff 20, 40, 80 ms, jittered
  });

  test("a 4xx that is not about response_format is not retried: model_error", async () => {
    const server = fakeServer([() => Response.json({ error: { message: "model 'test-model' not found" } }, { status: 404 })]);
    const e = await modelError(chatJson(config(server.url), { messages: MESSAGES, schema: SCHEMA, validate }));
    expect(e.code).toBe("model_error");
    expect(e.message).toContain("model 'test-model' not found");
    expect(server.chatCalls).toHaveLength(1);
  });

  test("a server that hangs: model_error once timeoutMs has passed", async () => {
    let release: () => void = () => {};
    const hung = new Promise<void>((resolve) => (release = resolve));
    const server = fakeServer([
      async () => {
        await hung;
        return completion('{"verdict":"pass","score":1}')();
      },
    ]);
    try {
      const started = performance.now();
      const e = await modelError(chatJson(config(server.url, { timeoutMs: 300 }), { messages: MESSAGES, schema: SCHEMA, validate }));
      const elapsed = performance.now() - started;
      expect(e.code).toBe("model_error");
      expect(e.message).toContain("300 ms");
      expect(elapsed).toBeGreaterThanOrEqual(250);
      expect(elapsed).toBeLessThan(2000);
    } finally {
      release();
    }
  });

  test("an aborted signal stops a call in flight and its retries at once, with the signal's reason", async () => {
    let release: () => void = () => {};
    const hung = new Promise<void>((resolve) => {
      release = resolve;
    });
    const server = fakeServer([
      async () => {
        await hung;
        return completion('{"verdict":"pass","score":1}')();
      },
    ]);
    try {
      const controller = new AbortController();
      const reason = new Error("lease lost");
      setTimeout(() => controller.abort(reason), 100);
      const started = performance.now();
      const call = chatJson(config(server.url, { timeoutMs: 10_000, signal: controller.signal }), { messages: MESSAGES, schema: SCHEMA, validate });
      expect(await call.catch((e) => e)).toBe(reason);
      expect(performance.now() - started).toBeLessThan(1000);
      // A 503 that would be retried after Retry-After is not waited out either.
      const busy = fakeServer([() => new Response("busy", { status: 503, headers: { "retry-after": "20" } })]);
      const later = new AbortController();
      setTimeout(() => later.abort(reason), 100);
      const t1 = performance.now();
      expect(await chatJson(config(busy.url, { signal: later.signal }), { messages: MESSAGES, schema: SCHEMA, validate }).catch((e) => e)).toBe(
        reason,
      );
      expect(performance.now() - t1).toBeLessThan(1000);
    } finally {
      release();
    }
  });

  test("an unreachable server: model_error after the retries", async () => {
    const server = fakeServer([completion("{}")]);
    const url = server.url;
    servers.pop()!.stop(true); // nothing listens there any more
    const e = await modelError(chatJson(config(url, { maxRetries: 1 }), { messages: MESSAGES, schema: SCHEMA, validate }));
    expect(e.code).toBe("model_error");
    expect(e.message).toContain("Could not reach the model server");
  });

  test("no model configured: the first model of GET /models is used, once per server", async () => {
    const server = fakeServer([completion('{"verdict":"pass","score":5}', undefined, "listed-model")]);
    const cfg = config(server.url, { model: undefined });
    const result = await chatJson(cfg, { messages: MESSAGES, schema: SCHEMA, validate });
    expect(result.model).toBe("listed-model");
    await chatJson(cfg, { messages: MESSAGES, schema: SCHEMA, validate });
    expect(server.seen.map((s) => `${s.method} ${s.path}`)).toEqual(["GET /v1/models", "POST /v1/chat/completions", "POST /v1/chat/completions"]);
    expect(server.seen[0].authorization).toBe(`Bearer ${API_KEY}`);
    expect(server.chatCalls.every((c) => c.body.model === "listed-model")).toBe(true);
  });

  test("a schema with optional properties is sent with strict: false", async () => {
    const loose = { type: "object", properties: { a: { type: "string" }, b: { type: "string" } }, required: ["a"] };
    const server = fakeServer([completion('{"a":"x"}')]);
    await chatJson(config(server.url), { messages: MESSAGES, schema: loose, validate: compileSchema(loose).validate });
    expect(server.chatCalls[0].body.response_format.json_schema.strict).toBe(false);
  });
});
