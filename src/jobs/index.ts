// Registers every background worker on the context's scheduler, and the periodic cleanup. Each worker lives beside
// the rules it runs.
import { Cron } from "croner";
import type { Context } from "../context";
import { purgeIdempotencyKeys, releaseInterruptedKeys } from "../modules/idempotency/service";
import { expireAbandonedUploads } from "../modules/reference-documents/service";
import { indexingWorker } from "../modules/reference-documents/worker";
import { recoverRuns, runWorker } from "../modules/runs/worker";
import { webhookWorker } from "../modules/webhooks/worker";

export function registerJobs(ctx: Context): { stop(): void } {
  // Every minute (and at start): presigned references never uploaded fail (their runs stop waiting), and runs whose
  // lease expired while running belong to a process that died (a restart within the lease leaves them to a later pass).
  const recover = () => {
    try {
      if (expireAbandonedUploads(ctx)) ctx.runtime.scheduler.wake("runs");
      const recovered = recoverRuns(ctx);
      if (recovered.requeued || recovered.failed) {
        ctx.log.warn({ requeued: recovered.requeued, failed: recovered.failed }, "recovered runs left running by a stopped process");
        ctx.runtime.scheduler.wake("runs");
      }
    } catch (err) {
      ctx.log.error({ err }, "recovery pass failed");
    }
  };
  recover();
  releaseInterruptedKeys(ctx);
  ctx.runtime.scheduler.add(runWorker(ctx));
  ctx.runtime.scheduler.add(webhookWorker(ctx));
  ctx.runtime.scheduler.add(indexingWorker(ctx));
  // Idempotency keys are kept 24 h; forget older ones every hour (and once at start).
  const cleanup = () => {
    try {
      purgeIdempotencyKeys(ctx);
    } catch (err) {
      ctx.log.error({ err }, "idempotency key cleanup failed");
    }
  };
  cleanup();
  const crons = [new Cron("17 * * * *", { protect: true }, cleanup), new Cron("* * * * *", { protect: true }, recover)];
  return {
    stop: () => {
      for (const c of crons) c.stop();
    },
  };
}
