// The auth guard every protected route uses: bearer token → the context's authenticate (API key | session | OIDC JWT)
// → the caller, with scope check and rate limit; and the security schemes it documents in OpenAPI.
import { Elysia } from "elysia";
import type { Context } from "../context";
import { type Auth, type AuthNeed, unauthenticated } from "./caller";

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

// transform → resolve hand-over, keyed by the request. Hooks take destructured arguments: Elysia reads which context
// fields a hook uses and parses only those (a hook taking the whole context makes it parse everything, every time).
const callers = new WeakMap<Request, Auth>();

/** The caller of a request the guard authenticated (for the request log), or undefined. */
export const callerOf = (request: Request): Auth | undefined => callers.get(request);

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
      // async: sessions and uncached keys read the database, OIDC fetches the issuer's keys), and a method shorthand
      // is not recognised once minified into the binary.
      transform: async ({ request, headers, set }: { request: Request; headers: Record<string, string | undefined>; set: { headers: unknown } }) => {
        const token = bearer(headers.authorization);
        if (!token) throw unauthenticated();
        callers.set(request, await ctx.runtime.authenticate(token, need, set.headers as Record<string, unknown>));
      },
      resolve: ({ request }: { request: Request }) => ({ auth: callers.get(request) as Auth }),
    }),
  });
