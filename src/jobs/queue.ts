// The one work queue. Every kind of background work (runs, indexing jobs, webhook deliveries) is a row with a lease
// (`locked_until`): claimed with one UPDATE … RETURNING, renewed while the work runs, cleared when the work ends.
// One boundary rule everywhere: a lease that ends at t is free at t (`locked_until <= now`).
import { eq, type SQL, sql } from "drizzle-orm";
import { type Db, dialectOf, exec, row, tx } from "../db/client";
import type { jobs, runs, webhookDeliveries } from "../db/schema";
import type { Clock } from "../lib/clock";
import type { Logger } from "../lib/log";

type QueueTable = typeof runs | typeof jobs | typeof webhookDeliveries;

/** How one table's rows wait. SQL may use the named parameters `$now` and those passed to claim() (bound, never spliced). */
export interface QueueSpec<T extends QueueTable = QueueTable> {
  /** The table whose rows are the work. */
  source: T;
  table: "runs" | "jobs" | "webhook_deliveries";
  /** A SELECT of the one row to claim next; it must hold LEASE_FREE for its row (alias `q`). Fairness lives here. */
  pick: string;
  /** Extra SET assignments made by the claim (e.g. `status = 'running', attempts = attempts + 1`). */
  onClaim?: string;
  /**
   * Names a lock when the pick checks a cap across rows ("fewer than N in flight"): on PostgreSQL such claims then run
   * one after another, each counting the claims committed before it. Without it two claims at once both count N - 1 and
   * both take a row (SKIP LOCKED lets each find a different one). SQLite runs one claim at a time anyway.
   */
  lock?: string;
}

/** The lease clause: free when unset or ended. Exported so every scan uses the same boundary. */
export const LEASE_FREE = "(q.locked_until IS NULL OR q.locked_until <= $now)";

/** The plain pick: the first row (by `order`) that is `waiting` and free. */
export function firstWaiting(table: QueueSpec["table"], waiting: string, order: string): string {
  return `SELECT q.id FROM ${table} q WHERE (${waiting}) AND ${LEASE_FREE} ORDER BY ${order} LIMIT 1`;
}

/**
 * Claims the first waiting row whose lease is free, for `leaseMs`: one statement, so two workers (or two processes)
 * never take the same row; on PostgreSQL the pick also skips rows another process is claiming at this instant
 * (FOR UPDATE … SKIP LOCKED), so concurrent claimers each get a different row instead of waiting. Returns the row as
 * it stands after the claim (its `lockedUntil` is the lease), or null when nothing waits.
 */
export async function claim<T extends QueueTable>(
  db: Db,
  spec: QueueSpec<T>,
  now: number,
  leaseMs: number,
  params: Record<string, string | number> = {},
): Promise<T["$inferSelect"] | null> {
  const lease = now + leaseMs;
  const pick = dialectOf(db) === "postgres" ? `${spec.pick} FOR UPDATE OF q SKIP LOCKED` : spec.pick;
  const statement = bind(
    `UPDATE ${spec.table} SET locked_until = $lease${spec.onClaim ? `, ${spec.onClaim}` : ""} WHERE id = (${pick}) RETURNING id`,
    { ...params, now, lease },
  );
  const claimed = await tx(db, (t) => row<{ id: string | number }>(t, statement), spec.lock ? { lock: spec.lock } : { readCommitted: true });
  if (!claimed) return null;
  const source = spec.source as QueueTable;
  const [found] = await db
    .select()
    .from(source)
    .where(eq(source.id, claimed.id as never))
    .limit(1);
  return (found as T["$inferSelect"] | undefined) ?? null;
}

/** SQL text with `$name` parameters → a drizzle query with those values bound. */
function bind(text: string, params: Record<string, string | number>): SQL {
  const parts = text.split(/\$(\w+)/);
  const chunks: SQL[] = [];
  parts.forEach((part, i) => {
    if (i % 2 === 0) chunks.push(sql.raw(part));
    else {
      if (!(part in params)) throw new Error(`queue SQL names $${part}, which claim() was not given`);
      chunks.push(sql`${params[part]}`);
    }
  });
  return sql.join(chunks);
}

/**
 * Extends a lease we still hold. Returns the new lease, or null when it is no longer ours (it expired and another
 * worker took the row, or the row moved on): the work must then stop.
 */
export async function renew(
  db: Db,
  table: QueueSpec["table"],
  id: string | number,
  lease: number,
  now: number,
  leaseMs: number,
): Promise<number | null> {
  const next = Math.max(now + leaseMs, lease + 1);
  const changed = await tx(
    db,
    (t) => exec(t, sql`UPDATE ${sql.identifier(table)} SET locked_until = ${next} WHERE id = ${id} AND locked_until = ${lease}`),
    {
      readCommitted: true,
    },
  );
  return changed === 1 ? next : null;
}

export class LeaseLost extends Error {
  constructor(table: string, id: string | number) {
    super(`lost the lease on ${table} ${id}`);
    this.name = "LeaseLost";
  }
}

/**
 * Keeps a claimed row's lease alive while `work` runs (renewed every third of the lease). A renewal that fails aborts
 * the signal handed to `work` before the lease can pass to another worker, so the work stops instead of running
 * twice. Resolves with the work's result and the lease as it stands at the end.
 */
export async function withLease<T>(
  { db, clock, log }: { db: Db; clock: Clock; log: Logger },
  claimed: { table: QueueSpec["table"]; id: string | number; lease: number; leaseMs: number },
  work: (signal: AbortSignal, lease: () => number) => Promise<T>,
  stopping?: AbortSignal,
): Promise<T> {
  const controller = new AbortController();
  // The server stopping after its grace period aborts the work too; the row is then given back at once (below).
  const onStop = () => controller.abort(stopping?.reason);
  stopping?.addEventListener("abort", onStop, { once: true });
  let lease = claimed.lease;
  let renewing: Promise<void> | null = null;
  const renewOnce = async () => {
    let next: number | null = null;
    try {
      next = await renew(db, claimed.table, claimed.id, lease, clock.now(), claimed.leaseMs);
    } catch (err) {
      log.error({ err, table: claimed.table, id: claimed.id }, "lease renewal failed");
    }
    if (next === null) {
      clearInterval(timer);
      controller.abort(new LeaseLost(claimed.table, claimed.id));
    } else lease = next;
  };
  const timer = setInterval(
    () => {
      // One renewal at a time: a slow database must not stack them (each would compare against a stale lease).
      renewing ??= renewOnce().finally(() => {
        renewing = null;
      });
    },
    Math.max(10, Math.floor(claimed.leaseMs / 3)),
  );
  try {
    return await work(controller.signal, () => lease);
  } finally {
    clearInterval(timer);
    await renewing; // so `lease` below is the one the row holds
    stopping?.removeEventListener("abort", onStop);
    // Stopped by a shutdown: free the lease so the next process takes the row now, not when the lease runs out.
    if (stopping?.aborted) {
      const given = sql`UPDATE ${sql.identifier(claimed.table)} SET locked_until = NULL WHERE id = ${claimed.id} AND locked_until = ${lease}`;
      await tx(db, (t) => exec(t, given), { readCommitted: true });
    }
  }
}
