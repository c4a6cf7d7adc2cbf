// What every module receives: config, database, clock and the per-process runtime pieces that sit in front of them.
// Types only: src/create-context.ts builds one (this file imports no module, so every module can import it).
import type { Config } from "./config";
import type { Db } from "./db/client";
import type { Authenticate } from "./http/caller";
import type { Scheduler } from "./jobs/scheduler";
import type { Clock } from "./lib/clock";
import type { Logger } from "./lib/log";
import type { Metrics } from "./lib/metrics";
import type { SetupGate } from "./modules/auth/setup";

export interface Context {
  config: Config;
  db: Db;
  clock: Clock;
  /** The structured log (lib/log): `ctx.log.info({ run_id }, "run finished")`; ids only, never credentials or text. */
  log: Logger;
  /** Prometheus counters and histograms (lib/metrics), served by GET /metrics when ASSAY_METRICS=1. */
  metrics: Metrics;
  /** Per-process caches and hooks; everything here can be lost without losing work. */
  runtime: Runtime;
}

interface Runtime {
  /** Bearer token → caller, for the HTTP guard; the auth module's (API keys cached in memory, sessions, OIDC). */
  authenticate: Authenticate;
  /** Drops a revoked key from the authenticator's cache, so it stops working at once. */
  forgetKey(tokenHash: string): void;
  /** The first run's one-time setup token (POST /v1/auth/setup). */
  setup: SetupGate;
  /** Background workers; `scheduler.wake(name)` after writing new work (runs, jobs, webhooks). */
  scheduler: Scheduler;
}
