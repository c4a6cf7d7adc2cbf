// Routes: POST /v1/auth/login, POST /v1/auth/logout, GET /v1/auth/me.
import { eq } from "drizzle-orm";
import { Elysia, t } from "elysia";
import type { Context } from "../../context";
import { users, workspaces } from "../../db/schema";
import { authGuard } from "../../http/auth-guard";
import { ApiError, ErrorBody } from "../../http/errors";
import { LoginBody, Me, Session } from "./model";
import { login, revokeSession, toUserJson } from "./service";
import { LoginThrottle } from "./throttle";

export const authRoutes = (ctx: Context) => {
  const throttle = new LoginThrottle();
  return new Elysia({ prefix: "/v1/auth", tags: ["Auth"] })
    .use(authGuard(ctx))
    .post(
      "/login",
      async ({ body, request, server }) => {
        // The socket's address (a reverse proxy's, behind one: then every client shares its address budget).
        const address = server?.requestIP(request)?.address ?? "unknown";
        const { token, user, expiresAt } = await login(ctx.db, ctx.clock, throttle, { ...body, address });
        return { token, token_type: "Bearer" as const, expires_at: new Date(expiresAt).toISOString(), user: toUserJson(user) };
      },
      { body: LoginBody, response: { 200: Session, 401: ErrorBody }, detail: { summary: "Log in with email and password" } },
    )
    .post(
      "/logout",
      ({ auth }) => {
        if (auth.kind === "session") revokeSession(ctx.db, ctx.clock, auth.token);
        return { revoked: true as const };
      },
      { auth: "session", response: { 200: t.Object({ revoked: t.Literal(true) }) }, detail: { summary: "Revoke the presented session" } },
    )
    .get(
      "/me",
      ({ auth }) => {
        const user = ctx.db.select().from(users).where(eq(users.id, auth.userId)).get();
        const ws = ctx.db.select().from(workspaces).where(eq(workspaces.id, auth.workspaceId)).get();
        if (!user || !ws) throw new ApiError(401, "unauthenticated", "This user no longer exists");
        return {
          user: toUserJson(user),
          workspace: { id: ws.id, name: ws.name },
          auth: auth.kind === "key" ? { kind: "key" as const, key_id: auth.keyId, mode: auth.mode } : { kind: "session" as const, mode: auth.mode },
        };
      },
      { auth: "any", response: { 200: Me }, detail: { summary: "The caller: user, workspace and credential" } },
    );
};
