// Startup, size and memory of the compiled executable (issue 12.6), against two floors measured in the same run: a
// compiled Bun.serve that answers /v1/health and nothing else (the Bun runtime alone), and bench/stack-floor.ts (the
// libraries Assay is built on, started as Assay starts them, without Assay's code).
//   bun run bench/startup.ts [--runs N] [--no-build]
// Prints the executable's size, time from exec to the first 200 from /v1/health on an existing data dir (median of
// N starts), RSS 1 s after that (and 10 s after, once), and RSS after 1,000 authenticated requests. Goals: < 100 ms, < 60 MB idle.
import { statSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { compileLaidOut } from "../scripts/compile";
import { freePort } from "../src/lib/ports";
import { tempDir } from "../src/lib/temp-dir";

const { values } = parseArgs({ options: { runs: { type: "string", default: "7" }, "no-build": { type: "boolean", default: false } } });
const runs = Number(values.runs);
const root = path.resolve(import.meta.dir, "..");
const bin = path.join(root, "dist/assay");
const tmp = tempDir("assay-startup-");

function sh(cmd: string[], cwd = root) {
  const r = Bun.spawnSync(cmd, { cwd, stdout: "pipe", stderr: "pipe" });
  if (r.exitCode !== 0) throw new Error(`${cmd.join(" ")}: ${r.stderr}`);
  return r.stdout.toString();
}

if (!values["no-build"]) sh([process.execPath, "run", "scripts/build.ts"]);
// The floors are compiled as Assay is (scripts/compile.ts: the same flags, laid out by a recorded start of their own).
// The floor: the same runtime compiled around a server that does nothing else.
const floorSrc = path.join(tmp, "floor.ts");
writeFileSync(
  floorSrc,
  `Bun.serve({ port: Number(process.argv[2]), hostname: "127.0.0.1", fetch: () => Response.json({ status: "ok" }) });
process.on("SIGTERM", () => process.exit(0));`,
);
const floorBin = path.join(tmp, "floor");
await compileLaidOut({ args: [floorSrc], outfile: floorBin, cwd: tmp, profile: `${floorBin}.order`, start: (port) => [floorBin, String(port)] });
const stackBin = path.join(tmp, "stack-floor");
await compileLaidOut({
  args: ["--format=esm", "bench/stack-floor.ts"],
  outfile: stackBin,
  cwd: root,
  profile: `${stackBin}.order`,
  start: (port) => [stackBin, String(port), path.join(tmp, "stack-profile.db")],
});

/** VmRSS, and its private part (RssAnon: heap and stacks; the rest is the executable's own pages, shared and clean). */
const rssMb = async (pid: number) => {
  const status = await Bun.file(`/proc/${pid}/status`).text();
  const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? 0) / 1024;
  return { rss: kb("VmRSS"), anon: kb("RssAnon") };
};
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function start(cmd: string[], port: number) {
  const t0 = performance.now();
  const child = Bun.spawn(cmd, { cwd: tmp, stdout: "ignore", stderr: "ignore", env: { ...process.env, ASSAY_LOG_LEVEL: "warn" } });
  for (;;) {
    try {
      if ((await fetch(`http://127.0.0.1:${port}/v1/health`)).ok) break;
    } catch {}
    if (performance.now() - t0 > 10_000) throw new Error(`${cmd[0]} did not become healthy`);
    await Bun.sleep(1);
  }
  return { child, ms: performance.now() - t0 };
}

async function measure(name: string, cmd: (port: number) => string[], load?: (port: number) => Promise<void>) {
  const times: number[] = [];
  const idle: { rss: number; anon: number }[] = [];
  let loaded = { rss: 0, anon: 0 };
  let later = { rss: 0, anon: 0 };
  for (let i = 0; i < runs; i++) {
    const port = freePort();
    const { child, ms } = await start(cmd(port), port);
    times.push(ms);
    await Bun.sleep(1000);
    idle.push(await rssMb(child.pid));
    if (load && i === runs - 1) {
      // Idle is idle for good: the workers poll and nothing else happens (a figure that crept up would show here).
      await Bun.sleep(9000);
      later = await rssMb(child.pid);
      await load(port);
      loaded = await rssMb(child.pid);
    }
    child.kill();
    await child.exited;
  }
  const idleRss = median(idle.map((m) => m.rss));
  return { name, ms: median(times), idle: idle.find((m) => m.rss === idleRss) ?? idle[0], later, loaded };
}

// An existing data dir with an admin and a key, so a start is a restart, not a first run.
const dataDir = path.join(tmp, "data");
sh([bin, "user", "create", "--email", "bench@example.com", "--password", "bench-password", "--role", "admin", "--data-dir", dataDir], tmp);

async function thousandRequests(port: number) {
  const base = `http://127.0.0.1:${port}/v1`;
  const json = { "content-type": "application/json" };
  const login: any = await (
    await fetch(`${base}/auth/login`, {
      method: "POST",
      headers: json,
      body: JSON.stringify({ email: "bench@example.com", password: "bench-password" }),
    })
  ).json();
  const key: any = await (
    await fetch(`${base}/keys`, {
      method: "POST",
      headers: { ...json, authorization: `Bearer ${login.token}` },
      body: JSON.stringify({ name: "bench", rate_limit_rpm: 100_000 }), // the most a key may have
    })
  ).json();
  if (!key.token) throw new Error(`no key: ${JSON.stringify(key)}`);
  const paths = ["/products", "/workflows", "/runs", "/usage/balance", "/health"];
  for (let i = 0; i < 1000; i += 10) {
    await Promise.all(
      Array.from({ length: 10 }, (_, j) =>
        fetch(`${base}${paths[(i + j) % paths.length]}`, { headers: { authorization: `Bearer ${key.token}` } }).then(async (r) => {
          // Answers, not refusals: a 401 or 429 costs the server far less than the request it stands for.
          if (r.status !== 200) throw new Error(`${r.url}: ${r.status} ${await r.text()}`);
          await r.arrayBuffer();
        }),
      ),
    );
  }
}

const assay = await measure("assay", (port) => [bin, "serve", "--port", String(port), "--data-dir", dataDir], thousandRequests);
const floor = await measure("Bun.serve floor", (port) => [floorBin, String(port)]);
const stack = await measure("stack floor", (port) => [stackBin, String(port), path.join(tmp, "stack.db")]);
const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);

console.log(`machine: ${os.cpus().length} × ${os.cpus()[0]?.model ?? "cpu"}, ${mb(os.totalmem())} MB RAM, Bun ${Bun.version}`);
console.log(`executable: dist/assay ${mb(statSync(bin).size)} MB (floor ${mb(statSync(floorBin).size)} MB, stack ${mb(statSync(stackBin).size)} MB)`);
console.log(`median of ${runs} starts on an existing data dir:`);
const row = (label: string, unit: string, digits: number, pick: (m: typeof assay) => number, goal: string) =>
  console.log(
    `  ${label.padEnd(17)}${pick(assay).toFixed(digits).padStart(6)} ${unit}   floor ${pick(floor).toFixed(digits).padStart(5)} ${unit}   stack ${pick(stack).toFixed(digits).padStart(5)} ${unit}   ${goal}`,
  );
row("time to healthy", "ms", 0, (m) => m.ms, "goal < 100 ms");
row("idle RSS", "MB", 1, (m) => m.idle.rss, "goal < 60 MB");
row("  of which private", "MB", 1, (m) => m.idle.anon, "(the rest: pages of the executable itself)");
console.log(`  Assay above the stack floor: ${(assay.idle.rss - stack.idle.rss).toFixed(1)} MB idle RSS`);
console.log(`  idle RSS 10 s after start (the last start): ${assay.later.rss.toFixed(1)} MB (private ${assay.later.anon.toFixed(1)} MB)`);
console.log(`  RSS after 1,000 authenticated requests: ${assay.loaded.rss.toFixed(1)} MB (private ${assay.loaded.anon.toFixed(1)} MB)`);
