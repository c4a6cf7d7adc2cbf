// Routes (admin sessions only): POST /v1/admin/credits, POST /v1/admin/runs/:run_id/refund.
import { eq } from "drizzle-orm";
import { Elysia, t } from "elysia";
import type { Context } from "../../context";
import { tx } from "../../db/client";
import { workspaces } from "../../db/schema";
import { authGuard } from "../../http/auth-guard";
import { ApiError } from "../../http/errors";
import { routeDocs } from "../../http/openapi";
import { findUserByEmail } from "../auth/service";
import { Run } from "../runs/model";
import { refundRun, runJson } from "../runs/service";
import { Balance } from "../usage/model";
import { getBalance, grantCredits } from "../usage/service";

const GrantBody = t.Object({
  workspace_id: t.Optional(t.String()),
  email: t.Optional(t.String()),
  amount: t.Number({
    minimum: -1e9,
    maximum: 1e9,
    description: "Positive to add, negative to debit (never below zero); at most 1e9 either way",
    examples: [500],
  }),
  kind: t.Optional(t.Union([t.Literal("regular"), t.Literal("bonus")], { default: "regular" })),
  note: t.Optional(t.String({ maxLength: 500 })),
});

export const adminRoutes = (ctx: Context) =>
  new Elysia({ prefix: "/v1/admin", tags: ["Admin"] })
    .use(authGuard(ctx))
    .post(
      "/credits",
      ({ body }) => {
        // A field given but empty names itself, not the other one.
        for (const field of ["workspace_id", "email"] as const) {
          if (body[field] !== undefined && !body[field]?.trim()) throw new ApiError(400, "validation_error", `${field} must not be empty`, field);
        }
        let workspaceId = body.workspace_id;
        if (!workspaceId && body.email) {
          const user = findUserByEmail(ctx.db, body.email);
          if (!user) throw new ApiError(404, "not_found", `No user with email ${body.email}`);
          workspaceId = user.workspaceId;
        }
        if (!workspaceId) throw new ApiError(400, "validation_error", "give workspace_id or email", "workspace_id");
        if (!ctx.db.select({ id: workspaces.id }).from(workspaces).where(eq(workspaces.id, workspaceId)).get()) {
          throw new ApiError(404, "not_found", `No workspace ${workspaceId}`);
        }
        tx(ctx.db, () => grantCredits(ctx.db, ctx.clock, workspaceId, body.amount, body.kind ?? "regular", "admin", body.note));
        return getBalance(ctx.db, workspaceId);
      },
      { auth: "admin", body: GrantBody, response: { 200: Balance }, detail: { summary: "Grant (or debit) a workspace's credits" } },
    )
    .post("/runs/:run_id/refund", ({ params }) => runJson(ctx, refundRun(ctx, params.run_id)), {
      auth: "admin",
      response: { 200: Run },
      detail: routeDocs({ summary: "Refund a succeeded run: it becomes refunded and its charged credits return", "x-errors": ["409"] }),
    });
