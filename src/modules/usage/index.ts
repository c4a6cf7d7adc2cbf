// Routes: GET /v1/usage, GET /v1/usage/balance.
import { Elysia } from "elysia";
import type { Context } from "../../context";
import { authGuard } from "../../http/auth-guard";
import { Balance, UsageQuery, UsageReport } from "./model";
import { getBalance, usagePeriod, usageReport } from "./service";

export const usageRoutes = (ctx: Context) =>
  new Elysia({ prefix: "/v1/usage", tags: ["Usage"] })
    .use(authGuard(ctx))
    .get("", async ({ auth, query }) => usageReport(ctx.db, auth.workspaceId, usagePeriod(ctx.clock.now(), query.from, query.to)), {
      auth: "usage:read",
      query: UsageQuery,
      response: { 200: UsageReport },
      detail: {
        summary: "Runs and credits in a period, by workflow",
        description: "Test-key runs are excluded; a refunded run counts with 0 credits.",
      },
    })
    .get("/balance", async ({ auth }) => getBalance(ctx.db, auth.workspaceId), {
      auth: "usage:read",
      response: { 200: Balance },
      detail: { summary: "The workspace's credit balance (bonus credits are spent first)" },
    });
