// The command line, run as a real process: user create, credits grant, backup, migrate, extract, usage, exit codes.
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, rmSync } from "node:fs";
import path from "node:path";
import { sql } from "drizzle-orm";
import { closeDb, exec, openDb, tx } from "../src/db/client";
import { findUserByEmail } from "../src/modules/auth/service";
import { getBalance } from "../src/modules/usage/service";
import { CORPUS, tempDir } from "./helpers";
import { clusterDatabaseUrl, postgresAvailable } from "./postgres";

const root = path.resolve(import.meta.dir, "..");

function cli(args: string[], env: Record<string, string> = {}) {
  const res = Bun.spawnSync([process.execPath, "run", "src/main.ts", ...args], {
    cwd: root,
    env: { ...process.env, ...env },
    stdout: "pipe",
    stderr: "pipe",
  });
  return { code: res.exitCode, out: res.stdout.toString(), err: res.stderr.toString() };
}

describe("assay CLI", () => {
  const dataDir = tempDir("assay-cli-");

  test("user create, then credits grant (regular and bonus), then a debit below zero is refused", () => {
    const created = cli([
      "user",
      "create",
      "--email",
      "Teacher@School.example",
      "--password",
      "long-enough-pw",
      "--role",
      "admin",
      "--data-dir",
      dataDir,
    ]);
    expect(created.code).toBe(0);
    expect(created.out).toContain("created admin teacher@school.example");
    const dup = cli(["user", "create", "--email", "teacher@school.example", "--password", "long-enough-pw", "--data-dir", dataDir]);
    // The call is right but the data says no: a failure (1), in one line, not a usage error.
    expect(dup.code).toBe(1);
    expect(dup.err.trim()).toBe("assay: a user with this email already exists");
    const nobody = cli(["credits", "grant", "--email", "nobody@school.example", "--amount", "5", "--data-dir", dataDir]);
    expect(nobody.code).toBe(1);
    expect(nobody.err.trim()).toBe("assay: no user with email nobody@school.example");
    // A value refused on its own merits is a usage error (2), in one line.
    const short = cli(["user", "create", "--email", "other@school.example", "--password", "short", "--data-dir", dataDir]);
    expect(short.code).toBe(2);
    expect(short.err.trim()).toBe("assay: password must be at least 8 characters");
    const grant = cli(["credits", "grant", "--email", "teacher@school.example", "--amount", "25", "--data-dir", dataDir]);
    expect(grant.code).toBe(0);
    expect(JSON.parse(grant.out)).toMatchObject({ regular_pro: 125, bonus_pro: 0 });
    const bonus = cli(["credits", "grant", "--email", "teacher@school.example", "--amount", "5", "--kind", "bonus", "--data-dir", dataDir]);
    expect(JSON.parse(bonus.out)).toMatchObject({ pro_credits: 130, bonus_pro: 5 });
    const debit = cli(["credits", "grant", "--email", "teacher@school.example", "--amount", "-1000", "--data-dir", dataDir]);
    expect(debit.code).toBe(2);
    expect(debit.err).toContain("cannot debit");
    const back = cli(["credits", "grant", "--email", "teacher@school.example", "--amount", "-5", "--kind", "bonus", "--data-dir", dataDir]);
    expect(JSON.parse(back.out)).toMatchObject({ pro_credits: 125, bonus_pro: 0 });
    const fresh = cli(["credits", "grant", "--email=teacher@school.example", "--amount=5", "--kind=bonus", `--data-dir=${dataDir}`]);
    expect(JSON.parse(fresh.out)).toMatchObject({ pro_credits: 130, bonus_pro: 5 });
  });

  test("setting flags win over the environment", () => {
    const [fromEnv, fromFlag] = [tempDir("assay-env-"), tempDir("assay-flag-")];
    // The environment's bad port is never read: the flag replaces it.
    const r = cli(["migrate", "--data-dir", fromFlag, "--port", "9"], { ASSAY_DATA_DIR: fromEnv, ASSAY_PORT: "eighty" });
    expect(r.code).toBe(0);
    expect(existsSync(path.join(fromFlag, "assay.db"))).toBe(true);
    expect(existsSync(path.join(fromEnv, "assay.db"))).toBe(false);
    expect(cli(["migrate"], { ASSAY_DATA_DIR: fromEnv }).code).toBe(0);
    expect(existsSync(path.join(fromEnv, "assay.db"))).toBe(true);
  });

  test("backup writes a consistent database copy that opens with the same balances", async () => {
    const out = path.join(tempDir("assay-backup-"), "b1");
    const r = cli(["backup", "--out", out, "--data-dir", dataDir]);
    expect(r.code).toBe(0);
    expect(existsSync(path.join(out, "objects"))).toBe(true);
    const db = await openDb(path.join(out, "assay.db"));
    const ws = (await findUserByEmail(db, "teacher@school.example"))?.workspaceId ?? "";
    expect((await getBalance(db, ws)).pro_credits).toBe(130);
    await closeDb(db);
    expect(cli(["backup", "--out", out, "--data-dir", dataDir]).code).toBe(2);
  });

  test.skipIf(!postgresAvailable)("on PostgreSQL, backup refuses with one line pointing to pg_dump, and migrate and doctor work", async () => {
    const env = { ASSAY_DATABASE_URL: await clusterDatabaseUrl(), ASSAY_DATA_DIR: tempDir("assay-cli-pg-") };
    const backup = cli(["backup", "--out", path.join(tempDir("assay-backup-"), "b")], env);
    expect(backup.code).toBe(2);
    expect(backup.err).toContain("pg_dump");
    expect(cli(["migrate"], env).code).toBe(0);
    expect(cli(["doctor"], env).code).toBe(0);
  });

  test("a database that cannot be used stops the server with one line naming the setting, never a hang", () => {
    const refused = cli(["serve", "--port", "0"], {
      ASSAY_DATA_DIR: tempDir("assay-cli-db-"),
      ASSAY_DATABASE_URL: "postgres://assay:pw@127.0.0.1:1/x",
    });
    expect(refused.code).toBe(2);
    expect(refused.err.trim().split("\n")).toEqual([
      "assay: ASSAY_DATABASE_URL: cannot use postgres://assay:***@127.0.0.1:1/x: connect ECONNREFUSED 127.0.0.1:1",
    ]);
    // A peer that accepts the connection and never answers (a firewall, the wrong service): bounded, not a hang.
    const silent = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
    try {
      const t0 = performance.now();
      const r = cli(["serve", "--port", "0"], {
        ASSAY_DATA_DIR: tempDir("assay-cli-db-"),
        ASSAY_DATABASE_URL: `postgres://assay@127.0.0.1:${silent.port}/x`,
      });
      expect(r.code).toBe(2);
      expect(r.err).toContain("no answer from the server within 10 s");
      expect(performance.now() - t0).toBeLessThan(20_000);
    } finally {
      silent.stop(true);
    }
  }, 30_000);

  test("migrate applies migrations and exits", () => {
    const r = cli(["migrate", "--data-dir", tempDir("assay-mig-")]);
    expect(r.code).toBe(0);
    expect(r.out).toContain("migrations applied");
  });

  test("extract prints text, JSON with --json, and one clean line for a bad file", () => {
    const text = cli(["extract", path.join(CORPUS, "md/tika-testMARKDOWN.md")]);
    expect(text.code).toBe(0);
    expect(text.out.length).toBeGreaterThan(20);
    const json = JSON.parse(cli(["extract", path.join(CORPUS, "pdf/tika-testPDF.pdf"), "--json"]).out);
    expect(json).toMatchObject({ format: "pdf", page_count: 1 });
    const bad = cli(["extract", path.join(CORPUS, "bad/truncated-pdfjs-wikipedia.pdf")]);
    expect(bad.code).toBe(1);
    expect(bad.err.trim().split("\n")).toHaveLength(1);
  });

  test("extract prints all of a large document through a pipe, not the first 64 kB", async () => {
    // 5,000 rows, about 300 kB of text: more than a pipe holds, so an exit before the reader took it loses the rest.
    const file = path.join(tempDir("assay-cli-big-"), "big.csv");
    const rows = Array.from({ length: 5000 }, (_, i) => `row ${i + 1},Ünïcode cell ${"x".repeat(40)},${i * 7}`);
    await Bun.write(file, `n,text,value\n${rows.join("\n")}\n`);
    const r = cli(["extract", file]);
    expect(r.code).toBe(0);
    const lines = r.out.split("\n").filter((l) => l.length > 0);
    expect(lines).toHaveLength(5001);
    expect(lines.at(-1)).toBe(`row 5000 | Ünïcode cell ${"x".repeat(40)} | 34993`);
    const json = JSON.parse(cli(["extract", file, "--json"]).out);
    expect(json.sections.at(-1).text.split("\n").at(-1)).toStartWith("row 5000 |");
  });

  test("health asks a running server and exits 0 only when it is ok", async () => {
    const { startServer } = await import("../src/server");
    const { loadConfig } = await import("../src/config");
    const running = await startServer(loadConfig({ ASSAY_LOG_LEVEL: "silent", ASSAY_DATA_DIR: tempDir("assay-health-"), ASSAY_PORT: "0" }));
    try {
      const port = new URL(running.url).port;
      const ok = Bun.spawn([process.execPath, "run", "src/main.ts", "health", "--port", port], { cwd: root, stdout: "pipe" });
      expect(await ok.exited).toBe(0);
    } finally {
      await running.stop();
    }
    expect(cli(["health", "--port", "1"]).code).toBe(1);
  });

  test("a bad setting stops with one line naming it", () => {
    const r = cli(["serve", "--port", "eighty", "--data-dir", dataDir]);
    expect(r.code).toBe(2);
    expect(r.err.trim()).toBe('assay: ASSAY_PORT: "eighty" is not a whole number');
    expect(cli(["frobnicate"]).code).toBe(2);
  });

  test("doctor: 0 when every balance equals its ledger, 1 naming the workspace when one drifted", async () => {
    const ok = cli(["doctor", "--data-dir", dataDir]);
    expect(ok.code).toBe(0);
    expect(ok.out).toContain("ok");
    const db = await openDb(path.join(dataDir, "assay.db"));
    await tx(db, (t) => exec(t, sql`UPDATE credit_balances SET balance = balance + 3 WHERE kind = 'regular'`));
    await closeDb(db);
    const bad = cli(["doctor", "--data-dir", dataDir]);
    expect(bad.code).toBe(1);
    const [, ledger, balance] = /drift: workspace ws_\w+ regular: ledger ([\d.]+), balance ([\d.]+)/.exec(bad.err) ?? [];
    expect(Number(balance) - Number(ledger)).toBe(3);
  });
});

describe("usage", () => {
  const COMMANDS = ["serve", "user create", "credits grant", "extract", "calibrate", "backup", "restore", "migrate", "doctor", "health"];

  test("--help and help list every command, on stdout, exit 0", () => {
    for (const args of [["--help"], ["help"], ["-h"]]) {
      const r = cli(args);
      expect(r.code).toBe(0);
      for (const c of COMMANDS) expect(r.out).toContain(`  ${c} `);
    }
  });

  test.each(COMMANDS)("%s: --help and help print its usage, exit 0", (name) => {
    const words = name.split(" ");
    for (const args of [
      [...words, "--help"],
      ["help", ...words],
    ]) {
      const r = cli(args);
      expect(r.code).toBe(0);
      expect(r.out).toStartWith(`usage: assay ${name}`);
      expect(r.out).toContain("--help");
    }
  });

  test("help help, and a command's options in its usage", () => {
    const r = cli(["help", "help"]);
    expect(r.code).toBe(0);
    expect(r.out).toContain("usage: assay <command> [options]");
    const user = cli(["help", "user", "create"]).out;
    for (const flag of ["--email E", "--password P", "--role R", "--<setting> VALUE", "-h, --help"]) expect(user).toContain(flag);
    expect(user).toContain("Create a user with a workspace of its own.");
    const health = cli(["health", "--help"]).out;
    expect(health).toContain("--port N");
    expect(health).toContain("--host H");
    // serve names every setting flag.
    expect(cli(["serve", "-h"]).out).toContain("--data-dir --secret");
  });

  test("--version (and -v) prints package.json's version", () => {
    for (const flag of ["--version", "-v"]) {
      const r = cli([flag]);
      expect(r.code).toBe(0);
      expect(r.out).toBe(`${require("../package.json").version}\n`);
    }
  });

  test("a compiled executable knows its version and usage without package.json at hand", () => {
    const dir = tempDir("assay-compiled-");
    const bin = path.join(dir, "assay");
    try {
      const build = Bun.spawnSync([process.execPath, "build", "--compile", "src/main.ts", "--outfile", bin], {
        cwd: root,
        stdout: "pipe",
        stderr: "pipe",
      });
      expect(build.exitCode).toBe(0);
      const empty = path.join(dir, "empty");
      mkdirSync(empty);
      const run = (args: string[]) =>
        Bun.spawnSync([bin, ...args], { cwd: empty, env: { PATH: process.env.PATH ?? "" }, stdout: "pipe", stderr: "pipe" });
      const version = run(["--version"]);
      expect(version.exitCode).toBe(0);
      expect(version.stdout.toString()).toBe(`${require("../package.json").version}\n`);
      const help = run(["help", "backup"]);
      expect(help.exitCode).toBe(0);
      expect(help.stdout.toString()).toStartWith("usage: assay backup --out DIR");
      expect(run(["frobnicate"]).exitCode).toBe(2);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000); // a compile takes seconds, more on a busy machine

  test.each([
    ["an unknown command", ["frobnicate"], "unknown command: frobnicate"],
    ["an unknown subcommand", ["user", "delete"], "unknown command: user delete (did you mean user create?)"],
    ["a command group alone", ["credits"], "unknown command: credits (did you mean credits grant?)"],
    ["help for an unknown command", ["help", "nope"], "unknown command: nope"],
    ["an unknown flag", ["user", "create", "--email", "a@b.example", "--password", "long-enough-pw", "--colour", "red"], "Unknown option '--colour'"],
    ["an unknown flag before any command (serve)", ["--colour", "red"], "Unknown option '--colour'"],
    ["a setting flag on a command that reads no settings", ["extract", "a.pdf", "--data-dir", "x"], "Unknown option '--data-dir'"],
    ["a value given to a switch", ["restore", "--force=yes"], "--force"],
    ["a flag without its value", ["user", "create", "--email"], "--email"],
    ["a missing required option", ["user", "create", "--password", "long-enough-pw"], "--email is required"],
    ["another missing required option", ["credits", "grant", "--email", "a@b.example"], "--amount is required"],
    ["backup without --out", ["backup"], "--out is required"],
    ["restore without --data-dir", ["restore", "--from", "somewhere"], "--data-dir is required"],
    ["a bad option value", ["credits", "grant", "--email", "a@b.example", "--amount", "lots"], "--amount must be a number"],
    ["extract without a file", ["extract"], "expected extract FILE"],
    ["serve with a stray word", ["serve", "now"], "serve"],
  ])("%s: the problem and the usage on stderr, exit 2", (_name, args, message) => {
    const r = cli(args, { ASSAY_DATA_DIR: tempDir("assay-cli-usage-") });
    expect(r.code).toBe(2);
    expect(r.out).toBe("");
    expect(r.err).toContain(message);
    expect(r.err).toContain("usage: assay");
  });
});

describe("first run", () => {
  async function firstLines(env: Record<string, string>) {
    const dir = tempDir("assay-first-");
    const child = Bun.spawn([process.execPath, "run", "src/main.ts", "serve", "--port", "0", "--data-dir", dir], {
      cwd: root,
      env: { ...process.env, ASSAY_ADMIN_EMAIL: "", ASSAY_ADMIN_PASSWORD: "", ...env },
      stdout: "pipe",
      stderr: "pipe",
    });
    // The log (JSON lines) is on stdout, the first-run hint for a person on stderr: both are read.
    let out = "";
    const read = async (stream: ReadableStream<Uint8Array>) => {
      for await (const chunk of stream as unknown as AsyncIterable<Uint8Array>) out += new TextDecoder().decode(chunk);
    };
    const reading = Promise.all([read(child.stdout), read(child.stderr)]);
    const deadline = Date.now() + 10_000;
    while (!out.includes("Assay listening") && Date.now() < deadline) await Bun.sleep(20);
    await Bun.sleep(300); // whatever start prints after the listening line has arrived by now
    child.kill("SIGKILL");
    await reading;
    return { out, dir };
  }

  test("with no user and no admin settings, the server prints the exact command that creates the first admin", async () => {
    const { out, dir } = await firstLines({});
    expect(out).toContain("No user exists yet");
    const command =
      out
        .split("\n")
        .find((l) => l.includes("user create"))
        ?.trim() ?? "";
    expect(command).toContain("--role admin");
    expect(command).toContain(JSON.stringify(dir));
    // And the console's one-time setup link (POST /v1/auth/setup takes its token; test/modules/setup.test.ts).
    expect(out).toMatch(/http:\/\/localhost:\d+\/console\/setup\?token=setup_[0-9A-Za-z]{32}\n/);
    // The printed command works as printed (with a real email and password).
    const args = ["user", "create", "--email", "first@example.com", "--password", "a long password", "--role", "admin", "--data-dir", dir];
    const made = cli(args);
    expect(made.code).toBe(0);
    expect(made.out).toContain("created admin first@example.com");
  }, 20_000);

  test("once an admin exists (here from ASSAY_ADMIN_*), nothing is printed", async () => {
    const { out } = await firstLines({ ASSAY_ADMIN_EMAIL: "boss@example.com", ASSAY_ADMIN_PASSWORD: "boss-password" });
    expect(out).toContain("Assay listening");
    expect(out).not.toContain("No user exists yet");
  }, 20_000);
});

describe("backup and restore", () => {
  test("a backup taken while runs are created restores into a new folder that serves every acknowledged run, the balance and the files", async () => {
    const { startServer } = await import("../src/server");
    const { loadConfig } = await import("../src/config");
    const source = tempDir("assay-live-");
    const running = await startServer(
      loadConfig({
        ASSAY_LOG_LEVEL: "silent",
        ASSAY_DATA_DIR: source,
        ASSAY_PORT: "0",
        ASSAY_ADMIN_EMAIL: "keep@example.com",
        ASSAY_ADMIN_PASSWORD: "keep-password",
      }),
    );
    const api = async (url: string, method = "GET", token: string | null = null, body?: unknown, at = running.url) =>
      (await (
        await fetch(`${at}/v1${url}`, {
          method,
          headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
          body: body === undefined ? undefined : JSON.stringify(body),
        })
      ).json()) as any;
    const session = (await api("/auth/login", "POST", null, { email: "keep@example.com", password: "keep-password" })).token;
    const key = (await api("/keys", "POST", session, { name: "k" })).token;
    const doc = await api("/documents", "POST", key, { filename: "a.txt", mime_type: "text/plain" });
    await fetch(doc.upload_url.replace(/^http:\/\/[^/]+/, running.url), {
      method: "PUT",
      headers: { "content-type": "text/plain" },
      body: "An essay to keep.",
    });
    await api(`/documents/${doc.id}/complete`, "POST", key);
    const wf = await api("/workflows", "POST", key, { product_code: "general", name: "Kept", output_format: "markdown" });
    const first = await api(`/workflows/${wf.id}/runs`, "POST", key, { input_documents: [doc.id], mode: "sync" });
    expect(first.status).toBe("succeeded");
    // Runs keep being created while the backup is taken.
    const acknowledged: string[] = [first.id];
    let creating = true;
    const creator = (async () => {
      while (creating) acknowledged.push((await api(`/workflows/${wf.id}/runs`, "POST", key, { input_documents: [doc.id] })).id);
    })();
    await Bun.sleep(50);
    const before = [...acknowledged];
    const out = path.join(tempDir("assay-bk-"), "backup");
    const backup = Bun.spawn([process.execPath, "run", "src/main.ts", "backup", "--out", out, "--data-dir", source], {
      cwd: root,
      stdout: "pipe",
      stderr: "pipe",
    });
    const backupCode = await backup.exited;
    creating = false;
    expect({ code: backupCode, err: await new Response(backup.stderr).text() }).toEqual({ code: 0, err: "" });
    await creator;
    const original = await (await fetch(first.output_file.url.replace(/^http:\/\/[^/]+/, running.url))).text();
    await running.stop();

    const target = tempDir("assay-restored-");
    expect(cli(["restore", "--from", out, "--data-dir", target]).code).toBe(0);
    expect(cli(["restore", "--from", out, "--data-dir", target]).code).toBe(2); // not empty any more
    expect(cli(["restore", "--from", tempDir("assay-nothing-"), "--data-dir", tempDir("assay-t-")]).err).toContain("no assay.db");
    expect(cli(["doctor", "--data-dir", target]).code).toBe(0);

    const restored = await startServer(loadConfig({ ASSAY_LOG_LEVEL: "silent", ASSAY_DATA_DIR: target, ASSAY_PORT: "0" }));
    try {
      for (const id of before) expect((await api(`/runs/${id}`, "GET", key, undefined, restored.url)).id).toBe(id);
      const kept = await api(`/runs/${first.id}`, "GET", key, undefined, restored.url);
      expect(kept.status).toBe("succeeded");
      const file = await (await fetch(kept.output_file.url.replace(/^http:\/\/[^/]+/, restored.url))).text();
      expect(file).toBe(original);
      const balance = await api("/usage/balance", "GET", key, undefined, restored.url);
      expect(balance.pro_credits).toBeGreaterThan(0);
    } finally {
      await restored.stop();
    }
  }, 60_000);

  test("a damaged backup is refused before anything is copied", () => {
    const out = path.join(tempDir("assay-bad-"), "b");
    require("node:fs").mkdirSync(path.join(out, "objects"), { recursive: true });
    require("node:fs").writeFileSync(path.join(out, "assay.db"), "this is not a database");
    const target = tempDir("assay-t2-");
    const r = cli(["restore", "--from", out, "--data-dir", target]);
    expect(r.code).toBe(2);
    expect(r.err).toContain("not a usable backup");
    expect(existsSync(path.join(target, "assay.db"))).toBe(false);
  });
});
