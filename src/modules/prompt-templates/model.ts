// Wire format of prompt templates and prompt generation (spec §2 PromptTemplate, GeneratedPrompt).
import { t } from "elysia";
import { RequestBody } from "../../http/body";

const Category = t.Union([t.Literal("education"), t.Literal("legal"), t.Literal("grading"), t.Literal("hr"), t.Literal("general")]);
const OutputFormat = t.Union([t.Literal("json"), t.Literal("markdown"), t.Literal("docx"), t.Literal("xlsx"), t.Literal("csv")]);

export const PromptTemplate = t.Object(
  {
    id: t.String(),
    slug: t.String(),
    title: t.String(),
    description: t.Union([t.String(), t.Null()]),
    category: t.String(),
    user_prompt_seed: t.String(),
    recommended_output_format: t.Union([t.String(), t.Null()]),
    locale: t.String(),
  },
  { title: "PromptTemplate" },
);

export const GenerateBody = RequestBody({
  goal: t.String({
    minLength: 1,
    maxLength: 2000,
    pattern: "\\S",
    error: "goal must contain text (1 to 2000 characters)",
    examples: ["Grade year-10 persuasive essays against our rubric"],
  }),
  category: t.Optional(Category),
  output_format: t.Optional(OutputFormat),
});

export const GeneratedPrompt = t.Object(
  {
    user_prompt: t.String(),
    recommended_output_format: t.Union([t.String(), t.Null()]),
    source: t.Union([t.Literal("model"), t.Literal("template")], { description: "Who wrote the prompt" }),
  },
  { title: "GeneratedPrompt" },
);
