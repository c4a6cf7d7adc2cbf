// Config: defaults, flags over env, one-line errors naming the variable, the secret generated once.
import { describe, expect, test } from "bun:test";
import { readFileSync, statSync } from "node:fs";
import path from "node:path";
import { ConfigError, ensureDataDir, flagsToEnv, loadConfig, SETTINGS } from "../src/config";
import { tempDir } from "./helpers";

describe("loadConfig", () => {
  test("defaults match CONTRACT.md", () => {
    const c = loadConfig({});
    expect(c).toMatchObject({
      host: "127.0.0.1",
      port: 8080,
      publicUrl: "http://localhost:8080",
      initialCredits: 100,
      defaultRpm: 600,
      syncTimeoutMs: 60000,
      workers: 2,
      webhookTimeoutMs: 10000,
      llm: null,
      oidc: null,
      adminEmail: null,
    });
    expect(c.webhookRetryScheduleMs).toEqual([60_000, 300_000, 1_800_000, 7_200_000, 21_600_000]);
    expect(c.webhookRetryWindowMs).toBe(86_400_000);
    expect(c.dataDir).toBe(path.resolve("./data"));
  });

  test("flags win over the environment", () => {
    const c = loadConfig(
      { ASSAY_PORT: "9000", ASSAY_WORKERS: "4" },
      flagsToEnv({ port: "9100", "public-url": "https://assay.example.org/", other: "x" }),
    );
    expect(c.port).toBe(9100);
    expect(c.workers).toBe(4);
    expect(c.publicUrl).toBe("https://assay.example.org");
  });

  test("LLM and OIDC settings", () => {
    const c = loadConfig({
      ASSAY_LLM_BASE_URL: "http://127.0.0.1:11434/v1",
      ASSAY_LLM_MODEL: "llama3.1",
      ASSAY_OIDC_ISSUER: "https://idp.example.org",
      ASSAY_OIDC_AUDIENCE: "assay",
    });
    expect(c.llm).toEqual({ baseUrl: "http://127.0.0.1:11434/v1", apiKey: null, model: "llama3.1", timeoutMs: 120000, samples: 1 });
    expect(c.oidc).toEqual({ issuer: "https://idp.example.org", audience: "assay", jwksUrl: null });
  });

  for (const [env, name] of [
    [{ ASSAY_PORT: "eighty" }, "ASSAY_PORT"],
    [{ ASSAY_PORT: "70000" }, "ASSAY_PORT"],
    [{ ASSAY_WORKERS: "0" }, "ASSAY_WORKERS"],
    [{ ASSAY_DEFAULT_RPM: "0" }, "ASSAY_DEFAULT_RPM"],
    [{ ASSAY_INITIAL_CREDITS: "lots" }, "ASSAY_INITIAL_CREDITS"],
    [{ ASSAY_WEBHOOK_RETRY_SCHEDULE: "1m,soon" }, "ASSAY_WEBHOOK_RETRY_SCHEDULE"],
    [{ ASSAY_WEBHOOK_RETRY_WINDOW: "forever" }, "ASSAY_WEBHOOK_RETRY_WINDOW"],
    [{ ASSAY_PUBLIC_URL: "ftp://x" }, "ASSAY_PUBLIC_URL"],
    [{ ASSAY_LLM_BASE_URL: "not a url" }, "ASSAY_LLM_BASE_URL"],
    [{ ASSAY_ADMIN_EMAIL: "a@b.c" }, "ASSAY_ADMIN_PASSWORD"],
    [{ ASSAY_SYNC_TIMEOUT_MS: "1.5" }, "ASSAY_SYNC_TIMEOUT_MS"],
  ] as const) {
    test(`a bad ${name} is one line naming it`, () => {
      let err: unknown;
      try {
        loadConfig(env);
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(ConfigError);
      expect((err as Error).message).toContain(name);
      expect((err as Error).message).not.toContain("\n");
    });
  }
});

describe("ensureDataDir", () => {
  test("generates ASSAY_SECRET once, keeps it private, and reuses it", () => {
    const dir = tempDir();
    const a = ensureDataDir(loadConfig({ ASSAY_DATA_DIR: dir }));
    const b = ensureDataDir(loadConfig({ ASSAY_DATA_DIR: dir }));
    expect(a.secret.length).toBeGreaterThanOrEqual(32);
    expect(b.secret).toBe(a.secret);
    expect(readFileSync(path.join(dir, "secret"), "utf8")).toBe(a.secret);
    expect(statSync(path.join(dir, "secret")).mode & 0o077).toBe(0);
    expect(statSync(path.join(dir, "objects")).isDirectory()).toBe(true);
  });

  test("ASSAY_SECRET from the environment wins", () => {
    const c = ensureDataDir(loadConfig({ ASSAY_DATA_DIR: tempDir(), ASSAY_SECRET: "s".repeat(40) }));
    expect(c.secret).toBe("s".repeat(40));
  });
});

test("every setting has its line in docs/configuration.md", () => {
  const doc = readFileSync(path.join(import.meta.dir, "../docs/configuration.md"), "utf8");
  for (const name of SETTINGS) expect(doc).toContain(`\`${name}\``);
});
