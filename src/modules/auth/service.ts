// Users, workspaces and login sessions; OIDC tokens from an external identity provider.
import { and, eq, gt, isNull } from "drizzle-orm";
import type { JWTVerifyGetKey } from "jose";
import type { Config } from "../../config";
import { type Db, dialectOf, tx } from "../../db/client";
import { sessions, users, workspaces } from "../../db/schema";
import { type Auth, type Authenticate, type AuthNeed, type Role, unauthenticated } from "../../http/caller";
import { ApiError } from "../../http/errors";
import type { Clock } from "../../lib/clock";
import { base62, newId, sha256Hex } from "../../lib/ids";
import type { Logger } from "../../lib/log";
import { type CachedKey, type KeyCache, type RateDecision, type RateWindow, rateLimit, SharedRateWindows } from "../keys/service";
import { grantCredits } from "../usage/service";
import type { LoginThrottle } from "./throttle";

const SESSION_TTL_MS = 24 * 3600 * 1000;
export type UserRow = typeof users.$inferSelect;

const EMAIL = /^[^\s@]+@[^\s@]+$/;

function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

/** Creates a user with a workspace of its own, credited with ASSAY_INITIAL_CREDITS. In its own transaction (a savepoint when `db` is a transaction's handle). */
export async function createUser(
  db: Db,
  clock: Clock,
  config: Pick<Config, "initialCredits">,
  input: { email: string; password?: string | null; role?: Role; oidcSub?: string | null },
): Promise<UserRow> {
  const email = normalizeEmail(input.email);
  if (!EMAIL.test(email)) throw new ApiError(400, "validation_error", "email is not a valid address", "email");
  if (input.password != null && input.password.length < 8) {
    throw new ApiError(400, "validation_error", "password must be at least 8 characters", "password");
  }
  const passwordHash = input.password != null ? await Bun.password.hash(input.password, { algorithm: "argon2id" }) : null;
  return tx(db, async (t) => {
    if ((await t.select({ id: users.id }).from(users).where(eq(users.email, email)).limit(1)).length > 0) {
      throw new ApiError(409, "conflict", "a user with this email already exists", "email");
    }
    const now = clock.now();
    const workspaceId = newId("ws");
    await t.insert(workspaces).values({ id: workspaceId, name: email, createdAt: now });
    const row: UserRow = {
      id: newId("usr"),
      workspaceId,
      email,
      passwordHash,
      role: input.role ?? "member",
      oidcSub: input.oidcSub ?? null,
      createdAt: now,
    };
    await t.insert(users).values(row);
    if (config.initialCredits > 0) await grantCredits(t, clock, workspaceId, config.initialCredits, "regular", "grant", "initial credits");
    return row;
  });
}

export async function findUserByEmail(db: Db, email: string): Promise<UserRow | undefined> {
  const [user] = await db
    .select()
    .from(users)
    .where(eq(users.email, normalizeEmail(email)))
    .limit(1);
  return user;
}

/** True once any user exists (the first-run message is printed until then). */
export async function hasUsers(db: Db): Promise<boolean> {
  return (await db.select({ id: users.id }).from(users).limit(1)).length > 0;
}

/** ASSAY_ADMIN_EMAIL/PASSWORD: create that admin at start if absent (an existing user is left as it is). */
export async function ensureAdmin(db: Db, clock: Clock, config: Config): Promise<void> {
  if (!config.adminEmail || !config.adminPassword) return;
  if (await findUserByEmail(db, config.adminEmail)) return;
  await createUser(db, clock, config, { email: config.adminEmail, password: config.adminPassword, role: "admin" });
}

// A fixed argon2id hash to verify against when the email is unknown, so both failures take the same time.
let dummyHash: Promise<string> | null = null;

/** Email + password → a new session. `throttle` counts the attempt before the (slow) password check. */
export async function login(db: Db, clock: Clock, throttle: LoginThrottle, input: { email: string; password: string; address: string }) {
  const key = normalizeEmail(input.email);
  const attempt = throttle.begin(key, input.address, clock.now());
  const user = await findUserByEmail(db, input.email);
  dummyHash ??= Bun.password.hash(base62(16), { algorithm: "argon2id" });
  const ok = await Bun.password.verify(input.password, user?.passwordHash ?? (await dummyHash));
  if (!user?.passwordHash || !ok) throw new ApiError(401, "invalid_credentials", "Email or password is incorrect");
  throttle.succeeded(attempt);
  return startSession(db, clock, user);
}

/** A new session for a user whose credentials were just checked (a login, or the first-run setup). */
export async function startSession(db: Db, clock: Clock, user: UserRow) {
  const token = `sess_${base62(40)}`;
  const now = clock.now();
  const expiresAt = now + SESSION_TTL_MS;
  await tx(db, (t) => t.insert(sessions).values({ tokenHash: sha256Hex(token), userId: user.id, expiresAt, createdAt: now }));
  return { token, user, expiresAt };
}

async function sessionUser(db: Db, clock: Clock, token: string): Promise<UserRow | undefined> {
  const [row] = await db
    .select({ user: users })
    .from(sessions)
    .innerJoin(users, eq(users.id, sessions.userId))
    .where(and(eq(sessions.tokenHash, sha256Hex(token)), isNull(sessions.revokedAt), gt(sessions.expiresAt, clock.now())))
    .limit(1);
  return row?.user;
}

export async function revokeSession(db: Db, clock: Clock, token: string): Promise<void> {
  await tx(db, (t) =>
    t
      .update(sessions)
      .set({ revokedAt: clock.now() })
      .where(eq(sessions.tokenHash, sha256Hex(token))),
  );
}

export function toUserJson(user: UserRow) {
  return { id: user.id, email: user.email, role: user.role };
}

/** Verifies IdP-issued JWTs against the issuer's JWKS (iss, aud, exp) and maps `sub` to a user, created on first use. */
export class OidcVerifier {
  private jwks: JWTVerifyGetKey | null = null;
  /** After a failed discovery, requests answer 401 at once for a while instead of each waiting on the issuer. */
  private discoveryFailedUntil = 0;

  constructor(
    private readonly oidc: NonNullable<Config["oidc"]>,
    private readonly log: Logger,
    private readonly fetchImpl: typeof fetch = fetch,
  ) {}

  private async keySet(): Promise<JWTVerifyGetKey> {
    if (this.jwks) return this.jwks;
    let jwksUrl = this.oidc.jwksUrl;
    if (!jwksUrl) {
      if (Date.now() < this.discoveryFailedUntil) throw new Error("OIDC discovery failed recently");
      try {
        const res = await this.fetchImpl(`${this.oidc.issuer.replace(/\/+$/, "")}/.well-known/openid-configuration`, {
          signal: AbortSignal.timeout(5_000),
        });
        if (!res.ok) throw new Error(`OIDC discovery answered ${res.status}`);
        jwksUrl = String(((await res.json()) as { jwks_uri?: string }).jwks_uri ?? "");
      } catch (err) {
        this.discoveryFailedUntil = Date.now() + 30_000;
        this.log.error({ err, issuer: this.oidc.issuer }, "OIDC discovery failed");
        throw err;
      }
    }
    // jose is loaded only where OIDC is configured: a server without it never needs it in memory.
    const { createRemoteJWKSet } = await import("jose");
    this.jwks = createRemoteJWKSet(new URL(jwksUrl), { timeoutDuration: 5_000, cacheMaxAge: 10 * 60_000, cooldownDuration: 30_000 });
    return this.jwks;
  }

  async verify(token: string): Promise<OidcClaims | null> {
    try {
      const keySet = await this.keySet();
      const { jwtVerify } = await import("jose");
      const { payload } = await jwtVerify(token, keySet, {
        issuer: this.oidc.issuer,
        audience: this.oidc.audience ?? undefined,
        requiredClaims: ["sub", "exp"],
      });
      return {
        sub: String(payload.sub),
        email: typeof payload.email === "string" ? payload.email : null,
        emailVerified: payload.email_verified === true,
      };
    } catch {
      return null;
    }
  }
}

interface OidcClaims {
  sub: string;
  email: string | null;
  /** The IdP's `email_verified`: only then does the email say who the user is. */
  emailVerified: boolean;
}

/**
 * The user of an IdP subject, created on first use. A verified email links an existing local account that has no
 * subject yet; an unverified one is never trusted (anyone may type any address at some IdPs), so the user gets a
 * placeholder address instead.
 */
async function oidcUser(db: Db, clock: Clock, config: Config, claims: OidcClaims): Promise<UserRow> {
  const bySub = async () => (await db.select().from(users).where(eq(users.oidcSub, claims.sub)).limit(1))[0];
  const existing = await bySub();
  if (existing) return existing;
  const verifiedEmail = claims.email && claims.emailVerified ? claims.email : null;
  const local = verifiedEmail ? await findUserByEmail(db, verifiedEmail) : undefined;
  if (local && local.oidcSub === null) {
    await tx(db, (t) =>
      t
        .update(users)
        .set({ oidcSub: claims.sub })
        .where(and(eq(users.id, local.id), isNull(users.oidcSub))),
    );
    const linked = await bySub();
    if (linked) return linked;
  }
  const email = verifiedEmail && !local ? verifiedEmail : `${sha256Hex(claims.sub).slice(0, 16)}@oidc.invalid`;
  try {
    return await createUser(db, clock, config, { email, oidcSub: claims.sub });
  } catch (err) {
    // Two first requests at once: the other one created the user.
    const again = await bySub();
    if (again) return again;
    throw err;
  }
}

interface AuthenticatorDeps {
  db: Db;
  clock: Clock;
  config: Config;
  keys: KeyCache;
  oidc: OidcVerifier | null;
}

function sessionCaller(user: UserRow, token: string, need: AuthNeed): Auth {
  if (need === "admin" && user.role !== "admin") throw new ApiError(403, "forbidden", "This endpoint is for administrators");
  return { kind: "session", workspaceId: user.workspaceId, userId: user.id, role: user.role, token, mode: "live" };
}

/** A rate-limit decision applied: rate-limit headers on the response, or 429 with Retry-After. */
function applyLimit(rl: RateDecision, headers: Record<string, unknown>): void {
  const rlHeaders = {
    "x-ratelimit-limit": String(rl.limit),
    "x-ratelimit-remaining": String(rl.remaining),
    "x-ratelimit-reset": String(rl.reset),
  };
  if (!rl.allowed) {
    throw new ApiError(429, "rate_limited", `Rate limit of ${rl.limit} requests per minute exceeded`, undefined, {
      ...rlHeaders,
      "retry-after": String(rl.retryAfter),
    });
  }
  Object.assign(headers, rlHeaders);
}

/** Sessions (and OIDC tokens) tracked for rate limiting; the least recently seen are dropped past this. */
const MAX_SESSION_WINDOWS = 100_000;

/** The authenticate function the context hands the HTTP guard: API keys (cached), sessions, OIDC JWTs; all rate-limited. */
export function authenticator({ db, clock, config, keys, oidc }: AuthenticatorDeps): Authenticate {
  // Processes sharing a PostgreSQL database count each window together in it; one process on SQLite, in memory.
  const shared = dialectOf(db) === "postgres" ? new SharedRateWindows(db) : null;
  /** Counts a request in `id`'s window (throws 429 past the limit); a Promise only when it must ask the database. */
  const limitRate = (id: string, window: RateWindow, now: number, headers: Record<string, unknown>): void | Promise<void> => {
    if (!shared) return applyLimit(rateLimit(window, config.defaultRpm, now), headers);
    const rl = shared.take(id, window.rateLimitRpm ?? config.defaultRpm, now);
    return rl instanceof Promise ? rl.then((decided) => applyLimit(decided, headers)) : applyLimit(rl, headers);
  };
  // A session gets ASSAY_DEFAULT_RPM like a key without its own limit; its window is kept by token hash.
  const sessionWindows = new Map<string, RateWindow>();
  const limitSession = (token: string, now: number, headers: Record<string, unknown>) => {
    const id = sha256Hex(token);
    const window = sessionWindows.get(id) ?? { rateLimitRpm: null, windowStart: 0, windowCount: 0 };
    sessionWindows.delete(id);
    sessionWindows.set(id, window);
    if (sessionWindows.size > MAX_SESSION_WINDOWS) sessionWindows.delete(sessionWindows.keys().next().value as string);
    return limitRate(`session:${id}`, window, now, headers);
  };
  const viaOidc = async (verifier: OidcVerifier, token: string, need: AuthNeed, headers: Record<string, unknown>): Promise<Auth> => {
    const claims = await verifier.verify(token);
    if (!claims) throw unauthenticated();
    await limitSession(token, clock.now(), headers);
    return sessionCaller(await oidcUser(db, clock, config, claims), token, need);
  };
  const keyCaller = (key: CachedKey, need: AuthNeed, now: number): Auth => {
    if (need !== "any" && !key.scopes.has(need)) {
      throw new ApiError(403, "insufficient_scope", `This API key lacks the scope ${need}`);
    }
    keys.touch(key, now);
    return { kind: "key", workspaceId: key.workspaceId, userId: key.userId, keyId: key.id, mode: key.mode, scopes: key.scopes };
  };
  const viaKey = (key: CachedKey | null, need: AuthNeed, now: number, headers: Record<string, unknown>): Auth | Promise<Auth> => {
    if (!key) throw unauthenticated();
    if (need === "session" || need === "admin") {
      throw new ApiError(401, "session_required", "This endpoint needs a user session (POST /v1/auth/login), not an API key");
    }
    const limited = limitRate(`key:${key.id}`, key, now, headers);
    return limited ? limited.then(() => keyCaller(key, need, now)) : keyCaller(key, need, now);
  };
  const viaSession = async (token: string, need: AuthNeed, now: number, headers: Record<string, unknown>): Promise<Auth> => {
    const user = await sessionUser(db, clock, token);
    if (!user) throw unauthenticated();
    await limitSession(token, now, headers);
    return sessionCaller(user, token, need);
  };
  return (token, need, headers) => {
    const now = clock.now();
    if (token.startsWith("svc_")) {
      // A key in the cache answers synchronously (the hot path); one not cached (or stale) is read from the database.
      const key = keys.get(token, now);
      return key instanceof Promise ? key.then((k) => viaKey(k, need, now, headers)) : viaKey(key, need, now, headers);
    }
    if (token.startsWith("sess_")) return viaSession(token, need, now, headers);
    if (oidc && token.split(".").length === 3) return viaOidc(oidc, token, need, headers);
    throw unauthenticated();
  };
}
