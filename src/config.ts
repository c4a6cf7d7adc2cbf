// Environment variables and CLI flags -> one typed, validated Config. A bad value stops the server with one line naming it.
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { isIP } from "node:net";
import path from "node:path";
import { base62 } from "./lib/ids";
import { LOG_LEVELS, type LogLevel, mask } from "./lib/log";

export interface Config {
  host: string;
  port: number;
  publicUrl: string;
  dataDir: string;
  secret: string;
  adminEmail: string | null;
  adminPassword: string | null;
  initialCredits: number;
  defaultRpm: number;
  syncTimeoutMs: number;
  workers: number;
  webhookRetryScheduleMs: number[];
  webhookRetryWindowMs: number;
  webhookTimeoutMs: number;
  /** How long running work may finish after SIGTERM before it is stopped and given back to the queue. */
  shutdownGraceMs: number;
  /** Deliveries in flight at once to one endpoint (a receiver that hangs holds at most this many loops). */
  webhookEndpointConcurrency: number;
  /** CIDRs webhook targets must fall in; null = anything but link-local and metadata addresses. */
  webhookAllowedNetworks: string[] | null;
  llm: {
    baseUrl: string;
    apiKey: string | null;
    model: string | null;
    timeoutMs: number;
    /** ASSAY_LLM_SAMPLES: calls per rubric criterion; the median is kept and disagreement means needs_review. */
    samples: number;
  } | null;
  /** Characters of reference + input text the fulltext policy may send to a model. */
  contextBudgetChars: number;
  /** Default pass threshold (percent of the rubric's maximum) when neither the workflow's prompt nor the rubric states one. */
  passThreshold: number;
  oidc: { issuer: string; audience: string | null; jwksUrl: string | null } | null;
  logLevel: LogLevel;
  /** GET /metrics: off (null), or on with an optional bearer token for scrapers (admins may always read it). */
  metrics: { token: string | null } | null;
  /** Stored files on an S3-compatible store (ASSAY_OBJECT_STORE=s3://…); null = files under <dataDir>/objects. */
  s3: S3Config | null;
  /** ASSAY_DATABASE_URL (postgres://…), or null for SQLite at <dataDir>/assay.db. */
  databaseUrl: string | null;
  /** ASSAY_DATABASE_POOL: PostgreSQL connections this process may open. */
  databasePool: number;
  /**
   * ASSAY_LEASE_MS: how long a claimed run stays with its process without a renewal (renewed every third of it);
   * after a crash another process (or the restart) takes the run over within about two leases.
   */
  leaseMs: number;
}

export interface S3Config {
  bucket: string;
  /** "" or a key prefix ending in "/". */
  prefix: string;
  /** http(s) origin, no trailing slash. */
  endpoint: string;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken: string | null;
  /** https://endpoint/bucket/key rather than https://bucket.endpoint/key. */
  forcePathStyle: boolean;
}

export class ConfigError extends Error {
  override name = "ConfigError";
}

type Source = Record<string, string | undefined>;

/** Every setting, by its environment variable. Each also has a flag: ASSAY_DATA_DIR is --data-dir. */
export const SETTINGS = [
  "ASSAY_HOST",
  "ASSAY_PORT",
  "ASSAY_PUBLIC_URL",
  "ASSAY_DATA_DIR",
  "ASSAY_SECRET",
  "ASSAY_ADMIN_EMAIL",
  "ASSAY_ADMIN_PASSWORD",
  "ASSAY_INITIAL_CREDITS",
  "ASSAY_DEFAULT_RPM",
  "ASSAY_SYNC_TIMEOUT_MS",
  "ASSAY_WORKERS",
  "ASSAY_WEBHOOK_RETRY_SCHEDULE",
  "ASSAY_WEBHOOK_RETRY_WINDOW",
  "ASSAY_WEBHOOK_TIMEOUT_MS",
  "ASSAY_WEBHOOK_ENDPOINT_CONCURRENCY",
  "ASSAY_WEBHOOK_ALLOWED_NETWORKS",
  "ASSAY_LLM_BASE_URL",
  "ASSAY_LLM_API_KEY",
  "ASSAY_LLM_MODEL",
  "ASSAY_LLM_TIMEOUT_MS",
  "ASSAY_LLM_SAMPLES",
  "ASSAY_CONTEXT_BUDGET_CHARS",
  "ASSAY_PASS_THRESHOLD",
  "ASSAY_SHUTDOWN_GRACE_MS",
  "ASSAY_OIDC_ISSUER",
  "ASSAY_OIDC_AUDIENCE",
  "ASSAY_OIDC_JWKS_URL",
  "ASSAY_LOG_LEVEL",
  "ASSAY_METRICS",
  "ASSAY_METRICS_TOKEN",
  "ASSAY_OBJECT_STORE",
  "ASSAY_S3_ENDPOINT",
  "ASSAY_S3_REGION",
  "ASSAY_S3_ACCESS_KEY_ID",
  "ASSAY_S3_SECRET_ACCESS_KEY",
  "ASSAY_S3_FORCE_PATH_STYLE",
  "ASSAY_DATABASE_URL",
  "ASSAY_DATABASE_POOL",
  "ASSAY_LEASE_MS",
] as const;

/** ASSAY_DATA_DIR → data-dir. */
const settingFlag = (name: (typeof SETTINGS)[number]) => name.slice("ASSAY_".length).toLowerCase().replaceAll("_", "-");

/** The settings as node:util parseArgs options (all strings), for every command that reads the configuration. */
export function settingOptions(): Record<string, { type: "string" }> {
  return Object.fromEntries(SETTINGS.map((name) => [settingFlag(name), { type: "string" as const }]));
}

/** Parsed flag values (`{ "data-dir": "x" }`) → settings (`{ ASSAY_DATA_DIR: "x" }`); other flags are ignored. */
export function flagsToEnv(values: Record<string, unknown>): Source {
  const out: Source = {};
  for (const name of SETTINGS) {
    const value = values[settingFlag(name)];
    if (typeof value === "string") out[name] = value;
  }
  return out;
}

const DURATION = /^(\d+)(ms|s|m|h|d)$/;
const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

function parseDuration(name: string, raw: string): number {
  const m = DURATION.exec(raw.trim());
  if (!m) throw new ConfigError(`${name}: "${raw}" is not a duration like 90s, 5m, 2h or 1d`);
  return Number(m[1]) * UNIT_MS[m[2]];
}

/** "10.0.0.0/8, fd00::/8" → ["10.0.0.0/8", "fd00::/8"]; each an IP address with an optional prefix length. */
function cidrs(name: string, raw: string | null): string[] | null {
  if (raw === null) return null;
  const list = raw
    .split(",")
    .map((part) => part.trim())
    .filter(Boolean);
  for (const cidr of list) {
    const [address, prefix, ...rest] = cidr.split("/");
    const family = isIP(address);
    const max = family === 6 ? 128 : 32;
    if (!family || rest.length || (prefix !== undefined && !(/^\d{1,3}$/.test(prefix) && Number(prefix) <= max))) {
      throw new ConfigError(`${name}: "${cidr}" is not an address or network like 10.0.0.0/8 or fd00::/8`);
    }
  }
  return list.length ? list : null;
}

const BUCKET = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;
const PREFIX_SEGMENT = /^[A-Za-z0-9_.-]+$/;

/**
 * ASSAY_OBJECT_STORE and the S3 settings; each ASSAY_S3_* falls back to its standard AWS variable. ASSAY_S3_* set
 * without ASSAY_OBJECT_STORE is refused (it would silently do nothing); AWS_* alone is not (other tools use them).
 */
function s3Config(opt: (name: string) => string | null, url: (name: string, raw: string) => string): S3Config | null {
  const raw = opt("ASSAY_OBJECT_STORE");
  if (raw === null) {
    const stray = ["ASSAY_S3_ENDPOINT", "ASSAY_S3_REGION", "ASSAY_S3_ACCESS_KEY_ID", "ASSAY_S3_SECRET_ACCESS_KEY", "ASSAY_S3_FORCE_PATH_STYLE"].find(
      (name) => opt(name) !== null,
    );
    if (stray) throw new ConfigError(`${stray}: set ASSAY_OBJECT_STORE=s3://bucket/prefix too, or unset it`);
    return null;
  }
  const m = /^s3:\/\/([^/]+)(?:\/(.*))?$/.exec(raw.trim());
  if (!m) throw new ConfigError(`ASSAY_OBJECT_STORE: "${raw}" is not s3://bucket or s3://bucket/prefix`);
  const [, bucket, prefixRaw = ""] = m;
  if (!BUCKET.test(bucket) || bucket.includes("..")) throw new ConfigError(`ASSAY_OBJECT_STORE: "${bucket}" is not a valid bucket name`);
  const segments = prefixRaw.split("/").filter(Boolean);
  if (segments.some((seg) => !PREFIX_SEGMENT.test(seg) || seg === "." || seg === "..")) {
    throw new ConfigError(`ASSAY_OBJECT_STORE: the prefix "${prefixRaw}" may hold only letters, digits, "_", ".", "-" and "/"`);
  }
  const region = opt("ASSAY_S3_REGION") ?? opt("AWS_REGION") ?? opt("AWS_DEFAULT_REGION") ?? "us-east-1";
  if (!/^[a-z0-9-]{1,64}$/.test(region)) throw new ConfigError(`ASSAY_S3_REGION: "${region}" is not a region like us-east-1`);
  const endpointRaw = opt("ASSAY_S3_ENDPOINT") ?? opt("AWS_ENDPOINT_URL_S3") ?? opt("AWS_ENDPOINT_URL");
  const endpoint = endpointRaw === null ? `https://s3.${region}.amazonaws.com` : url("ASSAY_S3_ENDPOINT", endpointRaw);
  if (new URL(endpoint).pathname !== "/") throw new ConfigError(`ASSAY_S3_ENDPOINT: "${endpoint}" must be an origin without a path`);
  const accessKeyId = opt("ASSAY_S3_ACCESS_KEY_ID") ?? opt("AWS_ACCESS_KEY_ID");
  const secretAccessKey = opt("ASSAY_S3_SECRET_ACCESS_KEY") ?? opt("AWS_SECRET_ACCESS_KEY");
  if (accessKeyId === null) throw new ConfigError("ASSAY_S3_ACCESS_KEY_ID: required with ASSAY_OBJECT_STORE (or AWS_ACCESS_KEY_ID)");
  if (secretAccessKey === null) throw new ConfigError("ASSAY_S3_SECRET_ACCESS_KEY: required with ASSAY_OBJECT_STORE (or AWS_SECRET_ACCESS_KEY)");
  const pathStyle = opt("ASSAY_S3_FORCE_PATH_STYLE");
  if (pathStyle !== null && !["0", "1", "true", "false"].includes(pathStyle)) {
    throw new ConfigError(`ASSAY_S3_FORCE_PATH_STYLE: "${pathStyle}" is not 1, 0, true or false`);
  }
  return {
    bucket,
    prefix: segments.length ? `${segments.join("/")}/` : "",
    endpoint,
    region,
    accessKeyId,
    secretAccessKey,
    sessionToken: opt("AWS_SESSION_TOKEN"),
    // A self-hosted store (MinIO, Ceph) is reached by address, where bucket.host names do not resolve: path style
    // unless told otherwise. AWS itself (no endpoint given) gets virtual-hosted style.
    forcePathStyle: pathStyle === null ? endpointRaw !== null : pathStyle === "1" || pathStyle === "true",
  };
}

/** The configuration from the environment and the settings given as flags (parsed, see flagsToEnv); flags win. */
export function loadConfig(env: Source = process.env, flags: Source = {}): Config {
  const src: Source = { ...env, ...flags };
  const str = (name: string, fallback: string) => {
    const v = src[name];
    return v === undefined || v === "" ? fallback : v;
  };
  const opt = (name: string) => {
    const v = src[name];
    return v === undefined || v === "" ? null : v;
  };
  const int = (name: string, fallback: number, min: number, max: number) => {
    const raw = opt(name);
    if (raw === null) return fallback;
    if (!/^\d+$/.test(raw.trim())) throw new ConfigError(`${name}: "${raw}" is not a whole number`);
    const n = Number(raw);
    if (n < min || n > max) throw new ConfigError(`${name}: ${n} is outside ${min}..${max}`);
    return n;
  };
  const url = (name: string, raw: string) => {
    try {
      const u = new URL(raw);
      if (u.protocol !== "http:" && u.protocol !== "https:") throw new Error();
      return raw.replace(/\/+$/, "");
    } catch {
      throw new ConfigError(`${name}: "${raw}" is not an http(s) URL`);
    }
  };

  const port = int("ASSAY_PORT", 8080, 0, 65535);
  const dataDir = path.resolve(str("ASSAY_DATA_DIR", "./data"));
  const adminEmail = opt("ASSAY_ADMIN_EMAIL");
  const adminPassword = opt("ASSAY_ADMIN_PASSWORD");
  if ((adminEmail === null) !== (adminPassword === null)) {
    throw new ConfigError("ASSAY_ADMIN_EMAIL and ASSAY_ADMIN_PASSWORD must be set together");
  }
  if (adminPassword !== null && adminPassword.length < 8) {
    throw new ConfigError("ASSAY_ADMIN_PASSWORD: must be at least 8 characters");
  }
  const initialCreditsRaw = str("ASSAY_INITIAL_CREDITS", "100");
  const initialCredits = Number(initialCreditsRaw);
  if (!Number.isFinite(initialCredits) || initialCredits < 0) {
    throw new ConfigError(`ASSAY_INITIAL_CREDITS: "${initialCreditsRaw}" is not a number ≥ 0`);
  }
  const schedule = str("ASSAY_WEBHOOK_RETRY_SCHEDULE", "1m,5m,30m,2h,6h")
    .split(",")
    .map((part) => parseDuration("ASSAY_WEBHOOK_RETRY_SCHEDULE", part));
  const llmBase = opt("ASSAY_LLM_BASE_URL");
  const jwksUrl = opt("ASSAY_OIDC_JWKS_URL");
  const oidcIssuer = opt("ASSAY_OIDC_ISSUER");
  const logLevel = str("ASSAY_LOG_LEVEL", "info").toLowerCase();
  if (!(LOG_LEVELS as readonly string[]).includes(logLevel)) {
    throw new ConfigError(`ASSAY_LOG_LEVEL: "${logLevel}" is not one of ${LOG_LEVELS.join(", ")}`);
  }
  const metricsRaw = str("ASSAY_METRICS", "0");
  if (metricsRaw !== "0" && metricsRaw !== "1") throw new ConfigError(`ASSAY_METRICS: "${metricsRaw}" is not 0 or 1`);
  const metricsToken = opt("ASSAY_METRICS_TOKEN");
  const databaseUrl = opt("ASSAY_DATABASE_URL");
  if (databaseUrl !== null && !/^postgres(ql)?:\/\/./.test(databaseUrl)) {
    throw new ConfigError("ASSAY_DATABASE_URL: must be a postgres:// URL (leave it unset for SQLite in the data dir)");
  }
  if (metricsToken !== null && metricsToken.length < 16) throw new ConfigError("ASSAY_METRICS_TOKEN: must be at least 16 characters");

  return {
    host: str("ASSAY_HOST", "127.0.0.1"),
    port,
    publicUrl: url("ASSAY_PUBLIC_URL", str("ASSAY_PUBLIC_URL", `http://localhost:${port || 8080}`)),
    dataDir,
    secret: opt("ASSAY_SECRET") ?? "", // filled by ensureDataDir
    adminEmail,
    adminPassword,
    initialCredits,
    defaultRpm: int("ASSAY_DEFAULT_RPM", 600, 1, 1_000_000_000),
    syncTimeoutMs: int("ASSAY_SYNC_TIMEOUT_MS", 60_000, 0, 3_600_000),
    workers: int("ASSAY_WORKERS", 2, 1, 64),
    webhookRetryScheduleMs: schedule,
    webhookRetryWindowMs: parseDuration("ASSAY_WEBHOOK_RETRY_WINDOW", str("ASSAY_WEBHOOK_RETRY_WINDOW", "24h")),
    webhookTimeoutMs: int("ASSAY_WEBHOOK_TIMEOUT_MS", 10_000, 1, 600_000),
    shutdownGraceMs: int("ASSAY_SHUTDOWN_GRACE_MS", 30_000, 0, 3_600_000),
    webhookEndpointConcurrency: int("ASSAY_WEBHOOK_ENDPOINT_CONCURRENCY", 2, 1, 4),
    webhookAllowedNetworks: cidrs("ASSAY_WEBHOOK_ALLOWED_NETWORKS", opt("ASSAY_WEBHOOK_ALLOWED_NETWORKS")),
    llm: llmBase
      ? {
          baseUrl: url("ASSAY_LLM_BASE_URL", llmBase),
          apiKey: opt("ASSAY_LLM_API_KEY"),
          model: opt("ASSAY_LLM_MODEL"),
          timeoutMs: int("ASSAY_LLM_TIMEOUT_MS", 120_000, 1, 3_600_000),
          samples: int("ASSAY_LLM_SAMPLES", 1, 1, 15),
        }
      : null,
    contextBudgetChars: int("ASSAY_CONTEXT_BUDGET_CHARS", 400_000, 1_000, 100_000_000),
    passThreshold: int("ASSAY_PASS_THRESHOLD", 60, 1, 100),
    oidc: oidcIssuer
      ? {
          issuer: oidcIssuer,
          audience: opt("ASSAY_OIDC_AUDIENCE"),
          jwksUrl: jwksUrl ? url("ASSAY_OIDC_JWKS_URL", jwksUrl) : null,
        }
      : null,
    logLevel: logLevel as LogLevel,
    metrics: metricsRaw === "1" ? { token: metricsToken } : null,
    s3: s3Config(opt, url),
    databaseUrl,
    databasePool: int("ASSAY_DATABASE_POOL", 10, 1, 1000),
    leaseMs: int("ASSAY_LEASE_MS", 60_000, 1_000, 3_600_000),
  };
}

/** Creates the data dir and fills `secret` from ASSAY_SECRET or from `<dataDir>/secret`, generated once. */
export function ensureDataDir(config: Config): Config {
  mkdirSync(path.join(config.dataDir, "objects"), { recursive: true });
  if (config.secret) return config;
  const file = path.join(config.dataDir, "secret");
  if (!existsSync(file)) {
    writeFileSync(file, base62(48), { mode: 0o600, flag: "wx" });
    chmodSync(file, 0o600);
  }
  const secret = readFileSync(file, "utf8").trim();
  if (secret.length < 32) throw new ConfigError(`ASSAY_SECRET: ${file} holds a secret shorter than 32 characters`);
  return { ...config, secret };
}

/** The configuration as the startup log line shows it: every setting, secrets only as whether they are set. */
export function describeConfig(config: Config): Record<string, unknown> {
  return {
    ...config,
    secret: mask(config.secret),
    adminPassword: mask(config.adminPassword),
    llm: config.llm && { ...config.llm, apiKey: mask(config.llm.apiKey) },
    metrics: config.metrics && { token: mask(config.metrics.token) },
    s3: config.s3 && { ...config.s3, secretAccessKey: mask(config.s3.secretAccessKey), sessionToken: mask(config.s3.sessionToken) },
    databaseUrl: config.databaseUrl && withoutPassword(config.databaseUrl),
  };
}

/** A connection URL as logs may show it: the password replaced by "***". */
export function withoutPassword(raw: string): string {
  try {
    const u = new URL(raw);
    if (u.password) u.password = "***";
    return u.toString();
  } catch {
    return "(unparseable)";
  }
}
