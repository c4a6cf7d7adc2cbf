// Builds a Context: opens (and migrates) the database and wires the modules' runtime pieces into it. Only entry points
// (server, CLI) and tests call it; modules receive the Context it returns.
import path from "node:path";
import type { Config } from "./config";
import type { Context } from "./context";
import { openDb } from "./db/client";
import { Scheduler } from "./jobs/scheduler";
import { type Clock, systemClock } from "./lib/clock";
import { createLogger } from "./lib/log";
import { createMetrics } from "./lib/metrics";
import { authenticator, OidcVerifier } from "./modules/auth/service";
import { SetupGate } from "./modules/auth/setup";
import { KeyCache } from "./modules/keys/service";

/** Opens the database of `config.dataDir`. `config.secret` must be set (see ensureDataDir). */
export function createContext(config: Config, clock: Clock = systemClock): Context {
  const db = openDb(path.join(config.dataDir, "assay.db"));
  const log = createLogger(config.logLevel);
  const keys = new KeyCache(db, log);
  const oidc = config.oidc ? new OidcVerifier(config.oidc, log) : null;
  return {
    config,
    db,
    clock,
    log,
    metrics: createMetrics(),
    runtime: {
      authenticate: authenticator({ db, clock, config, keys, oidc }),
      forgetKey: (tokenHash) => keys.forget(tokenHash),
      scheduler: new Scheduler(log),
      setup: new SetupGate(),
    },
  };
}
