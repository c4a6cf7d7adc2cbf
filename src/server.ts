// Starts Assay: data dir, database, admin bootstrap, HTTP server and background jobs; stops them cleanly.

import { createApp } from "./app";
import { type Config, describeConfig, ensureDataDir } from "./config";
import type { Context } from "./context";
import { createContext } from "./create-context";
import { closeDb } from "./db/client";
import { registerJobs } from "./jobs";
import type { Clock } from "./lib/clock";
import { ensureAdmin } from "./modules/auth/service";
import { probeObjectStore } from "./storage";

export interface Running {
  ctx: Context;
  url: string;
  stop(): Promise<void>;
}

const JOBS_START_DELAY_MS = 50;

export async function startServer(baseConfig: Config, clock?: Clock): Promise<Running> {
  const config = ensureDataDir(baseConfig);
  await probeObjectStore(config);
  const ctx = await createContext(config, clock);
  await ensureAdmin(ctx.db, ctx.clock, config);
  const app = createApp(ctx);
  // The background passes (recovery, cleanup, each worker's first claim) start a moment after listening: run at once,
  // they held a restarted server's first answer (a load balancer's health probe) back by 12–15 ms, a seventh of a
  // start. Queued runs wait JOBS_START_DELAY_MS longer; nothing else changes.
  let jobs: { stop(): void } | null = null;
  const jobsTimer = setTimeout(() => {
    jobs = registerJobs(ctx);
    ctx.runtime.scheduler.start();
  }, JOBS_START_DELAY_MS);
  // Bun's own cap answers an empty 413; ours (per route, while streaming) answer with a readable error body.
  // idleTimeout (s) outlasts the 60 s extraction limit, so a slow `complete` is answered, never cut off at Bun's 10 s.
  app.listen({ hostname: config.host, port: config.port, maxRequestBodySize: 1024 * 1024 * 1024, idleTimeout: 90 });
  const port = app.server?.port ?? config.port;
  const url = `http://${config.host.includes(":") ? `[${config.host}]` : config.host}:${port}`;
  ctx.log.info({ url: `${url}/v1`, docs: `${url}/docs`, config: describeConfig(config) }, "Assay listening");
  return {
    ctx,
    url,
    async stop() {
      clearTimeout(jobsTimer); // stopped before the background passes began: they never do
      // No new periodic pass from now on, whatever happens next: a request that never ends must not leave the
      // recovery and cleanup timers running on a database about to close.
      jobs?.stop();
      ctx.log.info({ grace_ms: config.shutdownGraceMs }, "stopping: running work has the grace period to finish");
      await app.stop(); // no new connections; requests in flight finish
      await Bun.sleep(20); // the after-response hooks (log line, metrics) of the last answers run
      await ctx.runtime.scheduler.stop(config.shutdownGraceMs);
      await closeDb(ctx.db);
      ctx.log.info("stopped");
      // The log is written asynchronously: wait for the last lines before the process may exit.
      await new Promise<void>((resolve) => ctx.log.flush(() => resolve()));
    },
  };
}
