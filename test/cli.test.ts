// The command line, run as a real process: user create, credits grant, backup, migrate, extract, bad flags.
import { describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import path from "node:path";
import { openDb } from "../src/db/client";
import { getBalance } from "../src/modules/usage/service";
import { CORPUS, tempDir } from "./helpers";

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
    expect(dup.code).toBe(2);
    expect(dup.err).toContain("already exists");
    const grant = cli(["credits", "grant", "--email", "teacher@school.example", "--amount", "25", "--data-dir", dataDir]);
    expect(grant.code).toBe(0);
    expect(JSON.parse(grant.out)).toMatchObject({ regular_pro: 125, bonus_pro: 0 });
    const bonus = cli(["credits", "grant", "--email", "teacher@school.example", "--amount", "5", "--kind", "bonus", "--data-dir", dataDir]);
    expect(JSON.parse(bonus.out)).toMatchObject({ pro_credits: 130, bonus_pro: 5 });
    const debit = cli(["credits", "grant", "--email", "teacher@school.example", "--amount", "-1000", "--data-dir", dataDir]);
    expect(debit.code).toBe(2);
    expect(debit.err).toContain("cannot debit");
  });

  test("backup writes a consistent database copy that opens with the same balances", () => {
    const out = path.join(tempDir("assay-backup-"), "b1");
    const r = cli(["backup", "--out", out, "--data-dir", dataDir]);
    expect(r.code).toBe(0);
    expect(existsSync(path.join(out, "objects"))).toBe(true);
    const db = openDb(path.join(out, "assay.db"));
    const ws = (db.$client.query("SELECT workspace_id FROM users WHERE email = 'teacher@school.example'").get() as { workspace_id: string })
      .workspace_id;
    expect(getBalance(db, ws).pro_credits).toBe(130);
    expect(cli(["backup", "--out", out, "--data-dir", dataDir]).code).toBe(2);
  });

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

  test("health asks a running server and exits 0 only when it is ok", async () => {
    const { startServer } = await import("../src/server");
    const { loadConfig } = await import("../src/config");
    const running = await startServer(loadConfig({ ASSAY_DATA_DIR: tempDir("assay-health-"), ASSAY_PORT: "0" }));
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

  test("doctor: 0 when every balance equals its ledger, 1 naming the workspace when one drifted", () => {
    const ok = cli(["doctor", "--data-dir", dataDir]);
    expect(ok.code).toBe(0);
    expect(ok.out).toContain("ok");
    const db = openDb(path.join(dataDir, "assay.db"));
    db.$client.run("UPDATE credit_balances SET balance = balance + 3 WHERE kind = 'regular'");
    db.$client.close();
    const bad = cli(["doctor", "--data-dir", dataDir]);
    expect(bad.code).toBe(1);
    const [, ledger, balance] = /drift: workspace ws_\w+ regular: ledger ([\d.]+), balance ([\d.]+)/.exec(bad.err) ?? [];
    expect(Number(balance) - Number(ledger)).toBe(3);
  });
});

describe("usage", () => {
  const COMMANDS = ["serve", "user create", "credits grant", "extract", "backup", "migrate", "doctor", "health"];

  test("--help and help list every command, on stdout, exit 0", () => {
    for (const args of [["--help"], ["help"], ["-h"]]) {
      const r = cli(args);
      expect(r.code).toBe(0);
      for (const c of COMMANDS) expect(r.out).toContain(`  ${c} `);
    }
  });

  test.each(COMMANDS)("%s --help and help %s print its usage, exit 0", (name) => {
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

  test("--version prints package.json's version", () => {
    const r = cli(["--version"]);
    expect(r.code).toBe(0);
    expect(r.out.trim()).toBe(require("../package.json").version);
  });

  test.each([
    ["an unknown command", ["frobnicate"], "unknown command: frobnicate"],
    ["an unknown subcommand", ["user", "delete"], "unknown command: user delete"],
    ["help for an unknown command", ["help", "nope"], "unknown command: nope"],
    ["an unknown flag", ["user", "create", "--email", "a@b.example", "--password", "long-enough-pw", "--colour", "red"], "Unknown option '--colour'"],
    ["a flag without its value", ["user", "create", "--email"], "--email"],
    ["a missing required option", ["user", "create", "--password", "long-enough-pw"], "--email is required"],
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
      stderr: "ignore",
    });
    let out = "";
    const reading = (async () => {
      for await (const chunk of child.stdout as unknown as AsyncIterable<Uint8Array>) out += new TextDecoder().decode(chunk);
    })();
    const deadline = Date.now() + 10_000;
    while (!out.includes("listening on") && Date.now() < deadline) await Bun.sleep(20);
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
    // The printed command works as printed (with a real email and password).
    const args = ["user", "create", "--email", "first@example.com", "--password", "a long password", "--role", "admin", "--data-dir", dir];
    const made = cli(args);
    expect(made.code).toBe(0);
    expect(made.out).toContain("created admin first@example.com");
  }, 20_000);

  test("once an admin exists (here from ASSAY_ADMIN_*), nothing is printed", async () => {
    const { out } = await firstLines({ ASSAY_ADMIN_EMAIL: "boss@example.com", ASSAY_ADMIN_PASSWORD: "boss-password" });
    expect(out).toContain("listening on");
    expect(out).not.toContain("No user exists yet");
  }, 20_000);
});
