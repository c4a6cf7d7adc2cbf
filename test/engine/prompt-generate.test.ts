// composePrompt: the offline prompt generator behind POST /prompt-templates/generate.
import { describe, expect, test } from "bun:test";
import templates from "../../src/catalog/prompt-templates.json";
import { composePrompt, type PromptTemplate, rankTemplates } from "../../src/engine/prompt-generate";

const FORMATS = ["json", "markdown", "docx", "xlsx", "csv"] as const;
const bySlug = (slug: string) => templates.find((t) => t.slug === slug)!;
/** A template's first check bullet: proof that the prompt's checks came from that template. */
const firstCheck = (t: PromptTemplate) => /^- (.+)$/m.exec(t.user_prompt_seed)![1];

describe("composePrompt", () => {
  test("opens with a role and the goal in the user's own words", () => {
    const goal = "Score Year 9 persuasive essays on school uniforms and tell pupils how to improve their counterarguments";
    const { user_prompt } = composePrompt({ goal, category: "education" }, templates);
    expect(user_prompt.startsWith("You are ")).toBe(true);
    expect(user_prompt.split("\n\n")[0]).toContain(goal);
  });

  test("picks the template whose words match the goal", () => {
    const cases: [string, string][] = [
      ["Check this NDA against our confidentiality playbook", "nda-playbook-review"],
      ["Find red flags for the tenant in this apartment lease", "lease-red-flags"],
      ["Grade a Python programming assignment, including its unit tests", "code-assignment-grading"],
      ["Screen CVs for a senior data engineer role against the job description", "cv-screening-job-description"],
      ["Pull the action items and owners out of our board meeting minutes", "meeting-minutes-action-items"],
    ];
    for (const [goal, slug] of cases) {
      const { user_prompt } = composePrompt({ goal }, templates);
      expect(user_prompt).toContain(firstCheck(bySlug(slug)));
      expect(rankTemplates(goal, templates)[0].template.slug).toBe(slug);
    }
  });

  test("explains its choice: the matched goal words are listed", () => {
    const [best] = rankTemplates("Review the NDA for a hidden non-compete", templates, "legal");
    expect(best.template.slug).toBe("nda-playbook-review");
    expect(best.matched).toEqual(expect.arrayContaining(["nda", "compete"]));
    expect(best.score).toBeGreaterThan(0);
  });

  test("honours the category even when the goal's words point elsewhere", () => {
    const goal = "Review this essay about employment contracts";
    const legal = composePrompt({ goal, category: "legal" }, templates);
    const hr = composePrompt({ goal, category: "hr" }, templates);
    const legalChecks = templates.filter((t) => t.category === "legal").map(firstCheck);
    const hrChecks = templates.filter((t) => t.category === "hr").map(firstCheck);
    expect(legalChecks.some((c) => legal.user_prompt.includes(c))).toBe(true);
    expect(hrChecks.some((c) => hr.user_prompt.includes(c))).toBe(true);
    expect(legal.user_prompt).toContain("lawyer");
    expect(hr.user_prompt).toContain("recruiter");
  });

  test("falls back to a general template when nothing matches and no category is given", () => {
    const { user_prompt } = composePrompt({ goal: "zzz qqq" }, templates);
    const generalChecks = templates.filter((t) => t.category === "general").map(firstCheck);
    expect(generalChecks.some((c) => user_prompt.includes(c))).toBe(true);
  });

  test("always asks for verbatim evidence with locations, per-criterion scores, a 0-100 score and a verdict", () => {
    const { user_prompt } = composePrompt({ goal: "Mark the lab reports", category: "education" }, templates);
    expect(user_prompt).toContain("attached reference documents (rubric/criteria)");
    expect(user_prompt).toContain("verbatim");
    expect(user_prompt).toContain("location");
    expect(user_prompt).toContain("Score each criterion");
    expect(user_prompt).toContain("0 to 100");
    expect(user_prompt).toContain("pass, fail or needs_review");
  });

  test("reads as a prompt, not a template dump: no raw headings or duplicated task line from the seed", () => {
    const t = bySlug("contract-clause-risk-review");
    const { user_prompt } = composePrompt({ goal: "Assess liability caps in a SaaS contract", category: "legal" }, templates);
    expect(user_prompt).not.toContain("\nCheck:\n");
    expect(user_prompt).not.toContain(t.user_prompt_seed.split(".")[0]);
    expect(user_prompt).toContain("This is a first-pass review for a lawyer, not legal advice.");
  });

  test("is deterministic", () => {
    const input = { goal: "Review interview notes for a product manager", category: "hr" as const, output_format: "csv" as const };
    const a = composePrompt(input, templates);
    const b = composePrompt(input, structuredClone(templates));
    expect(b).toEqual(a);
  });

  test("ends with an instruction tailored to the output format", () => {
    const endings = new Set<string>();
    for (const output_format of FORMATS) {
      const { user_prompt, recommended_output_format } = composePrompt({ goal: "Grade the exam", output_format }, templates);
      expect(recommended_output_format).toBe(output_format);
      endings.add(user_prompt.split("\n\n").at(-1)!);
    }
    expect(endings.size).toBe(FORMATS.length);
    const xlsx = composePrompt({ goal: "Grade the exam", output_format: "xlsx" }, templates).user_prompt;
    expect(xlsx.split("\n\n").at(-1)).toContain("one row per criterion");
    const json = composePrompt({ goal: "Grade the exam", output_format: "json" }, templates).user_prompt;
    expect(json.split("\n\n").at(-1)).toContain("max_score");
  });

  test("recommended_output_format: requested, else the template's, else json", () => {
    const nda = bySlug("nda-playbook-review");
    const goal = "NDA playbook review";
    expect(composePrompt({ goal, output_format: "docx" }, templates).recommended_output_format).toBe("docx");
    expect(composePrompt({ goal }, templates).recommended_output_format).toBe(nda.recommended_output_format);
    const withoutFormat = templates.map((t) => ({ ...t, recommended_output_format: null }));
    const r = composePrompt({ goal }, withoutFormat);
    expect(r.recommended_output_format).toBe("json");
    expect(r.user_prompt.split("\n\n").at(-1)).toContain("JSON");
  });

  test("a goal of 2000 characters is carried in full", () => {
    const sentence = "Check that every claim about the lease deposit and break clause is backed by the text. ";
    const goal = sentence.repeat(30).slice(0, 2000);
    expect(goal.length).toBe(2000);
    const { user_prompt } = composePrompt({ goal }, templates);
    expect(user_prompt).toContain(goal.trim());
    expect(user_prompt).toContain(firstCheck(bySlug("lease-red-flags")));
  });

  test("tidies whitespace in the goal but keeps its line breaks", () => {
    const { user_prompt } = composePrompt({ goal: "  Grade   the essays\r\n\r\n\r\n- focus on   thesis  " }, templates);
    expect(user_prompt).toContain("Grade the essays\n\n- focus on thesis.");
  });

  test("still composes a usable prompt from an empty catalog", () => {
    const r = composePrompt({ goal: "Check the report" }, []);
    expect(r.recommended_output_format).toBe("json");
    expect(r.user_prompt).toContain("Check the report.");
    expect(r.user_prompt).toContain("What to check:\n- ");
  });
});
