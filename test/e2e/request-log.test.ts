// The log of the real server (a child process, stdout not a terminal): every line is one JSON object; one line per
// request with its id, route pattern, status, duration and caller; the startup line shows the configuration with its
// secrets masked; no token, password or secret appears anywhere; ASSAY_LOG_LEVEL=warn drops the request lines.
import { expect, test } from "bun:test";
import { spawn } from "node:child_process";
import path from "node:path";
import { freePort, spawnServer, tempDir, untilHealthy } from "../helpers";

const PASSWORD = "log-test-password";
const JSON_TYPE = { "content-type": "application/json" };
const SECRET = "s3cr3t-value-that-must-not-leak-0123456789";

async function session(level: string, requests: (base: string, auth: { session: string; key: string }) => Promise<string[]>) {
  const port = freePort();
  const base = `http://127.0.0.1:${port}/v1`;
  const env = {
    ASSAY_DATA_DIR: tempDir("assay-log-"),
    ASSAY_ADMIN_EMAIL: "log@example.com",
    ASSAY_ADMIN_PASSWORD: PASSWORD,
    ASSAY_SECRET: SECRET,
    ASSAY_LOG_LEVEL: level,
  };
  const child = await spawnServer(port, env, "pipe");
  const login: any = await (
    await fetch(`${base}/auth/login`, {
      method: "POST",
      headers: JSON_TYPE,
      body: JSON.stringify({ email: env.ASSAY_ADMIN_EMAIL, password: PASSWORD }),
    })
  ).json();
  const key: any = await (
    await fetch(`${base}/keys`, {
      method: "POST",
      headers: { ...JSON_TYPE, authorization: `Bearer ${login.token}` },
      body: JSON.stringify({ name: "k" }),
    })
  ).json();
  const ids = await requests(base, { session: login.token, key: key.token });
  child.kill("SIGTERM");
  const out = await new Response(child.stdout as ReadableStream).text();
  await child.exited;
  return { out, ids, secrets: [PASSWORD, SECRET, login.token as string, key.token as string] };
}

test("one JSON line per request and event, with ids and no secrets", async () => {
  const { out, ids, secrets } = await session("info", async (base, auth) => {
    const products = await fetch(`${base}/products`, { headers: { authorization: `Bearer ${auth.key}` } });
    const missing = await fetch(`${base}/runs/run_00000000000000000000000`, { headers: { authorization: `Bearer ${auth.session}` } });
    const denied = await fetch(`${base}/products`, { headers: { authorization: "Bearer svc_live_not_a_real_key" } });
    return [products, missing, denied].map((r) => r.headers.get("x-request-id") ?? "");
  });
  const lines = out.split("\n").filter(Boolean);
  const records = lines.map((l) => JSON.parse(l)); // throws on any line that is not JSON
  for (const r of records) {
    expect(typeof r.time).toBe("string");
    expect(["debug", "info", "warn", "error"]).toContain(r.level);
  }
  for (const secret of secrets) expect(out).not.toContain(secret);

  const startup = records.find((r) => r.msg === "Assay listening");
  expect(startup.config.secret).toBe("[redacted]"); // the redaction net catches it before the mask does
  expect(startup.config.adminPassword).toBe("[redacted]");
  expect(startup.config.port).toBeGreaterThan(0);

  const byId = (id: string) => records.find((r) => r.request_id === id);
  const products = byId(ids[0]);
  if (!products) console.error(`no line for ${ids[0]} in the server's output:\n${out}`); // seen once in CI, not reproduced
  expect(products).toMatchObject({ method: "GET", route: "/v1/products", status: 200 });
  expect(products.key_id).toMatch(/^key_/);
  expect(products.user_id).toMatch(/^usr_/);
  expect(products.workspace_id).toMatch(/^ws_/);
  expect(products.duration_ms).toBeGreaterThanOrEqual(0);
  const missing = byId(ids[1]);
  expect(missing).toMatchObject({ route: "/v1/runs/:run_id", status: 404 });
  expect(missing.key_id).toBeUndefined(); // a session: the user, no key
  expect(missing.user_id).toMatch(/^usr_/);
  expect(byId(ids[2])).toMatchObject({ route: "/v1/products", status: 401 });
  expect(byId(ids[2]).user_id).toBeUndefined();
  expect(records.some((r) => r.msg === "stopped")).toBe(true);
}, 30_000);

test("ASSAY_LOG_LEVEL=warn keeps the warnings and drops the request lines", async () => {
  const { out } = await session("warn", async (base, auth) => {
    await fetch(`${base}/products`, { headers: { authorization: `Bearer ${auth.key}` } });
    return [];
  });
  const records = out
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l));
  expect(records.filter((r) => r.request_id)).toEqual([]);
  expect(records.every((r) => r.level === "warn" || r.level === "error")).toBe(true);
}, 30_000);

test("on a terminal the log is readable lines, not JSON", async () => {
  const port = freePort();
  const cmd = [process.execPath, "src/main.ts", "serve", "--port", String(port), "--data-dir", tempDir("assay-tty-")].join(" ");
  // script(1) runs the server on a pseudo-terminal (util-linux, on every Debian machine).
  const child = Bun.spawn(["script", "-qfec", cmd, "/dev/null"], {
    cwd: `${import.meta.dir}/../..`,
    stdout: "pipe",
    stderr: "ignore",
    stdin: "pipe",
  });
  let out = "";
  const reader = (child.stdout as ReadableStream<Uint8Array>).getReader();
  const deadline = Date.now() + 15_000;
  while (!out.includes("Assay listening") && Date.now() < deadline) {
    const { value, done } = await reader.read();
    if (done) break;
    out += new TextDecoder().decode(value);
  }
  child.kill("SIGKILL");
  Bun.spawnSync(["pkill", "-f", `serve --port ${port} `]); // the server under script(1) outlives script itself
  const line = out.split("\n").find((l) => l.includes("Assay listening")) ?? "";
  expect(line).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] .*INFO.*: .*Assay listening/);
  expect(line.trimStart().startsWith("{")).toBe(false);
}, 30_000);

test("a log reader that stops reading never stalls the server: the lines wait and all arrive", async () => {
  const port = freePort();
  const dir = tempDir("assay-log-stall-");
  const outFile = `${dir}/out.log`;
  // The log goes into a pipe whose reader sleeps first; 3,000 request lines (about 500 kB) fill it many times over.
  const server = `"${process.execPath}" src/main.ts serve --port ${port} --data-dir "${dir}/data"`;
  const child = Bun.spawn(["sh", "-c", `${server} | { sleep 10; cat > "${outFile}"; }`], {
    cwd: `${import.meta.dir}/../..`,
    env: { ...process.env, ASSAY_ADMIN_EMAIL: "stall@example.com", ASSAY_ADMIN_PASSWORD: PASSWORD },
    stdout: "ignore",
    stderr: "ignore",
  });
  expect(await untilHealthy(port, child)).toBe(true);
  const base = `http://127.0.0.1:${port}/v1`;
  const statuses: number[] = [];
  for (let batch = 0; batch < 150; batch++) {
    const answers = await Promise.all(Array.from({ length: 20 }, () => fetch(`${base}/health`)));
    for (const a of answers) {
      statuses.push(a.status);
      await a.arrayBuffer();
    }
  }
  // Every request was answered while the reader still slept (it has not opened its file yet).
  expect(statuses.filter((s) => s === 200).length).toBe(3000);
  expect(await Bun.file(outFile).exists()).toBe(false);
  // The server alone (anchored at its own command line; the shell's starts with "sh -c").
  Bun.spawnSync(["pkill", "-TERM", "-f", `^${process.execPath} src/main.ts serve --port ${port} `]);
  await child.exited;
  const lines = (await Bun.file(outFile).text()).split("\n").filter(Boolean);
  expect(lines.filter((l) => l.includes('"route":"/v1/health"')).length).toBeGreaterThanOrEqual(3000);
  expect(lines.at(-1)).toContain('"msg":"stopped"');
}, 60_000);

test("a log reader that goes away (its end of the pipe closed) takes the log with it, not the server's clean stop", async () => {
  const port = freePort();
  const base = `http://127.0.0.1:${port}/v1`;
  const child = spawn(process.execPath, ["src/main.ts", "serve"], {
    cwd: path.resolve(import.meta.dir, "../.."),
    env: { ...process.env, ASSAY_PORT: String(port), ASSAY_DATA_DIR: tempDir("assay-log-gone-"), ASSAY_LOG_LEVEL: "info" },
    stdio: ["ignore", "pipe", "ignore"],
  });
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  expect(await untilHealthy(port)).toBe(true);
  for (let i = 0; i < 20; i++) expect((await fetch(`${base}/health`)).status).toBe(200); // lines nobody reads
  // Stopped as a supervisor that dies with it would: the signal, then its end of the pipe closed. The stop's last
  // lines fail with EPIPE; they used to fail the stop with them (exit 1 and a stack trace).
  child.kill("SIGTERM");
  child.stdout?.destroy();
  expect(await exited).toBe(0);
}, 30_000);
