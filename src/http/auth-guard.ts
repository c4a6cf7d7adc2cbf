// The auth guard every protected route uses: bearer → API key | session | OIDC JWT → workspace, scope check, rate limit.
import { Elysia } from "elysia";
import type { Context } from "../context";
import { oidcUser, sessionUser, type UserRow } from "../modules/auth/service";
import { rateLimit, type Scope } from "../modules/keys/service";
import { ApiError } from "./errors";

export type Auth =
  | { kind: "key"; workspaceId: string; userId: string; keyId: string; mode: "live" | "test"; scopes: ReadonlySet<string> }
  | { kind: "session"; workspaceId: string; userId: string; role: UserRow["role"]; token: string; mode: "live" };

/** What a route needs: a scope (keys must carry it; sessions have them all), any credential, a session, or an admin session. */
export type AuthNeed = Scope | "any" | "session" | "admin";

const unauthenticated = () => new ApiError(401, "unauthenticated", "Missing, invalid, expired or revoked credentials");

export const SECURITY_SCHEMES = {
  apiKey: { type: "http", scheme: "bearer", bearerFormat: "svc_live_… or svc_test_…", description: "API key (POST /v1/keys)" },
  session: { type: "http", scheme: "bearer", bearerFormat: "sess_… or an OIDC JWT", description: "User session (POST /v1/auth/login)" },
} as const;

function bearer(header: string | undefined): string | null {
  if (!header) return null;
  const space = header.indexOf(" ");
  if (space === -1 || header.slice(0, space).toLowerCase() !== "bearer") return null;
  const token = header.slice(space + 1).trim();
  return token || null;
}

function fromUser(user: UserRow, token: string): Auth {
  return { kind: "session", workspaceId: user.workspaceId, userId: user.id, role: user.role, token, mode: "live" };
}

async function authenticateAsync(ctx: Context, token: string, need: AuthNeed): Promise<Auth> {
  const claims = ctx.runtime.oidc ? await ctx.runtime.oidc.verify(token) : null;
  if (!claims) throw unauthenticated();
  const user = await oidcUser(ctx.db, ctx.clock, ctx.config, claims);
  return checkSession(fromUser(user, token) as Auth & { kind: "session" }, need);
}

function checkSession(auth: Auth & { kind: "session" }, need: AuthNeed): Auth {
  if (need === "admin" && auth.role !== "admin") throw new ApiError(403, "forbidden", "This endpoint is for administrators");
  return auth;
}

/** Returns the caller or throws; synchronous for keys and sessions (the hot path), async only for OIDC JWTs. */
export function authenticate(ctx: Context, header: string | undefined, need: AuthNeed, headers: Record<string, unknown>): Auth | Promise<Auth> {
  const token = bearer(header);
  if (!token) throw unauthenticated();
  const now = ctx.clock.now();
  if (token.startsWith("svc_")) {
    const key = ctx.runtime.keys.get(token, now);
    if (!key) throw unauthenticated();
    if (need === "session" || need === "admin") {
      throw new ApiError(401, "session_required", "This endpoint needs a user session (POST /v1/auth/login), not an API key");
    }
    const rl = rateLimit(key, ctx.config.defaultRpm, now);
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
    if (need !== "any" && !key.scopes.has(need)) {
      throw new ApiError(403, "insufficient_scope", `This API key lacks the scope ${need}`);
    }
    ctx.runtime.keys.touch(key, now);
    return { kind: "key", workspaceId: key.workspaceId, userId: key.userId, keyId: key.id, mode: key.mode, scopes: key.scopes };
  }
  if (token.startsWith("sess_")) {
    const user = sessionUser(ctx.db, ctx.clock, token);
    if (!user) throw unauthenticated();
    return checkSession(fromUser(user, token) as Auth & { kind: "session" }, need);
  }
  if (ctx.runtime.oidc && token.split(".").length === 3) return authenticateAsync(ctx, token, need);
  throw unauthenticated();
}

// transform → resolve hand-over, keyed by the request. Hooks take destructured arguments: Elysia reads which context
// fields a hook uses and parses only those (a hook taking the whole context makes it parse everything, every time).
const callers = new WeakMap<Request, Auth>();

/** `{ auth: "runs:read" }` on a route resolves `auth` (the caller) and documents the route's security in OpenAPI. */
export const authGuard = (ctx: Context) =>
  new Elysia({ name: "auth-guard" }).macro({
    auth: (need: AuthNeed) => ({
      detail: {
        security: need === "session" || need === "admin" ? [{ session: [] }] : [{ apiKey: [] }, { session: [] }],
        ...(need !== "any" && need !== "session" && need !== "admin" ? { "x-required-scope": need } : {}),
      } as Record<string, unknown>,
      // Authentication runs in `transform`, before the body and query are validated: a caller without valid
      // credentials or scope learns nothing about the request's shape. `resolve` hands the result to the handler.
      // Arrow functions: Elysia reads a hook's source to decide what to parse and whether to await (transform is
      // async for OIDC), and a method shorthand is not recognised once minified into the binary.
      transform: async ({ request, headers, set }: { request: Request; headers: Record<string, string | undefined>; set: { headers: unknown } }) => {
        callers.set(request, await authenticate(ctx, headers.authorization, need, set.headers as Record<string, unknown>));
      },
      resolve: ({ request }: { request: Request }) => ({ auth: callers.get(request) as Auth }),
    }),
  });
