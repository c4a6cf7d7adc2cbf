// Builds a Context: opens (and migrates) the database and wires the modules' runtime pieces into it. Only entry points
// (server, CLI) and tests call it; modules receive the Context it returns.
import path from "node:path";
import { type Config, ConfigError, withoutPassword } from "./config";
import type { Context } from "./context";
import { openDb, storeSecret } from "./db/client";
import { Scheduler } from "./jobs/scheduler";
import { type Clock, systemClock } from "./lib/clock";
import { createLogger } from "./lib/log";
import { createMetrics } from "./lib/metrics";
import { authenticator, OidcVerifier } from "./modules/auth/service";
import { SetupGate } from "./modules/auth/setup";
import { KeyCache } from "./modules/keys/service";

/** Opens the database (ASSAY_DATABASE_URL, else SQLite in `config.dataDir`). `config.secret` must be set (see ensureDataDir). */
export async function createContext(baseConfig: Config, clock: Clock = systemClock): Promise<Context> {
  const db = await openDb(baseConfig.databaseUrl ?? path.join(baseConfig.dataDir, "assay.db"), { poolSize: baseConfig.databasePool }).catch(
    (err: Error) => {
      // A database that cannot be reached, refuses the login or does not exist: one line naming the setting.
      if (!baseConfig.databaseUrl) throw err;
      throw new ConfigError(`ASSAY_DATABASE_URL: cannot use ${withoutPassword(baseConfig.databaseUrl)}: ${err.message}`);
    },
  );
  // Processes sharing a PostgreSQL database share its secret (the first one's), so any of them honours what another signed.
  const config = baseConfig.databaseUrl ? { ...baseConfig, secret: await storeSecret(db, baseConfig.secret) } : baseConfig;
  const log = createLogger(config.logLevel);
  const keys = new KeyCache(db, log);
  const oidc = config.oidc ? new OidcVerifier(config.oidc, log) : null;
  return {
    config,
    db,
    clock,
    log,
    metrics: await createMetrics(config.metrics !== null),
    runtime: {
      authenticate: authenticator({ db, clock, config, keys, oidc }),
      forgetKey: (tokenHash) => keys.forget(tokenHash),
      scheduler: new Scheduler(log),
      setup: new SetupGate(),
    },
  };
}
