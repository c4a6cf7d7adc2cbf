// The web console end to end: the real server (src/main.ts serve) as a child process, driven in Debian's headless
// Chromium through playwright-core. No mocks: a rubric is uploaded and indexed, a workflow created, an essay run
// through the local evaluator, a key created and revoked — all through the console's pages and the public /v1 API.
// Screenshots go to ASSAY_CONSOLE_SHOTS (default: a temp folder, printed); docs/console/ holds a few of them.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { freePort, spawnServer, tempDir } from "../helpers";
import { browserAvailable, launchChromium } from "./browser";

const root = path.resolve(import.meta.dir, "../..");

const ADMIN = { email: "admin@example.com", password: "console-admin-password" };
const RUBRIC = `# Essay rubric

## Thesis
The essay states a clear thesis about renewable energy in its first paragraph.

## Evidence
Claims are supported with concrete examples, figures or sources.

## Structure
Paragraphs follow a logical order with an introduction and a conclusion.
`;
const ESSAY = `Renewable energy is the most practical path to a stable climate, and this essay argues that solar power should
lead the transition. In 2023 solar panels supplied more new capacity than any other source, and their price fell by
almost ninety percent over a decade. For example, a town in Spain cut its electricity bills by a third after building
a community solar farm. Wind power complements solar at night. In conclusion, the evidence shows that renewable
energy, led by solar, is affordable, reliable and ready today.
`;

// The same essay in parts: a quote from it is located by its heading.
const ESSAY_MD = `# Solar first

## Thesis

Renewable energy is the most practical path to a stable climate, and this essay argues that solar power should
lead the transition.

## Evidence

In 2023 solar panels supplied more new capacity than any other source, and their price fell by almost ninety
percent over a decade. For example, a town in Spain cut its electricity bills by a third after building a community
solar farm. Wind power complements solar at night.

## Conclusion

In conclusion, the evidence shows that renewable energy, led by solar, is affordable, reliable and ready today.
`;

let server: Awaited<ReturnType<typeof spawnServer>> | null = null;
let browser: Browser | null = null;
let context: BrowserContext;
let page: Page;
let base = "";
let shots = "";
let files = "";
let runId = "";
const browserErrors: string[] = [];
// A real webhook receiver in this process, answering whatever status the test sets.
let receiverStatus = 200;
const receiver = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response("ok", { status: receiverStatus }) });
const receiverUrl = `http://127.0.0.1:${receiver.port}`;

// Long pages (a run) are shot as the visible window only, which keeps the PNGs small enough for docs/console/.
const shot = (name: string, fullPage = true) => page.screenshot({ path: path.join(shots, `${name}.png`), fullPage });
/** Waits until `fn` holds (page.waitForFunction would evaluate a string, which the console's CSP forbids). */
const until = async (what: string, fn: () => Promise<boolean>, ms = 10_000) => {
  const end = Date.now() + ms;
  while (!(await fn())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(50);
  }
};
/** An error answer the test asked for is logged by Chromium ("Failed to load resource … 409"): take that one line out. */
const expectLogged = async (status: number) => {
  await until(`the browser to log HTTP ${status}`, async () => browserErrors.some((e) => e.includes(`status of ${status}`)));
  browserErrors.splice(
    browserErrors.findIndex((e) => e.includes(`status of ${status}`)),
    1,
  );
};
/** The signed-in session's token, read from the tab (the console keeps it in sessionStorage). */
const sessionToken = async () => JSON.parse((await page.evaluate<string>("sessionStorage.getItem('assay.session')")) ?? "{}").token as string;
const v1 = async (method: string, url: string, body?: unknown, token?: string) => {
  const res = await fetch(`${base}/v1${url}`, {
    method,
    headers: { authorization: `Bearer ${token ?? (await sessionToken())}`, ...(body ? { "content-type": "application/json" } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  if (!res.ok) throw new Error(`${method} ${url}: ${res.status} ${await res.text()}`);
  return (await res.json()) as Record<string, unknown>;
};
const nav = (name: string) => page.getByRole("navigation", { name: "Main" }).getByRole("link", { name, exact: true }).click();

describe.skipIf(!browserAvailable)("web console in Chromium", () => {
  beforeAll(async () => {
    const build = Bun.spawnSync([process.execPath, "run", "scripts/build-console.ts"], { cwd: root, stdout: "pipe", stderr: "pipe" });
    if (build.exitCode !== 0) throw new Error(`console build failed: ${build.stderr}`);
    const port = freePort();
    base = `http://127.0.0.1:${port}`;
    server = await spawnServer(port, {
      ASSAY_DATA_DIR: tempDir("assay-console-"),
      ASSAY_PUBLIC_URL: base,
      ASSAY_LOG_LEVEL: "silent",
      ASSAY_ADMIN_EMAIL: ADMIN.email,
      ASSAY_ADMIN_PASSWORD: ADMIN.password,
    });
    shots = process.env.ASSAY_CONSOLE_SHOTS ?? tempDir("assay-console-shots-");
    mkdirSync(shots, { recursive: true });
    console.log(`console screenshots: ${shots}`);
    files = tempDir("assay-console-files-");
    writeFileSync(path.join(files, "rubric.md"), RUBRIC);
    writeFileSync(path.join(files, "essay.txt"), ESSAY);
    browser = await launchChromium();
    context = await browser.newContext({ viewport: { width: 1100, height: 800 }, acceptDownloads: true });
    page = await context.newPage();
    page.setDefaultTimeout(10_000); // a step that cannot happen fails with its locator, before the test's own timeout
    page.on("console", (m) => m.type() === "error" && browserErrors.push(m.text()));
    page.on("pageerror", (e) => browserErrors.push(String(e)));
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    server?.kill();
    receiver.stop(true);
  });

  test("GET / redirects to /console: the page has no-cache and a strict CSP, hashed assets are immutable", async () => {
    const root = await fetch(`${base}/`, { redirect: "manual" });
    expect(root.status).toBe(302);
    expect(root.headers.get("location")).toBe("/console");
    const html = await fetch(`${base}/console`);
    expect(html.headers.get("cache-control")).toBe("no-cache");
    expect(html.headers.get("content-security-policy")).toContain("default-src 'self'");
    expect(html.headers.get("content-security-policy")).toContain("script-src 'self'");
    const text = await html.text();
    expect(text).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/); // no inline script
    const js = /src="(\/console\/[^"]+\.js)"/.exec(text)![1];
    const asset = await fetch(`${base}${js}`);
    expect(asset.status).toBe(200);
    expect(asset.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    // A console path is the app's (client-side routing); an unknown file name is never read from disk.
    expect((await fetch(`${base}/console/runs/run_x`)).headers.get("content-type")).toContain("text/html");
    expect(await (await fetch(`${base}/console/..%2f..%2fpackage.json`)).text()).toContain("<!doctype html>");
  });

  test("signing in with the keyboard only lands on the home page with the balance and latest runs", async () => {
    await page.goto(`${base}/`);
    await expect(page.getByRole("heading", { name: "Sign in to Assay" }).isVisible()).resolves.toBe(true);
    await page.keyboard.press("Tab");
    await page.keyboard.type(ADMIN.email);
    await page.keyboard.press("Tab");
    await page.keyboard.type(ADMIN.password);
    await page.keyboard.press("Enter");
    await page.getByRole("heading", { name: "Home" }).waitFor();
    await page.getByTestId("balance").waitFor();
    expect(await page.getByTestId("balance").textContent()).toBe("100"); // ASSAY_INITIAL_CREDITS' default
    await page.getByText("No runs yet.").waitFor();
    await shot("home-empty");
  });

  test("an admin grants credits on the admin page", async () => {
    await nav("Admin");
    await page.getByLabel("User's email").fill(ADMIN.email);
    await page.getByLabel("Amount (negative to debit)").fill("400");
    await page.getByRole("button", { name: "Grant" }).click();
    await page.getByRole("status").getByText(`${ADMIN.email} now has 500 pro credits`).waitFor();
    await shot("admin");
  });

  test("an admin lists users (paged) and creates one; a taken email is refused in words with its request id", async () => {
    const users = page.getByRole("table", { name: "Users" });
    const roleOf = (email: string) => users.getByRole("combobox", { name: `Role of ${email}` });
    await roleOf(ADMIN.email).waitFor();
    expect(await roleOf(ADMIN.email).inputValue()).toBe("admin");
    await page.getByLabel("Email", { exact: true }).fill("teacher@example.com");
    await page.getByLabel(/^Password/).fill("a teacher's passphrase");
    await page.getByLabel("Role", { exact: true }).selectOption("member");
    await page.getByRole("button", { name: "Create user" }).click();
    await page
      .getByTestId("user-created")
      .getByText(/Created teacher@example\.com \(member\), id usr_\w+/)
      .waitFor();
    await roleOf("teacher@example.com").waitFor();
    expect(await roleOf("teacher@example.com").inputValue()).toBe("member");
    // Promote and demote through the role select (PATCH /v1/admin/users/{id}); the API agrees.
    const roleInApi = async () =>
      ((await v1("GET", "/admin/users?limit=100")).data as { email: string; role: string }[]).find((u) => u.email === "teacher@example.com")?.role;
    await roleOf("teacher@example.com").selectOption("admin");
    await until("teacher promoted", async () => (await roleInApi()) === "admin");
    await roleOf("teacher@example.com").selectOption("member");
    await until("teacher demoted", async () => (await roleInApi()) === "member");
    expect(await users.locator("tbody tr").first().getAttribute("data-user")).toBe("teacher@example.com"); // newest first
    await page.getByRole("region", { name: "Users" }).screenshot({ path: path.join(shots, "admin-users.png") });
    // The same email again: 409, shown in words.
    await page.getByLabel("Email", { exact: true }).fill("teacher@example.com");
    await page.getByLabel(/^Password/).fill("another passphrase");
    await page.getByRole("button", { name: "Create user" }).click();
    const refused = page.getByRole("alert");
    await refused.waitFor();
    expect(await refused.textContent()).toMatch(/conflict, HTTP 409\] — request id req_\w+/);
    await expectLogged(409);
    // 20 a page: with 19 more users (made through the API) there is a second page holding the first user.
    for (let i = 0; i < 19; i++) await v1("POST", "/admin/users", { email: `pupil${i}@example.com`, password: "a pupil's passphrase" });
    await nav("Home");
    await nav("Admin");
    await until("20 users", async () => (await users.locator("tbody tr").count()) === 20);
    expect(await page.getByRole("button", { name: "Previous users" }).isDisabled()).toBe(true);
    await page.getByRole("button", { name: "Next users" }).click();
    await page.getByTestId("users-page").getByText("page 2").waitFor();
    await until("1 user", async () => (await users.locator("tbody tr").count()) === 1);
    expect(await users.locator("tbody tr").first().getAttribute("data-user")).toBe(ADMIN.email); // the oldest
    expect(await page.getByRole("button", { name: "Next users" }).isDisabled()).toBe(true);
    await page.getByRole("button", { name: "Previous users" }).click();
    await until("20 users", async () => (await users.locator("tbody tr").count()) === 20);
  }, 60_000); // 19 users made through the API: each password is hashed

  test("a markdown rubric uploads and becomes ready", async () => {
    await nav("References");
    await page.getByLabel("Upload reference documents").setInputFiles(path.join(files, "rubric.md"));
    const row = page.locator('tr[data-ref="rubric"]');
    await row.getByText("ready").waitFor({ timeout: 20_000 });
    await shot("references");
  }, 30_000);

  test("a ready reference document's extracted text is shown part by part with View text", async () => {
    const row = page.locator('tr[data-ref="rubric"]');
    const view = row.getByRole("button", { name: "View text of rubric" });
    await view.focus();
    await page.keyboard.press("Enter"); // keyboard only
    const panel = page.getByTestId("reference-text");
    await panel.getByRole("heading", { name: "Text of rubric" }).waitFor();
    expect(await view.getAttribute("aria-expanded")).toBe("true");
    // Focus moves to the panel's heading; the markdown's headings name its parts.
    // (the panel takes focus just after it renders)
    for (let i = 0; i < 100 && (await page.evaluate<string>("document.activeElement?.id ?? ''")) !== "ref-text-title"; i++) await Bun.sleep(20);
    expect(await page.evaluate<string>("document.activeElement?.id ?? ''")).toBe("ref-text-title");
    await panel.getByRole("heading", { name: /Heading “Evidence”/ }).waitFor();
    const text = (await panel.textContent())!;
    expect(text).toContain("Claims are supported with concrete examples, figures or sources.");
    expect(text).toContain("The essay states a clear thesis about renewable energy");
    expect(text).toMatch(/MD · \d+ parts/);
    await panel.screenshot({ path: path.join(shots, "reference-text.png") });
    await panel.getByRole("button", { name: "Close text" }).click();
    await panel.waitFor({ state: "detached" });
    const focused = () => page.evaluate<string>("document.activeElement?.getAttribute('aria-label') ?? ''");
    for (let i = 0; i < 100 && (await focused()) !== "View text of rubric"; i++) await Bun.sleep(20);
    expect(await focused()).toBe("View text of rubric");
  });

  test("a workflow is created with the rubric, a prompt and DOCX output", async () => {
    await nav("Workflows");
    await page.getByLabel("Name").fill("Year 10 essays");
    await page.getByLabel("Prompt text").fill("Grade the essay against the rubric; quote it as evidence.");
    await page.getByRole("checkbox", { name: /rubric/ }).check();
    await page.getByLabel("Output format").selectOption("docx");
    await page.getByRole("button", { name: "Create workflow" }).click();
    await page.locator('tr[data-workflow="Year 10 essays"]').waitFor();
    await shot("workflows");
  });

  test("an essay dropped on the workflow runs to success and its evaluation shows criteria and evidence", async () => {
    await page.locator('tr[data-workflow="Year 10 essays"]').getByRole("link", { name: "Start a run" }).click();
    await page.getByLabel(/Input documents/).setInputFiles(path.join(files, "essay.txt"));
    await page.waitForURL(/\/console\/runs\/run_/);
    runId = page.url().split("/").pop()!;
    await page.getByTestId("run-status").getByText("succeeded").waitFor({ timeout: 30_000 });
    await page.getByRole("heading", { name: "Evaluation" }).waitFor();
    const score = Number(await page.getByTestId("score").textContent());
    expect(score).toBeGreaterThanOrEqual(0);
    expect(score).toBeLessThanOrEqual(100);
    expect(await page.locator("article.criterion").count()).toBeGreaterThan(0);
    expect(await page.locator("article.criterion button.quote").count()).toBeGreaterThan(0);
    await shot("run", false);
  }, 45_000);

  test("clicking an evidence quote shows it highlighted in its document's text, with the document and the place named", async () => {
    const quote = page.locator("article.criterion button.quote").first();
    const text = (await quote.textContent())!.trim();
    await quote.focus();
    await page.keyboard.press("Enter"); // keyboard only
    const context = page.getByTestId("quote-context");
    await context.waitFor();
    expect(await quote.getAttribute("aria-expanded")).toBe("true");
    // The text comes from GET /v1/documents/{id}/text: the quote is marked inside the text around it.
    const mark = context.getByTestId("passage").locator("mark");
    await mark.waitFor();
    expect((await mark.textContent())!.trim()).toBe(text);
    const passage = (await context.getByTestId("passage").textContent())!;
    expect(passage.length).toBeGreaterThan(text.length);
    const flat = (s: string) => s.replace(/\s+/g, " ").trim();
    expect(flat(ESSAY)).toContain(flat(passage)); // the essay's own text, not just the quote
    expect(flat(passage)).toContain("Renewable energy is the most practical path");
    // The marked quote is scrolled into view, and the passage box takes keyboard focus to scroll.
    expect(await mark.isVisible()).toBe(true);
    const [markBox, passageBox] = [await mark.boundingBox(), await context.getByTestId("passage").boundingBox()];
    expect(markBox!.y).toBeGreaterThanOrEqual(passageBox!.y);
    expect(markBox!.y + markBox!.height).toBeLessThanOrEqual(passageBox!.y + passageBox!.height);
    expect(await context.getByTestId("passage").getAttribute("tabindex")).toBe("0");
    // The document's metadata comes from GET /v1/documents/{id}: its file name heads the panel.
    await context.getByRole("heading", { name: /In essay\.txt — / }).waitFor();
    expect(await context.textContent()).toContain("text/plain");
    await context.screenshot({ path: path.join(shots, "quote.png") });
    await context.getByRole("button", { name: "Close" }).click();
    await context.waitFor({ state: "detached" });
  });

  test("the run's output file downloads as a DOCX", async () => {
    const [download] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: /Download output/ }).click()]);
    expect(download.suggestedFilename()).toMatch(/\.docx$/);
    const bytes = await Bun.file((await download.path())!).bytes();
    expect(String.fromCharCode(bytes[0], bytes[1])).toBe("PK"); // a DOCX is a ZIP
  });

  test("a workflow is made from a template and a generated prompt, with an output schema checked as you type", async () => {
    await nav("Workflows");
    const form = page.locator("form", { has: page.getByRole("heading", { name: "New workflow" }) });
    await form.getByLabel("Name", { exact: true }).fill("Contract review");
    // A template fills the prompt.
    const templates = form.getByLabel("Start from a template");
    const first = await templates.locator("option").nth(1).getAttribute("value");
    await templates.selectOption(first!);
    expect((await form.getByLabel("Prompt text").inputValue()).length).toBeGreaterThan(20);
    // A prompt generated from a goal replaces it.
    await form.getByLabel("Or generate one from a goal").fill("Check supplier contracts for a termination clause");
    await form.getByLabel("Category").selectOption("legal");
    const before = await form.getByLabel("Prompt text").inputValue();
    await form.getByRole("button", { name: "Generate prompt" }).click();
    await until("a generated prompt", async () => (await form.getByLabel("Prompt text").inputValue()) !== before);
    expect(await form.getByLabel("Prompt text").inputValue()).toContain("termination");
    // The schema box answers as you type.
    const schema = form.getByLabel(/Output schema/);
    const check = form.getByTestId("schema-check");
    await schema.fill('{"type": "object", "properties": {');
    expect(await check.textContent()).toMatch(/^Not valid JSON/);
    expect(await form.getByRole("button", { name: "Create workflow" }).isDisabled()).toBe(true);
    await schema.fill('{"type": "array"}');
    expect(await check.textContent()).toContain("must describe an object");
    // Valid JSON the server refuses: its answer is shown in words with the request id.
    await schema.fill('{"type": "object", "properties": {"clause": {"type": "no-such-type"}}}');
    expect(await check.textContent()).toMatch(/^Valid JSON/);
    await form.getByLabel("Output format").selectOption("json");
    await form.getByLabel("Model policy").selectOption("hybrid");
    await form.getByRole("button", { name: "Create workflow" }).click();
    const refused = form.getByRole("alert");
    await refused.waitFor();
    expect(await refused.textContent()).toMatch(/HTTP 400\] — request id req_\w+/);
    await expectLogged(400);
    await schema.fill('{"type": "object", "required": ["clause"], "properties": {"clause": {"type": "string"}, "risk": {"type": "string"}}}');
    expect(await check.textContent()).toContain("2 properties (clause, risk), 1 required");
    await form.getByRole("button", { name: "Create workflow" }).click();
    const row = page.locator('tr[data-workflow="Contract review"]');
    await row.waitFor();
    expect(await row.textContent()).toContain("hybrid");
    expect(await row.textContent()).toContain("own output schema");
    await shot("workflow-new");
    // Edit: the name and the schema change; pause and resume.
    await row.getByRole("button", { name: "Edit Contract review" }).click();
    const edit = page.locator("form", { has: page.getByRole("heading", { name: "Edit Contract review" }) });
    expect(await edit.getByLabel(/Output schema/).inputValue()).toContain('"clause"');
    await edit.getByLabel("Name", { exact: true }).fill("Contract review v2");
    await edit.getByRole("button", { name: "Save changes" }).click();
    await edit.getByRole("status").getByText("Saved Contract review v2.").waitFor();
    await edit.getByRole("button", { name: "Close" }).click();
    const renamed = page.locator('tr[data-workflow="Contract review v2"]');
    await renamed.getByRole("button", { name: "Pause Contract review v2" }).click();
    await renamed.getByText("paused").waitFor();
    await renamed.getByRole("button", { name: "Resume Contract review v2" }).click();
    await renamed.getByText("active").waitFor();
    // A schema inferred from a sample output file instead of typed (output_schema_sample_id).
    writeFileSync(path.join(files, "sample.json"), JSON.stringify({ score: 80, summary: "Clear", flags: ["late"] }));
    await form.getByLabel("Name", { exact: true }).fill("From a sample");
    await form.getByLabel(/sample output/).setInputFiles(path.join(files, "sample.json"));
    await form.getByTestId("sample-picked").waitFor();
    await form.getByRole("button", { name: "Create workflow" }).click();
    await page.locator('tr[data-workflow="From a sample"]').waitFor();
    const all = (await v1("GET", "/workflows?limit=100")).data as { name: string; output_schema: { properties?: object } | null }[];
    const inferred = all.find((w) => w.name === "From a sample")?.output_schema;
    expect(Object.keys(inferred?.properties ?? {}).sort()).toEqual(["flags", "score", "summary"]);
  }, 30_000);

  test("the runs list filters by status and links to the run; the home page shows it", async () => {
    await nav("Runs");
    await page.getByLabel("Status").selectOption("succeeded");
    await page.getByRole("link", { name: runId }).waitFor();
    await page.getByLabel("Status").selectOption("failed");
    await page.getByText("No runs yet.").waitFor();
    await page.getByLabel("Status").selectOption("");
    await shot("runs");
    await nav("Home");
    await page.getByRole("link", { name: runId }).waitFor();
    await shot("home");
  });

  test("the home page charts runs and credits per day for 30 days", async () => {
    const chart = page.getByTestId("usage-chart");
    await chart.waitFor();
    expect(await chart.locator("rect.bar-runs").count()).toBe(30);
    expect(await chart.locator("rect.bar-credits").count()).toBe(30);
    expect(await chart.getAttribute("aria-label")).toMatch(/: 1 runs, [\d.]+ credits$/);
    // Today's bar (the last) is the full height: the only day with a run.
    expect(Number(await chart.locator("rect.bar-runs").last().getAttribute("height"))).toBeGreaterThan(100);
    await page.getByRole("heading", { name: "Credits used this month" }).waitFor();
  });

  test("a quote in a document with parts opens at its part: the heading named, that part's text shown, the quote marked", async () => {
    writeFileSync(path.join(files, "essay.md"), ESSAY_MD);
    await nav("Workflows");
    await page.locator('tr[data-workflow="Year 10 essays"]').getByRole("link", { name: "Start a run" }).click();
    await page.getByLabel(/Input documents/).setInputFiles(path.join(files, "essay.md"));
    await page.waitForURL((url) => /\/console\/runs\/run_/.test(url.pathname) && !url.pathname.endsWith(runId));
    await page.getByTestId("run-status").getByText("succeeded").waitFor({ timeout: 30_000 });
    const quote = page.locator("article.criterion button.quote").first();
    const text = (await quote.textContent())!.trim();
    await quote.click();
    const context = page.getByTestId("quote-context");
    const heading = (await context.getByRole("heading", { name: /In essay\.md — heading “/ }).textContent())!;
    const part = /heading “(.+)”/.exec(heading)![1];
    const passage = context.getByTestId("passage");
    await passage.locator("mark").waitFor();
    expect((await passage.locator("mark").textContent())!.trim()).toBe(text);
    const shown = (await passage.textContent())!;
    expect(shown).toContain(`# ${part}`); // the part's own text, from its heading on
    expect(shown.length).toBeLessThan(ESSAY_MD.length); // not the whole document
    expect(await passage.getAttribute("aria-label")).toBe(`Text of heading “${part}”`);
  }, 45_000);

  test("runs are filtered by workflow and mode, and paged with Next and Previous", async () => {
    // Six more runs with a test key (stubbed, free), on the essay the first run used.
    const run = await v1("GET", `/runs/${runId}`);
    const key = await v1("POST", "/keys", { name: "pager", mode: "test" });
    for (let i = 0; i < 6; i++) {
      await v1("POST", `/workflows/${run.workflow_id}/runs`, { mode: "async", input_documents: run.input_documents }, key.token as string);
    }
    await nav("Runs");
    const rows = page.locator('section[aria-labelledby="runs-list"] tbody tr');
    await page.getByLabel("Mode").selectOption("test");
    await page.getByLabel("Per page").selectOption("5");
    await until("5 rows", async () => (await rows.count()) === 5);
    expect(await page.getByRole("button", { name: "Previous page" }).isDisabled()).toBe(true);
    const firstPage = await rows.first().getByRole("link").textContent();
    await page.getByRole("button", { name: "Next page" }).click();
    await page.getByTestId("page-number").getByText("page 2").waitFor();
    await until("1 rows", async () => (await rows.count()) === 1);
    expect(await page.getByRole("button", { name: "Next page" }).isDisabled()).toBe(true);
    await shot("runs-paged");
    await page.getByRole("button", { name: "Previous page" }).click();
    await page.getByTestId("page-number").getByText("page 1").waitFor();
    await until("5 rows", async () => (await rows.count()) === 5);
    expect(await rows.first().getByRole("link").textContent()).toBe(firstPage);
    // By workflow: the essay workflow has them all; the contract workflow none.
    await page.getByLabel("Mode").selectOption("live");
    await page.getByRole("region", { name: "All runs" }).getByLabel("Workflow").selectOption({ label: "Year 10 essays" });
    await page.getByRole("link", { name: runId }).waitFor();
    await page.getByRole("region", { name: "All runs" }).getByLabel("Workflow").selectOption({ label: "Contract review v2" });
    await page.getByText("No runs yet.").waitFor();
    await page.getByRole("region", { name: "All runs" }).getByLabel("Workflow").selectOption("");
    await page.getByLabel("Mode").selectOption("");
    // By date: from tomorrow there is nothing; until today (its day included) the page is full again.
    const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
    await page.getByLabel("Created from").fill(day(1));
    await page.getByText("No runs yet.").waitFor();
    await page.getByLabel("Created from").fill("");
    await page.getByLabel(/^Created until/).fill(day(0));
    await until("today's runs", async () => (await rows.count()) === 5);
    await page.getByLabel(/^Created until/).fill("");
    await page.getByLabel("Per page").selectOption("20");
  }, 30_000);

  test("an API key is created with chosen scopes, its token shown once, and revoked after confirmation", async () => {
    await nav("API keys");
    await page.getByLabel("Name").fill("ci pipeline");
    await page.getByRole("radio", { name: /test/ }).check();
    await page.getByRole("checkbox", { name: "webhooks:write" }).uncheck();
    await page.getByLabel(/Rate limit/).fill("60");
    await page.getByLabel(/Expires after/).fill("2099-12-31");
    await page.getByRole("button", { name: "Create key" }).click();
    const token = await page.locator("[data-secret]").textContent();
    expect(token).toMatch(/^svc_test_/);
    const row = page.locator('tr[data-key="ci pipeline"]');
    await row.getByText("active").waitFor();
    expect(await row.textContent()).not.toContain("webhooks:write");
    expect(await row.textContent()).toContain("60/min");
    expect(await row.textContent()).toContain("expires");
    expect(await row.textContent()).toContain("never"); // not used yet
    await shot("keys");
    // The key works against the API, then stops working once revoked.
    const me = () => fetch(`${base}/v1/auth/me`, { headers: { authorization: `Bearer ${token}` } });
    expect((await me()).status).toBe(200);
    page.once("dialog", (d) => d.accept());
    await row.getByRole("button", { name: "Revoke ci pipeline" }).click();
    await row.getByText("revoked").waitFor();
    expect((await me()).status).toBe(401);
  });

  test("a webhook endpoint is created (secret shown once); a failed delivery shows its attempt and is retried now", async () => {
    await nav("Webhooks");
    await page.getByLabel("URL").fill(`${receiverUrl}/hook`);
    await page.getByRole("button", { name: "Create endpoint" }).click();
    expect(await page.locator("[data-secret]").textContent()).toMatch(/^whsec_/);
    // An event: a reference document becomes ready; the receiver refuses it first.
    receiverStatus = 500;
    await nav("References");
    writeFileSync(path.join(files, "notes.txt"), "Notes that are not needed.");
    await page.getByLabel("Upload reference documents").setInputFiles(path.join(files, "notes.txt"));
    await page.locator('tr[data-ref="notes"]').getByText("ready").waitFor({ timeout: 20_000 });
    await nav("Webhooks");
    await page.getByRole("button", { name: `Deliveries to ${receiverUrl}/hook` }).click();
    const delivery = page.locator("ul.deliveries > li").first();
    await delivery.getByText(/: 500 in \d+ ms/).waitFor({ timeout: 15_000 });
    receiverStatus = 200;
    await delivery.getByRole("button", { name: "Retry now" }).click();
    await delivery.getByText("succeeded").waitFor();
    // Its payload, as sent (GET …/deliveries/{id}).
    await delivery.getByRole("button", { name: "Show payload" }).click();
    await delivery
      .locator("pre.payload")
      .getByText(/"type": "reference_document.ready"/)
      .waitFor();
    expect(await delivery.getByText(/: 200 in \d+ ms/).count()).toBe(1);
    await shot("webhooks");
    // Edit the events; pause and resume the endpoint.
    const endpoint = page.locator(`tr[data-endpoint="${receiverUrl}/hook"]`);
    await endpoint.getByRole("button", { name: `Edit events of ${receiverUrl}/hook` }).click();
    await page.getByRole("group", { name: "Events" }).last().getByRole("checkbox", { name: "run.failed" }).uncheck();
    await page.getByRole("button", { name: "Save events" }).click();
    await page.getByRole("button", { name: "Save events" }).waitFor({ state: "detached" });
    // The list reloads after the save: wait for it rather than read it at once.
    await until("the saved events", async () => !(await endpoint.textContent())!.includes("run.failed"));
    await endpoint.getByRole("button", { name: `Pause ${receiverUrl}/hook` }).click();
    await endpoint.getByText("disabled").waitFor();
    await endpoint.getByRole("button", { name: `Resume ${receiverUrl}/hook` }).click();
    await endpoint.getByText("active").waitFor();
  }, 45_000);

  test("a workflow is archived, restored and deleted; a reference document is deleted", async () => {
    await nav("Workflows");
    await page.getByLabel("Name").fill("Scratch");
    await page.getByRole("button", { name: "Create workflow" }).click();
    const row = page.locator('tr[data-workflow="Scratch"]');
    await row.getByRole("button", { name: "Archive Scratch" }).click();
    await row.getByText("archived").waitFor();
    await row.getByRole("button", { name: "Restore Scratch" }).click();
    await row.getByText("active").waitFor();
    page.once("dialog", (d) => d.accept());
    await row.getByRole("button", { name: "Delete Scratch" }).click();
    await row.waitFor({ state: "detached" });

    await nav("References");
    const ref = page.locator('tr[data-ref="notes"]');
    page.once("dialog", (d) => d.accept());
    await ref.getByRole("button", { name: "Delete notes" }).click();
    await ref.waitFor({ state: "detached" });
  }, 30_000);

  test("readable at 360 px wide (no sideways scrolling) and in dark mode", async () => {
    await page.setViewportSize({ width: 360, height: 800 });
    for (const href of ["/console", `/console/runs/${runId}`, "/console/workflows", "/console/keys", "/console/references", "/console/admin"]) {
      await page.goto(`${base}${href}`);
      await page.locator("main h1").waitFor();
      await page.waitForLoadState("networkidle");
      // Browser-side expressions as strings: this file is type-checked without the DOM library.
      const overflow = await page.evaluate<number>("document.documentElement.scrollWidth - document.documentElement.clientWidth");
      expect(overflow, href).toBeLessThanOrEqual(0);
    }
    await page.goto(`${base}/console/runs/${runId}`);
    await page.getByRole("heading", { name: "Evaluation" }).waitFor();
    await shot("run-360", false);
    await page.emulateMedia({ colorScheme: "dark" });
    await page.setViewportSize({ width: 1100, height: 800 });
    const background = await page.evaluate<string>("getComputedStyle(document.body).backgroundColor");
    expect(background).toBe("rgb(13, 17, 23)");
    await shot("run-dark", false);
    await page.emulateMedia({ colorScheme: "light" });
  }, 30_000);

  test("an admin refunds the succeeded run; a second refund is refused in words", async () => {
    await page.goto(`${base}/console/admin`);
    await page.getByLabel("Run id").fill(runId);
    page.once("dialog", (d) => d.accept());
    await page.getByRole("button", { name: "Refund" }).click();
    await page.getByRole("status").getByText(`Run ${runId} is now refunded`).waitFor();
    await shot("admin-refund");
    page.once("dialog", (d) => d.accept());
    await page.getByRole("button", { name: "Refund" }).click();
    expect(await page.getByRole("alert").textContent()).toMatch(/invalid_state, HTTP 409\] — request id req_\w+/);
    await expectLogged(409);
    // The runs list shows it refunded.
    await nav("Runs");
    await page.getByLabel("Status").selectOption("refunded");
    await page.getByRole("link", { name: runId }).waitFor();
  });

  test("logging out returns to the sign-in page and forgets the session", async () => {
    await page.getByRole("button", { name: "Log out" }).click();
    await page.getByRole("heading", { name: "Sign in to Assay" }).waitFor();
    await page.reload();
    await page.getByRole("heading", { name: "Sign in to Assay" }).waitFor();
  });

  test("no errors appeared in the browser console along the way", () => {
    expect(browserErrors).toEqual([]);
  });

  test("an API error is shown in words with its request id (wrong password, bad setup token)", async () => {
    const other = await context.newPage();
    await other.goto(`${base}/console`);
    await other.getByLabel("Email").fill(ADMIN.email);
    await other.getByLabel("Password").fill("not the password");
    await other.getByRole("button", { name: "Sign in" }).click();
    const alert = other.getByRole("alert");
    await alert.waitFor();
    expect(await alert.textContent()).toMatch(/invalid_credentials, HTTP 401\] — request id req_\w+/);
    await other.screenshot({ path: path.join(shots, "login-error.png") });
    // The setup page posts to POST /v1/auth/setup; whatever the answer (no such endpoint yet, a refused token, setup
    // closed), it is shown with its request id.
    await other.goto(`${base}/console/setup?token=not-a-real-token`);
    await other.getByLabel("Email").fill("first@example.com");
    await other.getByLabel("Password", { exact: true }).fill("a long enough passphrase");
    expect(await other.locator("#setup-strength").textContent()).not.toBe("");
    await other.getByLabel("Password again").fill("a long enough passphrase");
    await other.getByRole("button", { name: "Create administrator" }).click();
    await other.getByRole("alert").waitFor();
    expect(await other.getByRole("alert").textContent()).toMatch(/request id req_\w+/);
    await other.screenshot({ path: path.join(shots, "setup.png") });
    await other.close();
  });
});
