// `assay calibrate` end to end: a real server process, a small graded folder written here (documents + scores.csv),
// the command as a real process; the agreement figures it prints and its exit codes (0 done, 1 failures, 2 usage).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { AssayApi } from "../../src/calibrate";
import { freePort, spawnServer, tempDir } from "../helpers";

const root = path.resolve(import.meta.dir, "../..");
const port = freePort();
const url = `http://127.0.0.1:${port}`;
let child: ReturnType<typeof Bun.spawn> | null = null;
let key = "";
let workflowId = "";
const graded = tempDir("assay-graded-");

const RUBRIC = `# Story rubric

## Task
Write a story about a time you or someone you know was patient.

## Traits

### Ideas
- 3: Tells a clearly focused story about patience with well chosen, vivid details.
- 2: Tells a story about patience that is adequately focused, with some details.
- 1: Tells a story with little focus and few details.
- 0: No story, or off the task.

### Conventions
- 3: Consistent, accurate spelling, punctuation and grammar.
- 2: Adequate command of spelling, punctuation and grammar.
- 1: Limited command of spelling, punctuation and grammar.
- 0: Little or no command of spelling, punctuation and grammar.
`;

const STORIES: [string, string, number, number, number][] = [
  [
    "strong.txt",
    "My grandmother taught me patience at the bus stop on Elm Street. The bus was forty minutes late and the rain would not stop. " +
      "Instead of complaining, she told me how she once waited three days for a letter from my grandfather, reading the old ones " +
      "again each evening by the window. When the bus finally came, she smiled and said that waiting is just time you have not used yet. " +
      "Since that afternoon, whenever I have to wait for something, I remember her calm voice and the smell of the wet pavement.",
    6,
    3,
    3,
  ],
  [
    "good.md",
    "# Waiting\n\nLast summer I waited for my turn at the swimming pool. The queue was long and it was hot. " +
      "I was patient because my little brother was scared and I helped him wait. Finally we got in and it was fun.",
    4,
    2,
    2,
  ],
  ["weak.txt", "i waited for the bus it was late. i was bored and then it come.", 2, 1, 1],
  ["offtopic.txt", "Pizza is my favorite food because of the cheese.", 0, 0, 0],
];

beforeAll(async () => {
  child = await spawnServer(port, {
    ASSAY_DATA_DIR: tempDir("assay-calibrate-"),
    ASSAY_PUBLIC_URL: url,
    ASSAY_ADMIN_EMAIL: "calibrate@example.com",
    ASSAY_ADMIN_PASSWORD: "calibrate-password",
    ASSAY_LOG_LEVEL: "silent",
  });
  const api = new AssayApi(`${url}/v1`, null);
  const session = (await api.call("POST", "/auth/login", { email: "calibrate@example.com", password: "calibrate-password" })).token as string;
  key = (await api.withToken(session).call("POST", "/keys", { name: "calibrate test" })).token as string;
  const keyed = api.withToken(key);
  const form = new FormData();
  form.append("name", "rubric.md");
  form.append("file", new File([RUBRIC], "rubric.md", { type: "text/markdown" }));
  const ref = await keyed.call("POST", "/reference-documents", form);
  for (let i = 0; (await keyed.call("GET", `/reference-documents/${ref.id}`)).status !== "ready"; i++) {
    if (i > 400) throw new Error("the rubric did not become ready");
    await Bun.sleep(50);
  }
  workflowId = (
    await keyed.call("POST", "/workflows", { product_code: "education", name: "Stories", reference_document_ids: [ref.id], output_format: "json" })
  ).id as string;

  mkdirSync(path.join(graded, "essays"));
  const lines = ["file,score,max,pass,Ideas,Conventions"];
  for (const [name, text, score, ideas, conventions] of STORIES) {
    writeFileSync(path.join(graded, "essays", name), text);
    lines.push(`essays/${name},${score},6,4,${ideas},${conventions}`);
  }
  writeFileSync(path.join(graded, "scores.csv"), `${lines.join("\n")}\n`);
}, 60_000); // a server start and a reference's indexing: slow on a loaded machine

afterAll(async () => {
  child?.kill();
  await child?.exited;
});

async function calibrate(args: string[]) {
  const proc = Bun.spawn([process.execPath, "run", "src/main.ts", "calibrate", ...args], { cwd: root, stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { code, out, err };
}

describe("assay calibrate", () => {
  test("grades the folder through the server and prints the agreement figures, exit 0", async () => {
    const r = await calibrate(["--workflow", workflowId, "--graded", graded, "--url", url, "--key", key]);
    expect(r.err).toBe("");
    expect(r.code).toBe(0);
    expect(r.out).toContain(`4 documents from ${graded} through ${url}/v1, workflow ${workflowId}`);
    expect(r.out).toContain("items                     4 (human passes at ≥ 4: 2)");
    expect(r.out).toMatch(/Spearman \(score, human\)\s+-?\d\.\d{3}/);
    expect(r.out).toMatch(/word-count baseline\s+-?\d\.\d{3}/);
    expect(r.out).toMatch(/QWK on 0–6\s+/);
    expect(r.out).toMatch(/verdict agreement\s+\d+\.\d %/);
    expect(r.out).toMatch(/best pass line\s+\d+\/100 agrees on \d+\.\d % by score alone \(set it with "Pass at \d+%\." in the workflow's prompt\)/);
    expect(r.out).toContain("criterion Ideas");
    expect(r.out).toContain("criterion Conventions");
    expect(r.out).toContain("goal QWK ≥ 0.70:");
  }, 120_000);

  test("usage mistakes exit 2: a missing flag, a folder without scores.csv, a CSV naming a missing file", async () => {
    const missing = await calibrate(["--workflow", workflowId, "--key", key]);
    expect(missing.code).toBe(2);
    expect(missing.err).toContain("--graded is required");
    expect(missing.err).toContain("usage: assay calibrate");

    const empty = tempDir("assay-graded-empty-");
    const noCsv = await calibrate(["--workflow", workflowId, "--graded", empty, "--key", key, "--url", url]);
    expect(noCsv.code).toBe(2);
    expect(noCsv.err).toContain("holds no scores.csv");

    const broken = tempDir("assay-graded-broken-");
    writeFileSync(path.join(broken, "scores.csv"), "file,score\nnot-there.txt,3\nalso-missing.txt,4\n");
    const bad = await calibrate(["--workflow", workflowId, "--graded", broken, "--key", key, "--url", url]);
    expect(bad.code).toBe(2);
    expect(bad.err).toContain("line 2: not-there.txt does not exist");
  }, 60_000);

  test("failures exit 1: an unknown workflow, a server that does not answer", async () => {
    const unknown = await calibrate(["--workflow", "wf_doesnotexist", "--graded", graded, "--key", key, "--url", url]);
    expect(unknown.code).toBe(1);
    expect(unknown.err).toContain("calibrate failed");
    expect(unknown.err).toContain("404");
    const down = await calibrate(["--workflow", workflowId, "--graded", graded, "--key", key, "--url", "http://127.0.0.1:1"]);
    expect(down.code).toBe(1);
    expect(down.err).toContain("calibrate failed");
  }, 60_000);
});
