// Registers every background worker on the context's scheduler. Each worker lives beside the rules it runs.
import type { Context } from "../context";
import { webhookWorker } from "../modules/webhooks/worker";
import { indexingWorker } from "../modules/reference-documents/worker";

export function registerJobs(ctx: Context): void {
  ctx.runtime.scheduler.add(webhookWorker(ctx));
  ctx.runtime.scheduler.add(indexingWorker(ctx));
}
