// Test harness: a real app over a real SQLite file in a temp dir, requests through app.handle(), scenario tables.
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import path from "node:path";
import { type App, createApp } from "../src/app";
import { type Config, ensureDataDir, loadConfig } from "../src/config";
import type { Context } from "../src/context";
import { createContext } from "../src/create-context";
import type { Clock } from "../src/lib/clock";
import { untilHealthy } from "../src/lib/ports";
import { tempDir } from "../src/lib/temp-dir";
import { createUser } from "../src/modules/auth/service";
import { testDatabaseUrl } from "./postgres";

export const CORPUS = path.resolve(import.meta.dir, "fixtures/corpus");

export class TestClock implements Clock {
  constructor(public t = Date.parse("2026-11-22T12:00:00Z")) {}
  now() {
    return this.t;
  }
  advance(ms: number) {
    this.t += ms;
  }
}

export interface Harness {
  ctx: Context;
  app: App;
  dir: string;
  clock: Clock;
  call(method: string, urlPath: string, opts?: CallOptions): Promise<Reply>;
}

interface CallOptions {
  token?: string;
  body?: unknown;
  raw?: RequestInit["body"];
  headers?: Record<string, string>;
}

export interface Reply {
  status: number;
  body: any;
  headers: Headers;
  text: string;
}

export { tempDir };

/**
 * A fresh data dir, and with ASSAY_TEST_DATABASE_URL (the PostgreSQL pass of the suite) a fresh database on that
 * server, so every harness starts empty on either backend.
 */
export async function testConfig(env: Record<string, string> = {}): Promise<Config> {
  const dir = tempDir();
  const databaseUrl = env.ASSAY_DATABASE_URL ?? (await testDatabaseUrl());
  return ensureDataDir(
    loadConfig({
      ASSAY_DATA_DIR: dir,
      ASSAY_PUBLIC_URL: "http://localhost",
      ASSAY_LOG_LEVEL: "silent",
      // A harness needs few connections; hundreds of harnesses share one test server.
      ...(databaseUrl ? { ASSAY_DATABASE_URL: databaseUrl, ASSAY_DATABASE_POOL: "3" } : {}),
      ...env,
    }),
  );
}

export async function harness(env: Record<string, string> = {}, clock?: Clock): Promise<Harness> {
  const config = await testConfig(env);
  const ctx = await createContext(config, clock);
  const app = createApp(ctx);
  return {
    ctx,
    app,
    dir: config.dataDir,
    clock: ctx.clock,
    async call(method, urlPath, opts = {}) {
      const headers: Record<string, string> = { ...opts.headers };
      if (opts.token) headers.authorization = `Bearer ${opts.token}`;
      let body: RequestInit["body"] = opts.raw;
      if (opts.body !== undefined) {
        body = JSON.stringify(opts.body);
        headers["content-type"] ??= "application/json";
      }
      const res = await app.handle(new Request(`http://localhost${urlPath}`, { method, headers, body }));
      const text = await res.text();
      let parsed: unknown = text;
      try {
        parsed = JSON.parse(text);
      } catch {}
      return { status: res.status, body: parsed, headers: res.headers, text };
    },
  };
}

/** A user with a session token, plus a live and a test key with every scope. */
export async function signUp(h: Harness, email = `u${Math.random().toString(36).slice(2, 10)}@example.com`, role: "admin" | "member" = "member") {
  const password = "correct horse battery";
  const user = await createUser(h.ctx.db, h.ctx.clock, h.ctx.config, { email, password, role });
  const login = await h.call("POST", "/v1/auth/login", { body: { email, password } });
  expect(login.status).toBe(200);
  const session: string = login.body.token;
  const live = await h.call("POST", "/v1/keys", { token: session, body: { name: "live key" } });
  const testKey = await h.call("POST", "/v1/keys", { token: session, body: { name: "test key", mode: "test" } });
  expect(live.status).toBe(201);
  return { user, email, password, session, liveKey: live.body.token as string, testKey: testKey.body.token as string, workspaceId: user.workspaceId };
}

export interface Scenario {
  name: string;
  method: string;
  path: string;
  token?: string | (() => string);
  body?: unknown;
  raw?: RequestInit["body"];
  headers?: Record<string, string>;
  status: number;
  /** Each entry must appear in the JSON body (deep partial match). */
  expect?: Record<string, unknown>;
  check?: (reply: Reply) => void | Promise<void>;
}

/** One test per row: the request, its status and body fragments. */
export function scenarios(getHarness: () => Harness, rows: Scenario[]) {
  for (const row of rows) {
    test(row.name, async () => {
      const h = getHarness();
      const token = typeof row.token === "function" ? row.token() : row.token;
      const reply = await h.call(row.method, row.path, { token, body: row.body, raw: row.raw, headers: row.headers });
      if (reply.status !== row.status) console.error(row.name, reply.status, reply.text.slice(0, 500));
      expect(reply.status).toBe(row.status);
      expect(reply.headers.get("x-request-id")).toMatch(/^req_/);
      if (row.expect) expect(reply.body).toMatchObject(row.expect);
      await row.check?.(reply);
    });
  }
}

/** A corpus file's bytes (path relative to test/fixtures/corpus). */
export function corpusFile(rel: string): Uint8Array {
  return new Uint8Array(readFileSync(path.join(CORPUS, rel)));
}

/** A signed URL (on ASSAY_PUBLIC_URL) as the path and query that app.handle needs. */
export function localPath(url: string): string {
  const parsed = new URL(url);
  return parsed.pathname + parsed.search;
}

/** What a fake model server answers to an evaluation: a passing Evaluation with one criterion. */
const FAKE_EVALUATION = {
  summary: "Clear and complete.",
  score: 80,
  verdict: "pass",
  criteria: [{ id: "c1", title: "Clarity", score: 8, max_score: 10, rationale: "Clear.", evidence: [] }],
};

/** An OpenAI-compatible chat-completions response carrying `content` (JSON-encoded), as the fake model servers send. */
export function chatCompletion(content: unknown = FAKE_EVALUATION): Response {
  return Response.json({
    id: "c",
    object: "chat.completion",
    model: "fake",
    choices: [{ index: 0, message: { role: "assistant", content: JSON.stringify(content) }, finish_reason: "stop" }],
    usage: { prompt_tokens: 10, completion_tokens: 10, total_tokens: 20 },
  });
}

/** A free TCP port, and waiting for a child server on it to answer `/v1/health` (10 s unless told). */
export { freePort } from "../src/lib/ports";
export { untilHealthy };

/** The real server as a child process (`src/main.ts serve` with `env`), resolved once `/v1/health` answers on `port`. */
export async function spawnServer(port: number, env: Record<string, string>, stdout: "ignore" | "pipe" = "ignore") {
  // stderr goes to a file (a pipe nobody reads could fill and stall the server), shown if the server never answers.
  const stderrFile = path.join(tempDir("assay-server-stderr-"), "stderr");
  const child = Bun.spawn([process.execPath, "src/main.ts", "serve"], {
    cwd: path.resolve(import.meta.dir, ".."),
    env: { ...process.env, ASSAY_PORT: String(port), ...env },
    stdout,
    stderr: Bun.file(stderrFile),
  });
  if (await untilHealthy(port, child)) return child;
  child.kill("SIGKILL");
  await child.exited;
  const said = await Bun.file(stderrFile)
    .text()
    .catch(() => "");
  throw new Error(`the server on port ${port} did not become healthy (exit ${child.exitCode}); its stderr:\n${said.slice(-4000)}`);
}
