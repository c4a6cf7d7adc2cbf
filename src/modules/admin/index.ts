// Routes (admin sessions only): POST /v1/admin/credits, POST /v1/admin/runs/:run_id/refund, GET and POST
// /v1/admin/users, PATCH /v1/admin/users/:user_id.
import { eq } from "drizzle-orm";
import { Elysia, t } from "elysia";
import type { Context } from "../../context";
import { tx } from "../../db/client";
import { users, workspaces } from "../../db/schema";
import { authGuard } from "../../http/auth-guard";
import { RequestBody, strictBody } from "../../http/body";
import { ApiError } from "../../http/errors";
import { routeDocs } from "../../http/openapi";
import { ListQuery, listPage, Page } from "../../http/pagination";
import { createUser, findUserByEmail } from "../auth/service";
import { Run } from "../runs/model";
import { refundRun, runJson } from "../runs/service";
import { Balance } from "../usage/model";
import { getBalance, grantCredits } from "../usage/service";

const AdminUser = t.Object(
  {
    id: t.String(),
    object: t.Literal("user"),
    email: t.String(),
    role: t.Union([t.Literal("admin"), t.Literal("member")]),
    workspace_id: t.String(),
    created_at: t.String({ format: "date-time" }),
  },
  { title: "AdminUser" },
);

const CreateUserBody = RequestBody({
  email: t.String({ minLength: 1, maxLength: 320, examples: ["teacher@example.org"] }),
  password: t.String({ minLength: 8, maxLength: 1024, examples: ["a long passphrase"] }),
  role: t.Optional(t.Union([t.Literal("admin"), t.Literal("member")], { default: "member" })),
});

const toAdminUser = (u: typeof users.$inferSelect) => ({
  id: u.id,
  object: "user" as const,
  email: u.email,
  role: u.role,
  workspace_id: u.workspaceId,
  created_at: new Date(u.createdAt).toISOString(),
});

const GrantBody = RequestBody({
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
      async ({ body }) => {
        // A field given but empty names itself, not the other one.
        for (const field of ["workspace_id", "email"] as const) {
          if (body[field] !== undefined && !body[field]?.trim()) throw new ApiError(400, "validation_error", `${field} must not be empty`, field);
        }
        let workspaceId = body.workspace_id;
        if (!workspaceId && body.email) {
          const user = await findUserByEmail(ctx.db, body.email);
          if (!user) throw new ApiError(404, "not_found", `No user with email ${body.email}`);
          workspaceId = user.workspaceId;
        }
        if (!workspaceId) throw new ApiError(400, "validation_error", "give workspace_id or email", "workspace_id");
        const id = workspaceId;
        return tx(
          ctx.db,
          async (t) => {
            if ((await t.select({ id: workspaces.id }).from(workspaces).where(eq(workspaces.id, id)).limit(1)).length === 0) {
              throw new ApiError(404, "not_found", `No workspace ${id}`);
            }
            await grantCredits(t, ctx.clock, id, body.amount, body.kind ?? "regular", "admin", body.note);
            return getBalance(t, id);
          },
          { lock: id },
        );
      },
      { auth: "admin", ...strictBody(GrantBody), response: { 200: Balance }, detail: { summary: "Grant (or debit) a workspace's credits" } },
    )
    .get("/users", async ({ query }) => listPage(ctx.db, ctx.config.secret, users, {}, query, toAdminUser), {
      auth: "admin",
      query: t.Object(ListQuery),
      response: { 200: Page(AdminUser) },
      detail: { summary: "List users (newest first)", description: "An Assay extension, like the whole admin API." },
    })
    .post(
      "/users",
      async ({ body, set }) => {
        const user = await createUser(ctx.db, ctx.clock, ctx.config, { email: body.email, password: body.password, role: body.role ?? "member" });
        set.status = 201;
        return toAdminUser(user);
      },
      {
        auth: "admin",
        ...strictBody(CreateUserBody),
        response: { 201: AdminUser },
        detail: routeDocs({
          summary: "Create a user (with a workspace of its own and ASSAY_INITIAL_CREDITS), as `assay user create` does",
          "x-errors": ["409"],
        }),
      },
    )
    .patch(
      "/users/:user_id",
      async ({ body, params }) => {
        const updated = await tx(ctx.db, async (t) => {
          const [user] = await t.select().from(users).where(eq(users.id, params.user_id)).limit(1);
          if (!user) throw new ApiError(404, "not_found", `No user ${params.user_id}`);
          if (user.role === "admin" && body.role !== "admin") {
            const admins = (await t.select({ id: users.id }).from(users).where(eq(users.role, "admin"))).length;
            if (admins <= 1) throw new ApiError(409, "invalid_state", "This is the last administrator; make another one first");
          }
          const [row] = await t.update(users).set({ role: body.role }).where(eq(users.id, user.id)).returning();
          return row;
        });
        return toAdminUser(updated as typeof users.$inferSelect);
      },
      {
        auth: "admin",
        ...strictBody(RequestBody({ role: t.Union([t.Literal("admin"), t.Literal("member")], { examples: ["admin"] }) })),
        response: { 200: AdminUser },
        detail: routeDocs({ summary: "Change a user's role (the last administrator stays one)", "x-errors": ["404", "409"] }),
      },
    )
    .post("/runs/:run_id/refund", async ({ params }) => runJson(ctx, await refundRun(ctx, params.run_id)), {
      auth: "admin",
      response: { 200: Run },
      detail: routeDocs({ summary: "Refund a succeeded run: it becomes refunded and its charged credits return", "x-errors": ["409"] }),
    });
