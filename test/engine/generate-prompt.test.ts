// Prompt generation: the model writes it when configured (checked against a fake OpenAI-compatible server);
// the template composition otherwise, and when the model fails.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { promptTemplates } from "../../src/catalog";
import { generatePrompt } from "../../src/engine/generate-prompt";
import { createLogger } from "../../src/lib/log";

const quiet = createLogger("silent");

let server: ReturnType<typeof Bun.serve>;
const seen: any[] = [];
let mode: "ok" | "broken" = "ok";

beforeAll(() => {
  server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(req) {
      const body = await req.json();
      seen.push(body);
      if (mode === "broken") return new Response("overloaded", { status: 400 });
      const content = JSON.stringify({
        user_prompt:
          "You are a hiring manager. Screen each CV against the job description: required skills, years of experience, evidence of impact. Quote the CV verbatim for every judgement and flag gaps.",
        recommended_output_format: "xlsx",
      });
      return Response.json({
        model: "fake-7b",
        choices: [{ message: { role: "assistant", content } }],
        usage: { prompt_tokens: 50, completion_tokens: 40 },
      });
    },
  });
});
afterAll(() => server.stop(true));

const llm = () => ({ baseUrl: `http://127.0.0.1:${server.port}/v1`, apiKey: null, model: "fake-7b", timeoutMs: 2000, samples: 1 });

test("without a model: the deterministic composition", async () => {
  const r = await generatePrompt({ goal: "Screen CVs for a data engineer", category: "hr" }, promptTemplates, null, quiet);
  expect(r.source).toBe("template");
  expect(r.user_prompt).toContain("data engineer");
});

test("with a model: the model writes it from the goal, category, format and a related template", async () => {
  const r = await generatePrompt({ goal: "Screen CVs for a data engineer", category: "hr", output_format: "xlsx" }, promptTemplates, llm(), quiet);
  expect(r).toMatchObject({ source: "model", recommended_output_format: "xlsx" });
  expect(r.user_prompt).toContain("hiring manager");
  const request = seen.at(-1);
  expect(request.model).toBe("fake-7b");
  const user = request.messages.find((m: any) => m.role === "user").content;
  expect(user).toContain("Screen CVs for a data engineer");
  expect(user).toContain("Category: hr");
  expect(request.response_format.type).toBe("json_schema");
});

test("a failing model falls back to the composition", async () => {
  mode = "broken";
  const r = await generatePrompt({ goal: "Review NDAs", category: "legal" }, promptTemplates, llm(), quiet);
  expect(r.source).toBe("template");
  expect(r.user_prompt).toContain("NDAs");
  mode = "ok";
});
