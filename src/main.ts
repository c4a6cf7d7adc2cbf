// CLI entry: `serve` (default), `user create`, `credits grant`, `extract`, `migrate`.
import { copyFileSync, cpSync, existsSync, mkdirSync } from "node:fs";
import path from "node:path";
import { ConfigError, ensureDataDir, loadConfig } from "./config";
import { createContext } from "./create-context";
import { ApiError } from "./http/errors";
import { createUser, findUserByEmail } from "./modules/auth/service";
import { getBalance, grantCredits } from "./modules/usage/service";
import { startServer } from "./server";

const USAGE = `usage: assay [command] [options]
  serve [--port N] [--host H] [--data-dir DIR] …   start the server (default); every ASSAY_* variable has a --flag
  user create --email E --password P [--role admin|member]
  credits grant --email E --amount N [--kind regular|bonus]
  extract FILE [--json]                               print the text the server would extract from FILE
  backup --out DIR                                    consistent copy of the database and stored files (safe while serving)
  migrate                                             apply database migrations and exit
  health [--port N]                                   exit 0 when the local server answers /v1/health with ok`;

/** Pulls `--name value` options out of argv; what is left goes to the config (flags win over env). */
function takeOptions(argv: string[], names: string[]) {
  const opts: Record<string, string> = {};
  const rest: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const name = arg.startsWith("--") ? arg.slice(2).split("=")[0] : "";
    if (names.includes(name)) {
      const value = arg.includes("=") ? arg.slice(arg.indexOf("=") + 1) : argv[++i];
      if (value === undefined) throw new ConfigError(`--${name} needs a value`);
      opts[name] = value;
    } else rest.push(arg);
  }
  return { opts, rest };
}

function need(opts: Record<string, string>, name: string): string {
  const v = opts[name];
  if (!v) throw new ConfigError(`--${name} is required`);
  return v;
}

async function main(argv: string[]): Promise<number> {
  const [command = "serve", ...args] = argv[0]?.startsWith("--") ? ["serve", ...argv] : argv;
  switch (command) {
    case "serve": {
      const running = await startServer(loadConfig(process.env, args));
      console.log(`Assay listening on ${running.url}/v1 (docs: ${running.url}/docs, data: ${running.ctx.config.dataDir})`);
      const stop = async () => {
        await running.stop();
        process.exit(0);
      };
      process.on("SIGINT", stop);
      process.on("SIGTERM", stop);
      return -1; // keep running
    }
    case "user": {
      if (args[0] !== "create") break;
      const { opts, rest } = takeOptions(args.slice(1), ["email", "password", "role"]);
      const role = opts.role ?? "member";
      if (role !== "admin" && role !== "member") throw new ConfigError("--role must be admin or member");
      const ctx = createContext(ensureDataDir(loadConfig(process.env, rest)));
      const user = await createUser(ctx.db, ctx.clock, ctx.config, { email: need(opts, "email"), password: need(opts, "password"), role });
      console.log(`created ${user.role} ${user.email} (${user.id}, workspace ${user.workspaceId})`);
      return 0;
    }
    case "credits": {
      if (args[0] !== "grant") break;
      const { opts, rest } = takeOptions(args.slice(1), ["email", "amount", "kind"]);
      const kind = opts.kind ?? "regular";
      if (kind !== "regular" && kind !== "bonus") throw new ConfigError("--kind must be regular or bonus");
      const amount = Number(need(opts, "amount"));
      if (!Number.isFinite(amount)) throw new ConfigError("--amount must be a number");
      const ctx = createContext(ensureDataDir(loadConfig(process.env, rest)));
      const user = findUserByEmail(ctx.db, need(opts, "email"));
      if (!user) throw new ConfigError(`no user with email ${opts.email}`);
      ctx.db.$client.transaction(() => grantCredits(ctx.db, ctx.clock, user.workspaceId, amount, kind, "admin", "CLI grant")).immediate();
      console.log(JSON.stringify(getBalance(ctx.db, user.workspaceId)));
      return 0;
    }
    case "extract": {
      const { extractCli } = await import("./extract/cli");
      return extractCli(args);
    }
    case "backup": {
      const { opts, rest } = takeOptions(args, ["out"]);
      const out = path.resolve(need(opts, "out"));
      if (existsSync(path.join(out, "assay.db"))) throw new ConfigError(`--out ${out} already holds a backup; choose an empty folder`);
      const ctx = createContext(ensureDataDir(loadConfig(process.env, rest)));
      mkdirSync(out, { recursive: true });
      // VACUUM INTO writes a consistent snapshot even while a server writes; stored files never change once written.
      ctx.db.$client.run("VACUUM INTO ?", [path.join(out, "assay.db")]);
      cpSync(path.join(ctx.config.dataDir, "objects"), path.join(out, "objects"), { recursive: true });
      const secretFile = path.join(ctx.config.dataDir, "secret");
      if (existsSync(secretFile)) copyFileSync(secretFile, path.join(out, "secret"));
      console.log(`backup written to ${out} (restore: stop the server and use that folder as ASSAY_DATA_DIR)`);
      return 0;
    }
    case "health": {
      // For container health checks: ask the running server, no curl needed in the image.
      const config = loadConfig(process.env, args);
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
    }
    case "migrate": {
      const ctx = createContext(ensureDataDir(loadConfig(process.env, args)));
      ctx.db.$client.close();
      console.log("migrations applied");
      return 0;
    }
    case "help":
    case "--help":
      console.log(USAGE);
      return 0;
  }
  console.error(USAGE);
  return 2;
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exit(code);
  },
  (err) => {
    if (err instanceof ConfigError || err instanceof ApiError) {
      console.error(`assay: ${err.message}`);
      process.exit(2);
    }
    console.error(err);
    process.exit(1);
  },
);
