// The in-process scheduler: named workers that poll for claimable rows, woken early when new work is written.
// Work itself is always a row on the one work queue (jobs/queue.ts); this only decides when to look.
import { jit } from "../lib/jit";
import type { Logger } from "../lib/log";
import { Waiters } from "../lib/waiters";

export interface JobWorker {
  name: string;
  /** Parallel loops of this worker (e.g. ASSAY_WORKERS for runs). */
  concurrency: number;
  /** How long an idle loop sleeps before looking again. */
  idleMs: number;
  /** Claims and does one unit of work; resolves true if there was any (the loop goes again at once). */
  tick(): Promise<boolean>;
}

export class Scheduler {
  private readonly workers = new Map<string, JobWorker>();
  private readonly waiters = new Waiters();
  private readonly loops: Promise<void>[] = [];
  private running = false;
  private readonly shutdown = new AbortController();

  constructor(private readonly log: Logger) {}

  /** Aborted when a stop's grace period is over: work still in hand stops and gives its row back (see withLease). */
  get stopping(): AbortSignal {
    return this.shutdown.signal;
  }

  add(worker: JobWorker): this {
    this.workers.set(worker.name, worker);
    return this;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    for (const worker of this.workers.values()) {
      for (let i = 0; i < worker.concurrency; i++) this.loops.push(this.loop(worker));
    }
  }

  /** Wakes the idle loops of a worker so new work starts now rather than at the next poll. */
  wake(name: string): void {
    this.waiters.wake(name);
  }

  /**
   * Stops claiming new work and lets the work in hand finish for up to `graceMs`; then aborts it (`stopping`), so that
   * each worker gives its row back for the next process to resume at once, and waits for that.
   */
  async stop(graceMs = Number.POSITIVE_INFINITY): Promise<void> {
    this.running = false;
    this.waiters.wakeAll();
    const all = Promise.all(this.loops);
    let timer: ReturnType<typeof setTimeout> | undefined;
    const grace = Number.isFinite(graceMs)
      ? new Promise<void>((resolve) => {
          timer = setTimeout(resolve, graceMs);
        })
      : new Promise<void>(() => {});
    await Promise.race([all, grace]);
    clearTimeout(timer);
    this.shutdown.abort(new Error("the server is stopping"));
    await all;
    this.loops.length = 0;
  }

  private async loop(worker: JobWorker): Promise<void> {
    while (this.running) {
      let didWork = false;
      try {
        didWork = await worker.tick();
        if (didWork) jit.restore();
      } catch (err) {
        // A worker's own errors are recorded on its rows; anything reaching here is a bug worth a log line, not a crash.
        this.log.error({ err, worker: worker.name }, "background worker failed");
      }
      if (!didWork && this.running) await this.waiters.wait(worker.name, worker.idleMs);
    }
  }
}
