// The wiring every module receives: config, database, clock and the in-memory caches that sit in front of them.
import path from "node:path";
import type { Config } from "./config";
import { openDb, type Db } from "./db/client";
import { OidcVerifier } from "./modules/auth/service";
import { KeyCache } from "./modules/keys/service";
import { Scheduler } from "./jobs/scheduler";

export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

export interface Context {
  config: Config;
  db: Db;
  clock: Clock;
  /** Per-process caches and hooks; everything here can be lost without losing work. */
  runtime: Runtime;
}

export interface Runtime {
  keys: KeyCache;
  oidc: OidcVerifier | null;
  /** Background workers; `scheduler.wake(name)` after writing new work (runs, jobs, webhooks). */
  scheduler: Scheduler;
}

/** Opens (and migrates) the database of `config.dataDir`. `config.secret` must be set (see ensureDataDir). */
export function createContext(config: Config, clock: Clock = systemClock): Context {
  const db = openDb(path.join(config.dataDir, "assay.db"));
  return {
    config,
    db,
    clock,
    runtime: { keys: new KeyCache(db), oidc: config.oidc ? new OidcVerifier(config.oidc) : null, scheduler: new Scheduler() },
  };
}
