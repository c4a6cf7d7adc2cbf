// CLI entry: `serve` (default), `user create`, `credits grant`, `extract`, `calibrate`, `backup`, `restore`, `migrate`,
// `doctor`, `health`.
// Arguments are parsed by node:util parseArgs; every command has --help; usage errors exit 2, failures exit 1.
import { Database } from "bun:sqlite";
import { copyFileSync, cpSync, existsSync, mkdirSync, readdirSync, rmSync } from "node:fs";
import path from "node:path";
import { type ParseArgsConfig, parseArgs } from "node:util";
import pkg from "../package.json" with { type: "json" };
import { type Config, ConfigError, ensureDataDir, flagsToEnv, loadConfig, settingOptions } from "./config";
import { createContext } from "./create-context";
import { closeDb, openDb, sqliteConnection, storeSecret, tx } from "./db/client";
import { ApiError } from "./http/errors";
import { jit } from "./lib/jit";
import { createUser, findUserByEmail, hasUsers } from "./modules/auth/service";
import { checkBalances, getBalance, grantCredits } from "./modules/usage/service";
import { startServer } from "./server";
import { copyObjectsFolder } from "./storage";

/** A mistake in how the command was called: the message, then the usage, and exit code 2. */
class UsageError extends Error {
  constructor(
    message: string,
    readonly command: Command | null = null,
  ) {
    super(message);
  }
}

type Values = Record<string, string | boolean | undefined>;
type Options = NonNullable<ParseArgsConfig["options"]>;

interface Command {
  name: string;
  summary: string;
  /** The synopsis after `assay `. */
  synopsis: string;
  options: Options;
  /** Descriptions of the command's own options, in the order shown. */
  help: [string, string][];
  /** Reads the configuration (ASSAY_* variables, or the same settings as flags). */
  config: boolean;
  positionals?: { min: number; max: number };
  run(values: Values, positionals: string[]): Promise<number>;
}

const SETTINGS_HELP: [string, string] = [
  "--<setting> VALUE",
  "any ASSAY_* variable as a flag, e.g. --data-dir ./data, --port 8080 (docs/configuration.md)",
];

function required(values: Values, name: string, command: Command): string {
  const value = values[name];
  if (typeof value !== "string" || value === "") throw new UsageError(`--${name} is required`, command);
  return value;
}

/** push-objects and migrate-store: checks the configured S3 store, then copies the data folder's objects/ into it. */
async function pushDataDirObjects(config: Config, opts: { dryRun?: boolean; onCopy?: (key: string) => void } = {}) {
  const { probeObjectStore, objectStore } = await import("./storage");
  const { pushObjects } = await import("./storage/push");
  await probeObjectStore(config);
  return pushObjects(path.join(config.dataDir, "objects"), objectStore({ config }), opts);
}

const configOf = (values: Values) => loadConfig(process.env, flagsToEnv(values));
const contextOf = (values: Values) => createContext(ensureDataDir(configOf(values)));

const commands: Command[] = [
  {
    name: "serve",
    summary: "start the server (the default command)",
    synopsis: "serve [--<setting> VALUE …]",
    options: {},
    help: [],
    config: true,
    async run(values) {
      const running = await startServer(configOf(values));
      // The first-run hint is for a person: on stderr, so stdout stays one JSON object per line.
      if (!(await hasUsers(running.ctx.db))) {
        const setup = running.ctx.runtime.setup.open(running.ctx.clock.now());
        console.error(firstRunMessage(running.ctx.config, setup.token));
      }
      let stopping = false;
      const stop = async () => {
        if (stopping) process.exit(1); // a second signal: stop now
        stopping = true;
        await running.stop();
        process.exit(0);
      };
      process.on("SIGINT", stop);
      process.on("SIGTERM", stop);
      return -1; // keep running
    },
  },
  {
    name: "user create",
    summary: "create a user with a workspace of its own",
    synopsis: "user create --email E --password P [--role admin|member]",
    options: { email: { type: "string" }, password: { type: "string" }, role: { type: "string" } },
    help: [
      ["--email E", "the login (required)"],
      ["--password P", "at least 8 characters (required)"],
      ["--role R", "admin or member (default member)"],
    ],
    config: true,
    async run(values) {
      const role = (values.role as string | undefined) ?? "member";
      if (role !== "admin" && role !== "member") throw new UsageError("--role must be admin or member", this);
      const email = required(values, "email", this);
      const password = required(values, "password", this);
      const ctx = await contextOf(values);
      const user = await createUser(ctx.db, ctx.clock, ctx.config, { email, password, role });
      console.log(`created ${user.role} ${user.email} (${user.id}, workspace ${user.workspaceId})`);
      return 0;
    },
  },
  {
    name: "credits grant",
    summary: "add (or, with a negative amount, debit) credits of a user's workspace",
    synopsis: "credits grant --email E --amount N [--kind regular|bonus]",
    options: { email: { type: "string" }, amount: { type: "string" }, kind: { type: "string" } },
    help: [
      ["--email E", "the user whose workspace gets the credits (required)"],
      ["--amount N", "credits; negative to debit, never below zero (required)"],
      ["--kind K", "regular or bonus (default regular)"],
    ],
    config: true,
    async run(values) {
      const kind = (values.kind as string | undefined) ?? "regular";
      if (kind !== "regular" && kind !== "bonus") throw new UsageError("--kind must be regular or bonus", this);
      const email = required(values, "email", this);
      const amount = Number(required(values, "amount", this));
      if (!Number.isFinite(amount)) throw new UsageError("--amount must be a number", this);
      const ctx = await contextOf(values);
      const user = await findUserByEmail(ctx.db, email);
      if (!user) throw new ApiError(404, "not_found", `no user with email ${email}`);
      await tx(ctx.db, (t) => grantCredits(t, ctx.clock, user.workspaceId, amount, kind, "admin", "CLI grant"), { lock: user.workspaceId });
      console.log(JSON.stringify(await getBalance(ctx.db, user.workspaceId)));
      await closeDb(ctx.db);
      return 0;
    },
  },
  {
    name: "extract",
    summary: "print the text the server would extract from a file",
    synopsis: "extract FILE [--json]",
    options: { json: { type: "boolean" } },
    help: [["--json", "print the structure (format, pages, sections) as JSON"]],
    config: false,
    positionals: { min: 1, max: 1 },
    async run(values, [file]) {
      const { extractCli } = await import("./extract/cli");
      return extractCli(file, values.json === true);
    },
  },
  {
    name: "calibrate",
    summary: "grade a folder of human-graded documents through a running server and print the agreement figures",
    synopsis: "calibrate --workflow wf_… --graded DIR --key svc_… [--url http://127.0.0.1:8080] [--concurrency N]",
    options: {
      workflow: { type: "string" },
      graded: { type: "string" },
      url: { type: "string" },
      key: { type: "string" },
      concurrency: { type: "string" },
    },
    help: [
      ["--workflow ID", "the workflow whose rubric grades the documents (required)"],
      ["--graded DIR", "the documents and their human scores in DIR/scores.csv (required; docs/quality.md)"],
      ["--key K", "an API key of the workflow's workspace (required; each document is one run)"],
      ["--url URL", "the server (default http://127.0.0.1:8080)"],
      ["--concurrency N", "runs at a time (default 2)"],
    ],
    config: false,
    async run(values) {
      const workflow = required(values, "workflow", this);
      const graded = required(values, "graded", this);
      const key = required(values, "key", this);
      const concurrency = Number((values.concurrency as string | undefined) ?? "2");
      if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 64)
        throw new UsageError("--concurrency must be a whole number from 1 to 64", this);
      let url: URL;
      try {
        url = new URL((values.url as string | undefined) ?? "http://127.0.0.1:8080");
      } catch {
        throw new UsageError(`--url ${values.url} is not a URL`, this);
      }
      const { AssayApi, GradedFolderError, gradeThroughServer, measure, readGradedFolder } = await import("./calibrate");
      let set: ReturnType<typeof readGradedFolder>;
      try {
        set = readGradedFolder(graded);
      } catch (err) {
        if (err instanceof GradedFolderError) throw new UsageError(`--graded: ${err.message}`, this);
        throw err;
      }
      const api = new AssayApi(`${url.origin}${url.pathname.replace(/\/+$/, "").replace(/\/v1$/, "")}/v1`, key);
      try {
        await api.call("GET", `/workflows/${encodeURIComponent(workflow)}`);
        const started = performance.now();
        const items = await gradeThroughServer(api, workflow, set.docs, concurrency);
        const seconds = ((performance.now() - started) / 1000).toFixed(1);
        console.log(`${items.length} documents from ${graded} through ${api.base}, workflow ${workflow}, in ${seconds} s`);
        console.log(measure(items, set.scale).report);
        return 0;
      } catch (err) {
        console.error(`assay: calibrate failed: ${(err as Error).message}`);
        return 1;
      }
    },
  },
  {
    name: "backup",
    summary: "write a consistent copy of the database and stored files (safe while serving)",
    synopsis: "backup --out DIR",
    options: { out: { type: "string" } },
    help: [["--out DIR", "an empty or new folder (required); restore by using it as ASSAY_DATA_DIR"]],
    config: true,
    async run(values) {
      const out = path.resolve(required(values, "out", this));
      if (existsSync(path.join(out, "assay.db"))) throw new UsageError(`--out ${out} already holds a backup; choose an empty folder`, this);
      const ctx = await contextOf(values);
      const sqlite = sqliteConnection(ctx.db);
      if (!sqlite)
        throw new UsageError("backup copies the embedded SQLite database; on PostgreSQL use pg_dump / pg_basebackup (docs/scale.md)", this);
      mkdirSync(out, { recursive: true });
      // VACUUM INTO writes a consistent snapshot even while a server writes; stored files never change once written.
      sqlite.run("VACUUM INTO ?", [path.join(out, "assay.db")]);
      await closeDb(ctx.db);
      copyObjectsFolder(path.join(ctx.config.dataDir, "objects"), path.join(out, "objects"));
      const secretFile = path.join(ctx.config.dataDir, "secret");
      if (existsSync(secretFile)) copyFileSync(secretFile, path.join(out, "secret"));
      console.log(`backup written to ${out} (restore: stop the server and use that folder as ASSAY_DATA_DIR)`);
      return 0;
    },
  },
  {
    name: "restore",
    summary: "restore a backup into a data folder (checked first; the server must not be running on that folder)",
    synopsis: "restore --from DIR --data-dir NEW [--force]",
    options: { from: { type: "string" }, force: { type: "boolean" } },
    help: [
      ["--from DIR", "a folder written by assay backup (required)"],
      ["--data-dir NEW", "where to restore (required): an empty or new folder"],
      ["--force", "replace what the target folder holds"],
    ],
    config: true,
    async run(values) {
      const from = path.resolve(required(values, "from", this));
      const target = path.resolve(required(values, "data-dir", this));
      const problem = checkBackup(from);
      if (problem) throw new UsageError(`--from ${from} is not a usable backup: ${problem}`, this);
      const occupied =
        existsSync(target) && readdirSync(target).some((name) => name !== "objects" || readdirSync(path.join(target, name)).length > 0);
      if (occupied && values.force !== true) throw new UsageError(`--data-dir ${target} is not empty; use --force to replace what it holds`, this);
      for (const name of ["assay.db", "assay.db-wal", "assay.db-shm", "objects", "secret"])
        rmSync(path.join(target, name), { recursive: true, force: true });
      mkdirSync(target, { recursive: true });
      copyFileSync(path.join(from, "assay.db"), path.join(target, "assay.db"));
      cpSync(path.join(from, "objects"), path.join(target, "objects"), { recursive: true });
      if (existsSync(path.join(from, "secret"))) copyFileSync(path.join(from, "secret"), path.join(target, "secret"));
      console.log(`restored ${from} into ${target}; start the server with --data-dir ${JSON.stringify(target)}`);
      return 0;
    },
  },
  {
    name: "push-objects",
    summary: "copy the data folder's stored files (objects/) into the S3 store ASSAY_OBJECT_STORE names",
    synopsis: "push-objects [--dry-run] [--<setting> VALUE …]",
    options: { "dry-run": { type: "boolean" } },
    help: [["--dry-run", "list what would be copied, copy nothing"]],
    config: true,
    async run(values) {
      const config = ensureDataDir(configOf(values));
      if (!config.s3) throw new UsageError("set ASSAY_OBJECT_STORE=s3://bucket/prefix (and its credentials) to push to", this);
      const dryRun = values["dry-run"] === true;
      const done = await pushDataDirObjects(config, {
        dryRun,
        onCopy: (key) => console.log(`${dryRun ? "would copy" : "copied"} ${key}`),
      });
      const target = `s3://${config.s3.bucket}/${config.s3.prefix}`;
      console.log(`${done.copied} ${dryRun ? "to copy" : "copied"} (${done.bytes} bytes), ${done.skipped} already in ${target}`);
      return 0;
    },
  },
  {
    name: "migrate-store",
    summary: "copy the data folder's SQLite database into PostgreSQL and its stored files into an S3 store",
    synopsis: "migrate-store --to postgres://… [--objects s3://bucket/prefix] [--<setting> VALUE …]",
    options: { to: { type: "string" }, objects: { type: "string" } },
    help: [
      ["--to URL", "an empty PostgreSQL database (required); it is migrated first"],
      ["--objects S3", "also copy objects/ to this store (credentials from ASSAY_S3_*); safe to run again"],
    ],
    config: true,
    async run(values) {
      const to = required(values, "to", this);
      if (!/^postgres(ql)?:\/\//.test(to)) throw new UsageError("--to must be a postgres:// URL", this);
      const objects = values.objects as string | undefined;
      const source = loadConfig(process.env, { ...flagsToEnv(values), ...(objects ? { ASSAY_OBJECT_STORE: objects } : {}) });
      if (source.databaseUrl) throw new UsageError("the source is the data folder's SQLite database: unset ASSAY_DATABASE_URL", this);
      const file = path.join(source.dataDir, "assay.db");
      if (!existsSync(file)) throw new UsageError(`${source.dataDir} holds no assay.db to copy`, this);
      // The secret the server signed with (ASSAY_SECRET, else the folder's file), never a new one: ensureDataDir would
      // write that into the folder being moved, and the database would carry a secret no outstanding link was signed with.
      if (!source.secret && !existsSync(path.join(source.dataDir, "secret"))) {
        throw new UsageError(`${source.dataDir} holds no secret file: set ASSAY_SECRET to the secret the server was started with`, this);
      }
      const config = ensureDataDir(source);
      const { assertEmpty, copyDatabase, CopyError } = await import("./db/copy");
      const from = await openDb(file);
      const target = await openDb(to);
      try {
        // Every check before anything is written; the objects before the rows, as a failed push can simply be run
        // again, and the rows in one transaction, so a failed copy leaves the database empty and can be run again too.
        await assertEmpty(target);
        if (config.s3) {
          const done = await pushDataDirObjects(config);
          console.log(`objects: ${done.copied} copied (${done.bytes} bytes), ${done.skipped} already there`);
        }
        const counts = await tx(target, async (t) => {
          const copied = await copyDatabase(from, t);
          await storeSecret(t, config.secret, { replace: true });
          return copied;
        });
        for (const { table, rows } of counts) console.log(`${table}: ${rows} rows`);
        const total = counts.reduce((sum, c) => sum + c.rows, 0);
        console.log(`copied ${total} rows into ${new URL(to).host}${new URL(to).pathname}`);
      } catch (err) {
        if (!(err instanceof CopyError)) throw err;
        console.error(`assay: ${err.message}`);
        return 1;
      } finally {
        await closeDb(from);
        await closeDb(target);
      }
      console.log(`done: start every process with ASSAY_DATABASE_URL${config.s3 ? " and ASSAY_OBJECT_STORE" : ""} set (docs/scale.md)`);
      return 0;
    },
  },
  {
    name: "migrate",
    summary: "apply database migrations and exit",
    synopsis: "migrate [--<setting> VALUE …]",
    options: {},
    help: [],
    config: true,
    async run(values) {
      await closeDb((await contextOf(values)).db);
      console.log("migrations applied");
      return 0;
    },
  },
  {
    name: "doctor",
    summary: "check the data: every workspace's balance equals the sum of its credit ledger",
    synopsis: "doctor [--<setting> VALUE …]",
    options: {},
    help: [],
    config: true,
    async run(values) {
      const ctx = await contextOf(values);
      const drift = await checkBalances(ctx.db);
      await closeDb(ctx.db);
      if (drift.length === 0) {
        console.log("ok: every balance equals its ledger");
        return 0;
      }
      for (const d of drift) console.error(`drift: workspace ${d.workspace_id} ${d.kind}: ledger ${d.ledger}, balance ${d.balance}`);
      return 1;
    },
  },
  {
    name: "health",
    summary: "exit 0 when the local server answers /v1/health with ok (for container health checks)",
    synopsis: "health [--port N] [--host H]",
    options: {},
    help: [
      ["--port N", "the server's port (default ASSAY_PORT, else 8080)"],
      ["--host H", "the server's address (default ASSAY_HOST; 0.0.0.0 and :: ask 127.0.0.1)"],
    ],
    config: true,
    async run(values) {
      // No curl needed in the image: ask the running server.
      const config = configOf(values);
      const host = config.host === "0.0.0.0" || config.host === "::" ? "127.0.0.1" : config.host;
      try {
        const res = await fetch(`http://${host.includes(":") ? `[${host}]` : host}:${config.port}/v1/health`, { signal: AbortSignal.timeout(3000) });
        const body = (await res.json()) as { status?: string };
        console.log(body.status ?? "unknown");
        return body.status === "ok" ? 0 : 1;
      } catch (err) {
        console.error(`assay: health check failed: ${(err as Error).message}`);
        return 1;
      }
    },
  },
];

/** Why `dir` is not a backup Assay can restore (missing parts, a database that fails SQLite's integrity check), or null. */
function checkBackup(dir: string): string | null {
  if (!existsSync(path.join(dir, "assay.db"))) return "it holds no assay.db";
  if (!existsSync(path.join(dir, "objects"))) return "it holds no objects folder";
  const db = new Database(path.join(dir, "assay.db"), { readonly: true });
  try {
    const result = db.query("PRAGMA integrity_check").get() as { integrity_check: string } | null;
    if (result?.integrity_check !== "ok") return `its database fails SQLite's integrity check (${result?.integrity_check ?? "no answer"})`;
    if (!db.query("SELECT name FROM sqlite_master WHERE name = 'runs'").get()) return "its database is not an Assay database";
  } catch (err) {
    return `its database cannot be read (${(err as Error).message})`;
  } finally {
    db.close();
  }
  return null;
}

/** Printed at start while no user exists: how to create the first admin, as a command to paste. */
function firstRunMessage(config: Config, setupToken: string): string {
  const dataDir = config.dataDir;
  // A compiled binary runs from Bun's embedded file system; from a checkout, npx finds the Bun that npm installed.
  const assay = Bun.main.startsWith("/$bunfs/") ? process.execPath : "npx bun run src/main.ts";
  return [
    "",
    "No user exists yet. Create the first administrator (it gets a workspace of its own), then log in:",
    "",
    // On PostgreSQL the command needs the database too: named, not printed (the URL may hold a password).
    `  ${assay} user create --email you@example.com --password 'a long password' --role admin ${
      config.databaseUrl ? "(with this server's ASSAY_DATABASE_URL set)" : `--data-dir ${JSON.stringify(dataDir)}`
    }`,
    "",
    "(or start the server with ASSAY_ADMIN_EMAIL and ASSAY_ADMIN_PASSWORD set), or open this one-time setup link",
    "(valid for an hour, until a restart, and shown nowhere else):",
    "",
    `  ${config.publicUrl}/console/setup?token=${setupToken}`,
    "",
    "Until then no request can authenticate.",
    "",
  ].join("\n");
}

function commandUsage(c: Command): string {
  const rows: [string, string][] = [...c.help, ...(c.config ? [SETTINGS_HELP] : []), ["-h, --help", "show this help"]];
  const width = Math.max(...rows.map(([flag]) => flag.length));
  const lines = [
    `usage: assay ${c.synopsis}`,
    "",
    `${c.summary[0].toUpperCase()}${c.summary.slice(1)}.`,
    "",
    "options:",
    ...rows.map(([f, d]) => `  ${f.padEnd(width)}  ${d}`),
  ];
  if (c.name === "serve")
    lines.push(
      "",
      `settings: ${Object.keys(settingOptions())
        .map((f) => `--${f}`)
        .join(" ")}`,
    );
  return lines.join("\n");
}

function usage(): string {
  const width = Math.max(...commands.map((c) => c.name.length));
  return [
    `Assay ${pkg.version}: a self-hosted document-evaluation API server.`,
    "",
    "usage: assay <command> [options]",
    "",
    "commands:",
    ...commands.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    `  ${"help".padEnd(width)}  this text, or a command's (assay help user create)`,
    "",
    "assay <command> --help shows a command's options, assay --version the version.",
    "Exit status: 0 done, 1 failed, 2 a mistake in the call (the problem and the usage go to stderr).",
  ].join("\n");
}

/** The command named by the first one or two words, and the arguments after them. */
function findCommand(argv: string[]): { command: Command | null; rest: string[] } {
  for (const c of commands) {
    const words = c.name.split(" ");
    if (words.every((w, i) => argv[i] === w)) return { command: c, rest: argv.slice(words.length) };
  }
  return { command: null, rest: argv };
}

/** "unknown command: user delete", with the commands of that group when the first word names one (`user` → user create). */
function unknownCommand(argv: string[]): UsageError {
  const group = commands.filter((c) => c.name.includes(" ") && c.name.split(" ")[0] === argv[0]).map((c) => c.name);
  const words = argv.slice(0, group.length ? 2 : 1).join(" ");
  return new UsageError(`unknown command: ${words}${group.length ? ` (did you mean ${group.join(" or ")}?)` : ""}`);
}

async function main(argv: string[]): Promise<number> {
  if (argv[0] === "--version" || argv[0] === "-v") {
    console.log(pkg.version);
    return 0;
  }
  if (argv[0] === "help" || argv[0] === "--help" || argv[0] === "-h") {
    const topic = argv[0] === "help" && argv.length > 1 && argv[1] !== "help" ? argv.slice(1) : null;
    const command = topic ? findCommand(topic).command : null;
    if (topic && !command) throw unknownCommand(topic);
    console.log(command ? commandUsage(command) : usage());
    return 0;
  }
  // No command, or flags first: serve.
  const { command, rest } = argv.length === 0 || argv[0].startsWith("-") ? { command: commands[0], rest: argv } : findCommand(argv);
  if (!command) throw unknownCommand(argv);
  const options: Options = { ...command.options, ...(command.config ? settingOptions() : {}), help: { type: "boolean", short: "h" } };
  // "--amount -5": parseArgs takes "-5" for a flag of its own; a negative number after an option that takes a value is that value.
  const args: string[] = [];
  for (const arg of rest) {
    const previous = args[args.length - 1];
    const name = previous?.startsWith("--") && !previous.includes("=") ? previous.slice(2) : "";
    if (/^-\d/.test(arg) && options[name]?.type === "string") args[args.length - 1] = `${previous}=${arg}`;
    else args.push(arg);
  }
  let parsed: { values: Values; positionals: string[] };
  try {
    // No option is `multiple`, so every value is a string or a boolean.
    parsed = parseArgs({ args, options, allowPositionals: command.positionals !== undefined, strict: true }) as typeof parsed;
  } catch (err) {
    // parseArgs names the problem ("Unknown option '--x'", "Option '--email <value>' argument missing").
    throw new UsageError((err as Error).message, command);
  }
  if (parsed.values.help) {
    console.log(commandUsage(command));
    return 0;
  }
  if (command !== commands[0]) jit.restore(); // a server waits for real work first (lib/jit.ts)
  const count = parsed.positionals.length;
  if (command.positionals && (count < command.positionals.min || count > command.positionals.max)) {
    throw new UsageError(`expected ${command.synopsis}`, command);
  }
  return command.run(parsed.values, parsed.positionals);
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exit(code);
  },
  (err) => {
    if (err instanceof UsageError) {
      console.error(`assay: ${err.message}\n\n${err.command ? commandUsage(err.command) : usage()}`);
      process.exit(2);
    }
    if (err instanceof ConfigError || (err instanceof ApiError && err.status === 400)) {
      // A value refused (a bad setting, a short password, a debit below zero): fix the call, so a usage error, in one line.
      console.error(`assay: ${err.message}`);
      process.exit(2);
    }
    if (err instanceof ApiError) {
      // The call was right but the data says no (an email taken, no such user): a failure, in one line.
      console.error(`assay: ${err.message}`);
      process.exit(1);
    }
    console.error(err);
    process.exit(1);
  },
);
