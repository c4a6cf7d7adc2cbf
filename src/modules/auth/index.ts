// Routes: POST /v1/auth/login, POST /v1/auth/logout, GET /v1/auth/me.
import { eq } from "drizzle-orm";
import { Elysia, t } from "elysia";
import type { Context } from "../../context";
import { users, workspaces } from "../../db/schema";
import { authGuard } from "../../http/auth-guard";
import { strictBody } from "../../http/body";
import { ApiError, ErrorBody } from "../../http/errors";
import { LoginBody, Me, Session, SetupBody } from "./model";
import { createUser, hasUsers, login, revokeSession, startSession, toUserJson } from "./service";
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
      { ...strictBody(LoginBody), response: { 200: Session, 401: ErrorBody }, detail: { summary: "Log in with email and password" } },
    )
    .post(
      "/setup",
      async ({ body, set }) => {
        if (await hasUsers(ctx.db)) throw new ApiError(403, "setup_closed", "Setup is done: a user exists. Log in instead");
        if (!ctx.runtime.setup.consume(body.token, ctx.clock.now())) {
          throw new ApiError(401, "invalid_setup_token", "This setup link is not valid (expired, used, or from before a restart)");
        }
        const user = await createUser(ctx.db, ctx.clock, ctx.config, { email: body.email, password: body.password, role: "admin" });
        const { token, expiresAt } = await startSession(ctx.db, ctx.clock, user);
        set.status = 201;
        return { token, token_type: "Bearer" as const, expires_at: new Date(expiresAt).toISOString(), user: toUserJson(user) };
      },
      {
        ...strictBody(SetupBody),
        response: { 201: Session, 401: ErrorBody, 403: ErrorBody },
        detail: {
          summary: "Create the first administrator with the one-time setup token",
          description:
            "Only while no user exists. The server prints the token (as a console link) to its terminal at start; it works once, for an hour, and a restart replaces it. Answers a session for the new admin.",
        },
      },
    )
    .post(
      "/logout",
      async ({ auth }) => {
        if (auth.kind === "session") await revokeSession(ctx.db, ctx.clock, auth.token);
        return { revoked: true as const };
      },
      { auth: "session", response: { 200: t.Object({ revoked: t.Literal(true) }) }, detail: { summary: "Revoke the presented session" } },
    )
    .get(
      "/me",
      async ({ auth }) => {
        const [user] = await ctx.db.select().from(users).where(eq(users.id, auth.userId)).limit(1);
        const [ws] = await ctx.db.select().from(workspaces).where(eq(workspaces.id, auth.workspaceId)).limit(1);
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
