// POST /prompt-templates/generate: with a model server the model writes the prompt; without one (or if it fails),
// the deterministic composition from the category's templates.
import type { Config } from "../config";
import type { Logger } from "../lib/log";
import { chooseTemplate, composePrompt, type GeneratedPrompt, type GenerateInput, type PromptTemplate } from "./prompt-generate";
import { chatJson, ModelError, openAIConfig } from "./providers/openai";
import { compileSchema } from "./schema";

const FORMATS = ["json", "markdown", "docx", "xlsx", "csv"];

const GENERATED_SCHEMA = {
  type: "object",
  properties: {
    user_prompt: { type: "string", minLength: 80, maxLength: 8000 },
    recommended_output_format: { type: "string", enum: FORMATS },
  },
  required: ["user_prompt", "recommended_output_format"],
  additionalProperties: false,
};

export interface GeneratePromptResult extends GeneratedPrompt {
  /** "model" when the model wrote it, "template" for the deterministic composition. */
  source: "model" | "template";
}

export async function generatePrompt(
  input: GenerateInput,
  templates: PromptTemplate[],
  llm: Config["llm"],
  log: Logger,
): Promise<GeneratePromptResult> {
  const composed = composePrompt(input, templates);
  if (!llm) return { ...composed, source: "template" };
  const template = chooseTemplate(input, templates);
  const messages = [
    {
      role: "system" as const,
      content:
        "You write evaluation prompts for Assay, a service that grades documents (essays, contracts, CVs, reports) against " +
        "reference documents such as rubrics, checklists and playbooks. A good prompt states the evaluator's role and the goal, " +
        "lists the concrete checks, says how to score each criterion of the attached reference documents, asks for verbatim " +
        "quotes with locations as evidence, and says what to flag. Answer with JSON only.",
    },
    {
      role: "user" as const,
      content: [
        `Goal: ${input.goal}`,
        `Category: ${input.category ?? template?.category ?? "general"}`,
        `Output format: ${input.output_format ?? "choose the most useful one of json, markdown, docx, xlsx, csv"}`,
        template ? `A related prompt from our catalogue, for inspiration (do not copy it):\n${template.user_prompt_seed}` : "",
        'Write the prompt. Answer {"user_prompt": "...", "recommended_output_format": "json|markdown|docx|xlsx|csv"}.',
      ]
        .filter(Boolean)
        .join("\n\n"),
    },
  ];
  try {
    const answer = await chatJson(openAIConfig(llm), {
      messages,
      schema: GENERATED_SCHEMA,
      schemaName: "generated_prompt",
      validate: compileSchema(GENERATED_SCHEMA).validate,
    });
    const value = answer.value as { user_prompt: string; recommended_output_format: string };
    return {
      user_prompt: value.user_prompt.trim(),
      recommended_output_format: input.output_format ?? value.recommended_output_format,
      source: "model",
    };
  } catch (err) {
    if (!(err instanceof ModelError)) throw err;
    // An unreachable or confused model must not break prompt writing: the composition is a good prompt too.
    log.warn({ code: err.code }, "prompt generation: the model failed; answering the template composition");
    return { ...composed, source: "template" };
  }
}
