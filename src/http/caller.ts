// Who is calling: the caller a route receives, what a route may need, and the authenticate function the context hands
// the guard. The auth module provides that function; http/ imports no module.
import { ApiError } from "./errors";

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
type Scope = (typeof SCOPES)[number];

export type Role = "admin" | "member";

export type Auth =
  | { kind: "key"; workspaceId: string; userId: string; keyId: string; mode: "live" | "test"; scopes: ReadonlySet<string> }
  | { kind: "session"; workspaceId: string; userId: string; role: Role; token: string; mode: "live" };

/** What a route needs: a scope (keys must carry it; sessions have them all), any credential, a session, or an admin session. */
export type AuthNeed = Scope | "any" | "session" | "admin";

/**
 * Bearer token → the caller, or throws ApiError (401, 403, 429). Synchronous for an API key found in the cache (the
 * hot path); a Promise when the database is read (a key not cached, a session) and for OIDC JWTs: callers await it.
 * Rate-limit headers for the response are added to `headers`.
 */
export type Authenticate = (token: string, need: AuthNeed, headers: Record<string, unknown>) => Auth | Promise<Auth>;

export const unauthenticated = () => new ApiError(401, "unauthenticated", "Missing, invalid, expired or revoked credentials");
