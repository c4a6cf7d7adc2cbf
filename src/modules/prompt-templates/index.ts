// Routes: GET /v1/prompt-templates, POST /v1/prompt-templates/generate.
import { Elysia, t } from "elysia";
import { promptTemplates } from "../../catalog";
import type { Context } from "../../context";
import { generatePrompt } from "../../engine/generate-prompt";
import { authGuard } from "../../http/auth-guard";
import { strictBody } from "../../http/body";
import { ErrorBody } from "../../http/errors";
import { GenerateBody, GeneratedPrompt, PromptTemplate } from "./model";

export const promptTemplateRoutes = (ctx: Context) =>
  new Elysia({ prefix: "/v1/prompt-templates", tags: ["Catalog"] })
    .use(authGuard(ctx))
    .get("", () => ({ data: promptTemplates }), {
      auth: "any",
      response: { 200: t.Object({ data: t.Array(PromptTemplate) }), 401: ErrorBody },
      detail: { summary: "List prompt templates" },
    })
    .post("/generate", async ({ body }) => generatePrompt(body, promptTemplates, ctx.config.llm, ctx.log), {
      auth: "workflows:write",
      ...strictBody(GenerateBody),
      response: { 200: GeneratedPrompt, 400: ErrorBody },
      detail: {
        summary: "Generate an evaluation prompt from a goal",
        description:
          "With a model server configured (ASSAY_LLM_BASE_URL) the model writes the prompt; without one, or when the model fails, " +
          "a deterministic composition from the category's templates. `source` says which.",
      },
    });
