// API keys: creation (token shown once), listing, revocation, and the cached lookup the auth guard runs on every request.
import { and, desc, eq, gt, isNull, lt, or, sql } from "drizzle-orm";
import { type Db, prepared, rows, tx } from "../../db/client";
import { apiKeys, rateWindows } from "../../db/schema";
import { SCOPES } from "../../http/caller";
import { ApiError } from "../../http/errors";
import { checkName } from "../../http/names";
import type { Clock } from "../../lib/clock";
import { base62, newId, sha256Hex } from "../../lib/ids";
import type { Logger } from "../../lib/log";
import { iso, isoOrNull } from "../../lib/time";

export type ApiKeyRow = typeof apiKeys.$inferSelect;

export function toApiKeySummary(row: ApiKeyRow) {
  return {
    public_id: row.id,
    name: row.name,
    mode: row.mode,
    key_prefix: row.keyPrefix,
    last4: row.last4,
    scopes: row.scopes,
    status: row.status,
    rate_limit_rpm: row.rateLimitRpm,
    expires_at: isoOrNull(row.expiresAt),
    last_used_at: isoOrNull(row.lastUsedAt),
    created_at: iso(row.createdAt),
    revoked_at: isoOrNull(row.revokedAt),
  };
}

export interface CreateKeyInput {
  workspaceId: string;
  userId: string;
  name: string;
  mode?: "live" | "test";
  scopes?: string[];
  rateLimitRpm?: number | null;
  expiresAt?: string | null;
}

/** Active (unexpired) API keys a workspace may hold at once: enough for every service, bounded for the key cache. */
const MAX_ACTIVE_KEYS = 100;

export async function createKey(db: Db, clock: Clock, input: CreateKeyInput) {
  const name = checkName(input.name, 100);
  const scopes = input.scopes ?? [...SCOPES];
  scopes.forEach((scope, i) => {
    if (!(SCOPES as readonly string[]).includes(scope)) {
      throw new ApiError(400, "validation_error", `unknown scope "${scope}"; known scopes: ${SCOPES.join(", ")}`, `scopes.${i}`);
    }
  });
  const now = clock.now();
  let expiresAt: number | null = null;
  if (input.expiresAt != null) {
    expiresAt = Date.parse(input.expiresAt);
    if (Number.isNaN(expiresAt)) throw new ApiError(400, "validation_error", "expires_at is not a date-time", "expires_at");
    if (expiresAt <= now) throw new ApiError(400, "validation_error", "expires_at must be in the future", "expires_at");
  }
  const mode = input.mode ?? "live";
  const token = `svc_${mode}_${base62(32)}`;
  const row: ApiKeyRow = {
    id: newId("key"),
    workspaceId: input.workspaceId,
    userId: input.userId,
    name,
    mode,
    keyPrefix: token.slice(0, 12),
    last4: token.slice(-4),
    tokenHash: sha256Hex(token),
    scopes: [...new Set(scopes)],
    status: "active",
    rateLimitRpm: input.rateLimitRpm ?? null,
    expiresAt,
    lastUsedAt: null,
    createdAt: now,
    revokedAt: null,
  };
  await tx(db, async (t) => {
    // The count and the insert in one transaction: two creations at once cannot both take the last place.
    const [active] = await t
      .select({ n: sql<number>`CAST(count(*) AS INTEGER)` })
      .from(apiKeys)
      .where(
        and(eq(apiKeys.workspaceId, input.workspaceId), eq(apiKeys.status, "active"), or(isNull(apiKeys.expiresAt), gt(apiKeys.expiresAt, now))),
      );
    if (Number(active?.n ?? 0) >= MAX_ACTIVE_KEYS) {
      throw new ApiError(
        400,
        "validation_error",
        `A workspace can have at most ${MAX_ACTIVE_KEYS} active API keys; revoke one first (DELETE /v1/keys/<id>)`,
      );
    }
    await t.insert(apiKeys).values(row);
  });
  return {
    public_id: row.id,
    token,
    name: row.name,
    mode: row.mode,
    scopes: row.scopes,
    last4: row.last4,
    created_at: iso(now),
    warning: "Store this key now: it is shown only once and cannot be read again.",
    // Beyond the spec's SecretApiKey, so a client need not list keys to see what it just set.
    key_prefix: row.keyPrefix,
    rate_limit_rpm: row.rateLimitRpm,
    expires_at: isoOrNull(expiresAt),
  };
}

export async function listKeys(db: Db, workspaceId: string): Promise<ApiKeyRow[]> {
  return await db.select().from(apiKeys).where(eq(apiKeys.workspaceId, workspaceId)).orderBy(desc(apiKeys.createdAt), desc(apiKeys.id));
}

/** Revokes a key; `forget` drops it from the authenticator's cache, so it stops working at once. */
export async function revokeKey(db: Db, clock: Clock, forget: (tokenHash: string) => void, workspaceId: string, keyId: string): Promise<ApiKeyRow> {
  const revoked = await tx(db, async (t) => {
    const [row] = await t
      .select()
      .from(apiKeys)
      .where(and(eq(apiKeys.id, keyId), eq(apiKeys.workspaceId, workspaceId)))
      .limit(1);
    if (!row) throw new ApiError(404, "not_found", `No API key ${keyId}`);
    if (row.status === "revoked") return row;
    const revokedAt = clock.now();
    await t.update(apiKeys).set({ status: "revoked", revokedAt }).where(eq(apiKeys.id, keyId));
    return { ...row, status: "revoked" as const, revokedAt };
  });
  // After the commit: a lookup that starts now reads the revoked row.
  forget(revoked.tokenHash);
  return revoked;
}

/** What the guard needs about a key, kept in memory so a request costs one hash and one Map lookup. */
export interface CachedKey {
  id: string;
  workspaceId: string;
  userId: string;
  mode: "live" | "test";
  scopes: ReadonlySet<string>;
  rateLimitRpm: number | null;
  expiresAt: number | null;
  lastUsedWrittenAt: number;
  // Fixed-window rate limiter state: the minute window's start and requests counted in it.
  windowStart: number;
  windowCount: number;
}

/** How long a cached key is trusted: a key revoked or changed by another process sharing the database stops working within this. */
export const KEY_CACHE_TTL_MS = 5_000;

/**
 * Token hash → key. Revocation forgets the entry at once; expiry is checked on every hit; entries are re-read
 * from the database after `ttlMs` so a change made by another process (CLI) is seen within that time.
 */
export class KeyCache {
  private readonly entries = new Map<string, { key: CachedKey; loadedAt: number }>();
  private readonly byId = new Map<string, string>();
  /** Database reads in flight, per token hash: simultaneous misses of one key share one read (and one rate window). */
  private readonly loading = new Map<string, Promise<CachedKey | null>>();

  constructor(
    private readonly db: Db,
    private readonly log: Logger,
    private readonly ttlMs = KEY_CACHE_TTL_MS,
  ) {}

  /**
   * The active, unexpired key for a token, or null. A fresh cache hit answers synchronously (the hot path: one hash
   * and one Map lookup, no database); a miss or a stale entry answers a Promise once the database has been read.
   */
  get(token: string, now: number): CachedKey | null | Promise<CachedKey | null> {
    const hash = sha256Hex(token);
    const hit = this.entries.get(hash);
    if (hit && now - hit.loadedAt < this.ttlMs) return this.unexpired(hash, hit.key, now);
    let load = this.loading.get(hash);
    if (!load) {
      const started: Promise<CachedKey | null> = this.read(hash)
        // Forgotten (revoked) while the row was being read: the row may predate the revocation, so it is not trusted.
        .then((row) => (this.loading.get(hash) === started ? this.remember(hash, row, now) : null))
        .finally(() => {
          if (this.loading.get(hash) === started) this.loading.delete(hash);
        });
      this.loading.set(hash, started);
      load = started;
    }
    return load.then((key) => key && this.unexpired(hash, key, now));
  }

  private async read(hash: string) {
    const [row] = await prepared(
      this.db,
      "api-key-by-token-hash",
      () =>
        this.db
          .select({
            id: apiKeys.id,
            workspaceId: apiKeys.workspaceId,
            userId: apiKeys.userId,
            mode: apiKeys.mode,
            scopes: apiKeys.scopes,
            status: apiKeys.status,
            rateLimitRpm: apiKeys.rateLimitRpm,
            expiresAt: apiKeys.expiresAt,
            lastUsedAt: apiKeys.lastUsedAt,
          })
          .from(apiKeys)
          .where(eq(apiKeys.tokenHash, sql.placeholder("hash"))),
      { hash },
    );
    return row;
  }

  /** Caches a key read from the database (keeping the rate window of the entry it replaces); null when not active. */
  private remember(hash: string, row: Awaited<ReturnType<KeyCache["read"]>>, now: number): CachedKey | null {
    if (row?.status !== "active") {
      this.forget(hash);
      return null;
    }
    const previous = this.entries.get(hash)?.key;
    const key: CachedKey = {
      id: row.id,
      workspaceId: row.workspaceId,
      userId: row.userId,
      mode: row.mode,
      scopes: new Set(row.scopes),
      rateLimitRpm: row.rateLimitRpm,
      expiresAt: row.expiresAt,
      lastUsedWrittenAt: previous?.lastUsedWrittenAt ?? row.lastUsedAt ?? 0,
      windowStart: previous?.windowStart ?? 0,
      windowCount: previous?.windowCount ?? 0,
    };
    this.entries.set(hash, { key, loadedAt: now });
    this.byId.set(key.id, hash);
    return key;
  }

  private unexpired(hash: string, key: CachedKey, now: number): CachedKey | null {
    if (key.expiresAt !== null && key.expiresAt <= now) {
      this.forget(hash);
      return null;
    }
    return key;
  }

  forget(hash: string): void {
    const hit = this.entries.get(hash);
    if (hit) this.byId.delete(hit.key.id);
    this.entries.delete(hash);
    this.loading.delete(hash);
  }

  /** last_used_at: written at most once a minute per key, after the response (never on the request's path). */
  touch(key: CachedKey, now: number): void {
    if (now - key.lastUsedWrittenAt < 60_000) return;
    key.lastUsedWrittenAt = now;
    setTimeout(() => {
      tx(this.db, (t) => t.update(apiKeys).set({ lastUsedAt: now }).where(eq(apiKeys.id, key.id))).catch((err: unknown) => {
        this.log.error({ err, key_id: key.id }, "last_used_at update failed");
      });
    }, 0);
  }
}

/** A fixed one-minute rate-limit window: an API key's, or a session's. */
export type RateWindow = Pick<CachedKey, "rateLimitRpm" | "windowStart" | "windowCount">;

/** What a rate-limit check answers: whether the request may go on, and the headers to send either way. */
export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  reset: number;
  retryAfter: number;
}

function decide(limit: number, count: number, windowStart: number, now: number): RateDecision {
  const reset = Math.ceil((windowStart + 60_000) / 1000);
  return { allowed: count <= limit, limit, remaining: Math.max(0, limit - count), reset, retryAfter: Math.max(1, reset - Math.floor(now / 1000)) };
}

/**
 * Fixed one-minute window per key or session, counted in this process's memory: exact while one process serves the
 * database (SQLite). Returns the headers to send and whether the request is allowed.
 */
export function rateLimit(key: RateWindow, defaultRpm: number, now: number): RateDecision {
  const limit = key.rateLimitRpm ?? defaultRpm;
  const windowStart = now - (now % 60_000);
  if (key.windowStart !== windowStart) {
    key.windowStart = windowStart;
    key.windowCount = 0;
  }
  const allowed = key.windowCount < limit;
  if (allowed) key.windowCount++;
  return { ...decide(limit, key.windowCount, windowStart, now), allowed };
}

/** A share of a window's limit this process reserved in the database and spends locally. */
interface Reserved {
  windowStart: number;
  tokens: number;
  /** The window's count in the database after our last reservation (every process's reservations so far). */
  counted: number;
  /** The database said no: the window is at its limit until the minute ends. */
  full: boolean;
  pending: Promise<void> | null;
}

/**
 * The same one-minute windows for processes that share a database (PostgreSQL): each process reserves a share of a
 * key's limit at a time (a twentieth, at least 1) with one atomic upsert that never takes the window past the limit,
 * and spends it in memory. So N processes together never allow more than the limit, and a request costs a database
 * write only once per share. What a process reserved and did not spend before the minute ends is lost to the others
 * (at most a twentieth of the limit per process), so near the limit a key may be refused a little early, never late.
 */
export class SharedRateWindows {
  private readonly held = new Map<string, Reserved>();

  constructor(private readonly db: Db) {}

  /** Counts one request of `id` (an API key or a session); a Promise only when a new share must be reserved. */
  take(id: string, limit: number, now: number): RateDecision | Promise<RateDecision> {
    const windowStart = now - (now % 60_000);
    let entry = this.held.get(id);
    if (!entry || entry.windowStart !== windowStart) {
      entry = { windowStart, tokens: 0, counted: 0, full: false, pending: null };
      this.held.set(id, entry);
      if (this.held.size > 100_000) this.held.delete(this.held.keys().next().value as string);
    }
    if (entry.tokens > 0) {
      entry.tokens--;
      return decide(limit, entry.counted - entry.tokens, windowStart, now);
    }
    if (entry.full) return { ...decide(limit, limit, windowStart, now), allowed: false };
    const current = entry;
    // Requests arriving while a reservation is on its way wait for it, then take from it (or reserve the next share).
    current.pending ??= this.reserve(id, current, limit).finally(() => {
      current.pending = null;
    });
    return current.pending.then(() => this.take(id, limit, now));
  }

  private async reserve(id: string, entry: Reserved, limit: number): Promise<void> {
    const share = Math.max(1, Math.floor(limit / 20));
    // A whole share while it fits under the limit, else a single request's worth, else nothing (the window is full).
    for (const n of share > 1 ? [share, 1] : [1]) {
      const [row] = await rows<{ count: number }>(
        this.db,
        // One statement outside tx(): the row is locked only while it runs. UNLOGGED table: no WAL flush either.
        sql`INSERT INTO rate_windows (id, window_start, count) VALUES (${id}, ${entry.windowStart}, ${n})
            ON CONFLICT (id) DO UPDATE SET
              count = CASE WHEN rate_windows.window_start = ${entry.windowStart} THEN rate_windows.count + ${n} ELSE ${n} END,
              window_start = ${entry.windowStart}
            WHERE rate_windows.window_start <> ${entry.windowStart} OR rate_windows.count + ${n} <= ${limit}
            RETURNING count`,
      );
      if (row) {
        entry.tokens += n;
        entry.counted = Number(row.count);
        return;
      }
    }
    entry.counted = limit;
    entry.full = true;
  }
}

/** Forgets windows that ended long ago (sessions come and go); run by the hourly cleanup. */
export async function purgeRateWindows(db: Db, now: number): Promise<void> {
  await tx(db, (t) => t.delete(rateWindows).where(lt(rateWindows.windowStart, now - 3_600_000)));
}
