// The compiled executable: built with `npm run build`, started from an empty directory (no source, no node_modules),
// it migrates a fresh database, answers /v1/health, serves its own docs UI and extracts through its worker.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { copyFileSync, existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { CORPUS, tempDir } from "../helpers";

const root = path.resolve(import.meta.dir, "../..");
let dir: string;
let bin: string;
let server: Bun.Subprocess<"ignore", "pipe", "inherit"> | null = null;
let base = "";

beforeAll(async () => {
  const build = Bun.spawnSync([process.execPath, "run", "scripts/build.ts"], { cwd: root, stdout: "pipe", stderr: "pipe" });
  if (build.exitCode !== 0) throw new Error(`build failed: ${build.stderr.toString()}`);
  dir = tempDir("assay-bin-");
  bin = path.join(dir, "assay");
  copyFileSync(path.join(root, "dist/assay"), bin);
  Bun.spawnSync(["chmod", "+x", bin]);
  server = Bun.spawn([bin, "serve", "--port", "0", "--data-dir", path.join(dir, "data")], {
    cwd: dir,
    env: { PATH: process.env.PATH ?? "", ASSAY_ADMIN_EMAIL: "ops@example.com", ASSAY_ADMIN_PASSWORD: "binary-password" },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "inherit",
  });
  const reader = server!.stdout.getReader();
  let out = "";
  const deadline = Date.now() + 20_000;
  // The startup log line (JSON, stdout is a pipe) names the address.
  const listening = /"url":"(http:\/\/[^"]+)\/v1"/;
  while (!listening.test(out)) {
    if (Date.now() > deadline) throw new Error(`no start: ${out}`);
    const { value, done } = await reader.read();
    if (done) throw new Error(`exited: ${out}`);
    out += new TextDecoder().decode(value);
  }
  base = listening.exec(out)![1];
}, 180_000);

afterAll(() => server?.kill());

test("starts healthy from an empty directory with migrations applied", async () => {
  expect(existsSync(path.join(dir, "node_modules"))).toBe(false);
  const health = await (await fetch(`${base}/v1/health`)).json();
  expect(health).toMatchObject({ status: "ok", checks: { database: { status: "ok" }, data_dir: { status: "ok" } } });
});

test("an admin logs in, creates a key and lists products", async () => {
  const login: any = await (
    await fetch(`${base}/v1/auth/login`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: "ops@example.com", password: "binary-password" }),
    })
  ).json();
  const key: any = await (
    await fetch(`${base}/v1/keys`, {
      method: "POST",
      headers: { authorization: `Bearer ${login.token}`, "content-type": "application/json" },
      body: JSON.stringify({ name: "bin" }),
    })
  ).json();
  const products: any = await (await fetch(`${base}/v1/products`, { headers: { authorization: `Bearer ${key.token}` } })).json();
  expect(products.data.length).toBeGreaterThanOrEqual(5);
});

test("a multipart reference upload streams through the binary and is indexed", async () => {
  const login: any = await (
    await fetch(`${base}/v1/auth/login`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: "ops@example.com", password: "binary-password" }),
    })
  ).json();
  const key: any = await (
    await fetch(`${base}/v1/keys`, {
      method: "POST",
      headers: { authorization: `Bearer ${login.token}`, "content-type": "application/json" },
      body: JSON.stringify({ name: "bin2" }),
    })
  ).json();
  const form = new FormData();
  form.set("name", "Rubric");
  form.set("file", new File([readFileSync(path.join(CORPUS, "docx/tika-testWORD.docx"))], "rubric.docx"));
  const created: any = await (
    await fetch(`${base}/v1/reference-documents`, { method: "POST", headers: { authorization: `Bearer ${key.token}` }, body: form })
  ).json();
  expect(created.status).toBe("processing");
  let status = created.status;
  for (let i = 0; i < 100 && status === "processing"; i++) {
    await Bun.sleep(100);
    status = (
      (await (await fetch(`${base}/v1/reference-documents/${created.id}`, { headers: { authorization: `Bearer ${key.token}` } })).json()) as any
    ).status;
  }
  expect(status).toBe("ready");
});

test("the docs UI is served from the binary", async () => {
  const page = await (await fetch(`${base}/docs`)).text();
  const js = await fetch(`${base}/docs/assets/swagger-ui-bundle.js`);
  expect(page).toContain("/docs/assets/swagger-ui-bundle.js");
  expect(js.status).toBe(200);
  expect((await js.text()).length).toBeGreaterThan(100_000);
  expect(((await (await fetch(`${base}/v1/openapi.json`)).json()) as any).openapi).toMatch(/^3\.1/);
});

test("the web console is served from the binary (embedded with --asset), with its CSP", async () => {
  const page = await fetch(`${base}/console`);
  expect(page.headers.get("content-security-policy")).toContain("default-src 'self'");
  const html = await page.text();
  const js = /src="(\/console\/[^"]+\.js)"/.exec(html)![1];
  const asset = await fetch(`${base}${js}`);
  expect(asset.status).toBe(200);
  expect(asset.headers.get("cache-control")).toContain("immutable");
  expect((await asset.text()).length).toBeGreaterThan(10_000);
});

test("extraction runs in the worker inside the binary", () => {
  const manifest = JSON.parse(readFileSync(path.join(CORPUS, "manifest.json"), "utf8")) as { file: string; expected_phrases?: string[] }[];
  for (const entry of manifest.filter((e) => /\.(pdf|docx|xlsx|pptx)$/.test(e.file)).slice(0, 4)) {
    const res = Bun.spawnSync([bin, "extract", path.join(CORPUS, entry.file)], { cwd: dir, stdout: "pipe", stderr: "pipe" });
    expect(res.exitCode).toBe(0);
    const text = res.stdout.toString().replace(/\s+/g, " ");
    expect(text).toContain(entry.expected_phrases![0].replace(/\s+/g, " "));
  }
}, 60_000);

test("a test key's run with a custom output schema gets its stub from the compute worker inside the binary", async () => {
  const post = async (p: string, token: string | null, body: unknown) =>
    (await (
      await fetch(`${base}/v1${p}`, {
        method: "POST",
        headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
        body: JSON.stringify(body),
      })
    ).json()) as any;
  const session = (await post("/auth/login", null, { email: "ops@example.com", password: "binary-password" })).token;
  const key = (await post("/keys", session, { name: "stub", mode: "test" })).token;
  const schema = {
    type: "object",
    properties: { grade: { type: "string", enum: ["A", "B"] }, points: { type: "integer" } },
    required: ["grade", "points"],
  };
  const wf = await post("/workflows", key, { product_code: "general", name: "stubbed", output_schema: schema });
  const doc = await post("/documents", key, { filename: "a.txt", mime_type: "text/plain" });
  await fetch(doc.upload_url.replace(/^http:\/\/[^/]+/, base), { method: "PUT", headers: { "content-type": "text/plain" }, body: "an essay" });
  await post(`/documents/${doc.id}/complete`, key, {});
  const run = await post(`/workflows/${wf.id}/runs`, key, { input_documents: [doc.id] });
  let status = run.status;
  let output: any = null;
  for (let i = 0; i < 100 && (status === "queued" || status === "running"); i++) {
    await Bun.sleep(100);
    const now: any = await (await fetch(`${base}/v1/runs/${run.id}`, { headers: { authorization: `Bearer ${key}` } })).json();
    status = now.status;
    output = now.output;
  }
  expect(status).toBe("succeeded");
  expect(["A", "B"]).toContain(output.grade);
  expect(Number.isInteger(output.points)).toBe(true);
}, 30_000);

/** Logs in as the bootstrap admin, makes a live key and runs `text` through a workflow; answers the finished run. */
async function liveRun(workflow: Record<string, unknown>, text: string) {
  const post = async (p: string, token: string | null, body: unknown) =>
    (await (
      await fetch(`${base}/v1${p}`, {
        method: "POST",
        headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
        body: JSON.stringify(body),
      })
    ).json()) as any;
  const session = (await post("/auth/login", null, { email: "ops@example.com", password: "binary-password" })).token;
  const key = (await post("/keys", session, { name: "live" })).token;
  const wf = await post("/workflows", key, { product_code: "general", ...workflow });
  const doc = await post("/documents", key, { filename: "note.txt", mime_type: "text/plain" });
  await fetch(doc.upload_url.replace(/^http:\/\/[^/]+/, base), { method: "PUT", headers: { "content-type": "text/plain" }, body: text });
  await post(`/documents/${doc.id}/complete`, key, {});
  const run = await post(`/workflows/${wf.id}/runs`, key, { input_documents: [doc.id] });
  let now: any = run;
  for (let i = 0; i < 100 && (now.status === "queued" || now.status === "running"); i++) {
    await Bun.sleep(100);
    now = await (await fetch(`${base}/v1/runs/${run.id}`, { headers: { authorization: `Bearer ${key}` } })).json();
  }
  return now;
}

test("a live key's run is evaluated by the local evaluator inside the binary, spelling checked against its embedded word list", async () => {
  const now = await liveRun(
    {
      name: "spelling",
      user_prompt: "Check the note.\n\n- Spelling: every word is spelled correctly.\n- Punctuation: every sentence ends with a full stop.",
    },
    "We recieved the pakage yesterday and it was definately late. The box was wet and the lable was torn.",
  );
  expect(now.status).toBe("succeeded");
  expect(now.usage.model).toBe("local");
  expect(JSON.stringify(now.output)).toContain("4 of 17 lower-case words not in the English word list");
}, 30_000);

// The renderers are loaded on first use from chunks of the executable (built with --splitting): each must load there.
test.each([
  ["docx", "PK", "word/document.xml"],
  ["xlsx", "PK", "xl/workbook.xml"],
])(
  "a run's %s output file is rendered inside the binary",
  async (format, magic, part) => {
    const now = await liveRun(
      { name: `report ${format}`, output_format: format, user_prompt: "Review the note.\n\n- Clarity: the note says what happened." },
      "The parcel arrived two days late. The box was wet and the label was torn, but the contents were intact.",
    );
    expect(now.status).toBe("succeeded");
    const file = await fetch(now.output_file.url.replace(/^http:\/\/[^/]+/, base));
    expect(file.status).toBe(200);
    const bytes = new Uint8Array(await file.arrayBuffer());
    expect(new TextDecoder().decode(bytes.subarray(0, 2))).toBe(magic);
    expect(new TextDecoder("latin1").decode(bytes)).toContain(part);
  },
  30_000,
);
