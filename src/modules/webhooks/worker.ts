// The webhook worker: each tick fans out new outbox events into deliveries, then sends one due delivery.
import type { Context } from "../../context";
import type { JobWorker } from "../../jobs/scheduler";
import { deliverNext, dispatchEvents, WEBHOOK_LOOPS } from "./delivery";
import { WEBHOOK_WORKER } from "./events";

export function webhookWorker(ctx: Context): JobWorker {
  // Idle loops look again after 1 s, or sooner when the retry schedule itself is shorter (tests, tight configs).
  const shortest = Math.min(...ctx.config.webhookRetryScheduleMs);
  return {
    name: WEBHOOK_WORKER,
    // Several loops, and in-flight caps per endpoint and workspace in the claim: a slow receiver (up to the attempt
    // timeout) holds a few loops at most, never another tenant's deliveries.
    concurrency: WEBHOOK_LOOPS,
    idleMs: Math.max(50, Math.min(1_000, Math.floor(shortest / 2))),
    async tick() {
      const dispatched = await dispatchEvents(ctx.db, ctx.clock);
      const sent = await deliverNext(ctx);
      return dispatched > 0 || sent;
    },
  };
}
