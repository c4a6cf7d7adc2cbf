// Routes: GET/POST /v1/keys, DELETE /v1/keys/:key_id (user sessions only).
import { Elysia, t } from "elysia";
import type { Context } from "../../context";
import { authGuard } from "../../http/auth-guard";
import { strictBody } from "../../http/body";
import { ErrorBody } from "../../http/errors";
import { ApiKeySummary, CreateKeyBody, SecretApiKey } from "./model";
import { createKey, listKeys, revokeKey, toApiKeySummary } from "./service";

export const keyRoutes = (ctx: Context) =>
  new Elysia({ prefix: "/v1/keys", tags: ["API keys"] })
    .use(authGuard(ctx))
    .get("", async ({ auth }) => ({ data: (await listKeys(ctx.db, auth.workspaceId)).map(toApiKeySummary) }), {
      auth: "session",
      response: { 200: t.Object({ data: t.Array(ApiKeySummary) }), 401: ErrorBody },
      detail: { summary: "List API keys" },
    })
    .post(
      "",
      async ({ auth, body, status }) =>
        status(
          201,
          await createKey(ctx.db, ctx.clock, {
            workspaceId: auth.workspaceId,
            userId: auth.userId,
            name: body.name,
            mode: body.mode,
            scopes: body.scopes,
            rateLimitRpm: body.rate_limit_rpm,
            expiresAt: body.expires_at,
          }),
        ),
      {
        auth: "session",
        ...strictBody(CreateKeyBody),
        response: { 201: SecretApiKey, 400: ErrorBody, 401: ErrorBody },
        detail: { summary: "Create an API key (the token is shown once)" },
      },
    )
    .delete(
      "/:key_id",
      async ({ auth, params }) => toApiKeySummary(await revokeKey(ctx.db, ctx.clock, ctx.runtime.forgetKey, auth.workspaceId, params.key_id)),
      {
        auth: "session",
        response: { 200: ApiKeySummary, 401: ErrorBody, 404: ErrorBody },
        detail: { summary: "Revoke an API key" },
      },
    );
