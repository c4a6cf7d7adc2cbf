// Registers every background worker on the context's scheduler, and the periodic cleanup. Each worker lives beside
// the rules it runs.
import type { Context } from "../context";
import { exclusively, JOB_LOCKS } from "../db/client";
import { purgeIdempotencyKeys } from "../modules/idempotency/service";
import { purgeRateWindows } from "../modules/keys/service";
import { expireAbandonedUploads } from "../modules/reference-documents/service";
import { indexingWorker } from "../modules/reference-documents/worker";
import { recoverRuns, runWorker } from "../modules/runs/worker";
import { webhookWorker } from "../modules/webhooks/worker";

export function registerJobs(ctx: Context): { stop(): void } {
  // Every minute, or every lease if shorter (and at start): presigned references never uploaded fail (their runs stop waiting), and runs whose
  // lease expired while running belong to a process that died (a restart within the lease leaves them to a later pass).
  // One process of a cluster does it at a time (an advisory lock on PostgreSQL).
  const recover = () =>
    exclusively(ctx.db, JOB_LOCKS.recovery, async () => {
      if (await expireAbandonedUploads(ctx)) ctx.runtime.scheduler.wake("runs");
      const recovered = await recoverRuns(ctx);
      if (recovered.requeued || recovered.failed) {
        ctx.log.warn({ requeued: recovered.requeued, failed: recovered.failed }, "recovered runs left running by a stopped process");
        ctx.runtime.scheduler.wake("runs");
      }
    }).then(
      () => {},
      (err) => ctx.log.error({ err }, "recovery pass failed"),
    );
  void recover();
  ctx.runtime.scheduler.add(runWorker(ctx));
  ctx.runtime.scheduler.add(webhookWorker(ctx));
  ctx.runtime.scheduler.add(indexingWorker(ctx));
  // Idempotency keys are kept 24 h, shared rate windows an hour; forget older ones every hour (and once at start).
  const cleanup = () =>
    exclusively(ctx.db, JOB_LOCKS.cleanup, async () => {
      await purgeIdempotencyKeys(ctx);
      await purgeRateWindows(ctx.db, ctx.clock.now());
    }).then(
      () => {},
      (err) => ctx.log.error({ err }, "idempotency key cleanup failed"),
    );
  void cleanup();
  // A plain timer, not a cron expression: the passes need no wall-clock alignment, and croner's first schedule cost
  // 10 ms of a 90 ms start and 2–3 MB of idle memory (docs/decisions.md).
  const hourly = every(3_600_000, cleanup);
  // As often as a lease can expire (at most every minute), so a crashed process's runs wait at most about two leases.
  const recovery = every(Math.min(60_000, ctx.config.leaseMs), recover);
  return {
    stop: () => {
      clearInterval(hourly);
      clearInterval(recovery);
    },
  };
}

/** Runs `pass` every `ms`, skipping a turn while the previous pass is still at work. */
function every(ms: number, pass: () => Promise<void>) {
  let busy = false;
  return setInterval(() => {
    if (busy) return;
    busy = true;
    pass().finally(() => {
      busy = false;
    });
  }, ms);
}
