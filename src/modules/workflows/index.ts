// Routes: GET/POST /v1/workflows, GET/PATCH/DELETE /v1/workflows/:workflow_id.
import { Elysia, t } from "elysia";
import type { Context } from "../../context";
import { authGuard } from "../../http/auth-guard";
import { strictBody } from "../../http/body";
import { ListQuery, Page } from "../../http/pagination";
import { CreateWorkflowBody, toWorkflowJson, UpdateWorkflowBody, Workflow } from "./model";
import { createWorkflow, deleteWorkflow, getWorkflow, listWorkflows, updateWorkflow } from "./service";

const Deleted = t.Object({ id: t.String(), object: t.Literal("workflow"), deleted: t.Literal(true) });

export const workflowRoutes = (ctx: Context) =>
  new Elysia({ prefix: "/v1/workflows", tags: ["Workflows"] })
    .use(authGuard(ctx))
    .get("", ({ auth, query }) => listWorkflows(ctx.db, ctx.config.secret, auth.workspaceId, query), {
      auth: "workflows:read",
      query: t.Object(ListQuery),
      response: { 200: Page(Workflow) },
      detail: { summary: "List workflows (newest first)" },
    })
    .post("", async ({ auth, body, status }) => status(201, toWorkflowJson(await createWorkflow(ctx, auth.workspaceId, body))), {
      auth: "workflows:write",
      ...strictBody(CreateWorkflowBody),
      response: { 201: Workflow },
      detail: { summary: "Create a workflow" },
    })
    .get("/:workflow_id", async ({ auth, params }) => toWorkflowJson(await getWorkflow(ctx.db, auth.workspaceId, params.workflow_id)), {
      auth: "workflows:read",
      response: { 200: Workflow },
      detail: { summary: "Get a workflow" },
    })
    .patch(
      "/:workflow_id",
      async ({ auth, params, body }) => toWorkflowJson(await updateWorkflow(ctx.db, ctx.clock, auth.workspaceId, params.workflow_id, body)),
      {
        auth: "workflows:write",
        ...strictBody(UpdateWorkflowBody),
        response: { 200: Workflow },
        detail: {
          summary: "Update a workflow's name, status, prompt or output schema",
          description:
            "Any move between active, paused and archived is allowed. `output_schema` replaces the schema (null removes it) and clears `output_schema_sample_id`; runs not yet started use the new one.",
        },
      },
    )
    .delete("/:workflow_id", ({ auth, params }) => deleteWorkflow(ctx.db, ctx.clock, auth.workspaceId, params.workflow_id), {
      auth: "workflows:write",
      response: { 200: Deleted },
      detail: { summary: "Delete a workflow (its runs stay readable)" },
    });
