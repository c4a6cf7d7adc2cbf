// Idempotency-Key: one stored response per (credential, method, path, key) for 24 hours; replays, conflicts,
// in-progress, and a stored response committed in the same transaction as what the request created.
import os from "node:os";
import { and, eq, sql } from "drizzle-orm";
import type { Context } from "../../context";
import { type Db, exec, insertRow, prepared, tx } from "../../db/client";
import { idempotencyKeys } from "../../db/schema";
import { ApiError } from "../../http/errors";
import { sha256Hex } from "../../lib/ids";

const IDEMPOTENCY_RETENTION_MS = 24 * 3600 * 1000;
/**
 * How long a request may hold its key "in progress". The hold ends when the request's effect commits (a run's
 * creation transaction), which takes milliseconds; past this a key held by a process that died is taken over, so
 * several processes sharing the database never wait on each other's dead requests for long.
 */
export const IN_PROGRESS_LEASE_MS = 30_000;

/** This process, as the owner of the keys it holds: host, pid and start time (a reused pid is another owner). */
const OWNER = `${os.hostname()}:${process.pid}:${Date.now()}`;

export interface Outcome {
  status: number;
  body: unknown;
  replayed: boolean;
}

interface Result {
  status: number;
  body: unknown;
}

/**
 * The key a request holds while it executes. `store` must be called inside the transaction that commits the
 * request's effect (the run, its credit hold), with that transaction's handle `t`: the effect and its stored response
 * then exist together or not at all, so a crash can never leave an effect whose key a retry would execute again.
 */
export interface Reservation {
  store(t: Db, status: number, body: unknown): Promise<void>;
}

/**
 * Runs `execute` at most once per key. A finished request's status and body are replayed; a different body is
 * 409 conflict; the same key while the first request still executes is 409 idempotency_in_progress. A request that
 * ends in an error before anything was committed is forgotten, so that it can be retried once its cause is fixed.
 */
export async function withIdempotency(
  ctx: Context,
  key: string | undefined,
  scope: { credential: string; method: string; path: string; requestHash: string },
  execute: (reservation: Reservation | null) => Promise<Result>,
): Promise<Outcome> {
  if (key === undefined) return { ...(await execute(null)), replayed: false };
  if (!key.trim() || key.length > 255) throw new ApiError(400, "validation_error", "Idempotency-Key must be 1 to 255 characters", "Idempotency-Key");
  const id = sha256Hex(`${scope.credential}\n${scope.method}\n${scope.path}\n${key}`);
  const { db, clock } = ctx;
  const existing = await tx(db, async (t) => {
    const now = clock.now();
    const [row] = await findKey(t, id);
    // A key held in progress past its lease belongs to a request whose process died: nothing was committed for it.
    const abandoned = row?.status === "in_progress" && (row.lockedUntil ?? 0) <= now;
    if (row && now - row.createdAt < IDEMPOTENCY_RETENTION_MS && !abandoned) return row;
    if (row) await t.delete(idempotencyKeys).where(eq(idempotencyKeys.scope, id));
    await insertRow(t, idempotencyKeys, {
      scope: id,
      requestHash: scope.requestHash,
      status: "in_progress",
      createdAt: now,
      owner: OWNER,
      lockedUntil: now + IN_PROGRESS_LEASE_MS,
    });
    return null;
  });
  if (existing) {
    if (existing.requestHash !== scope.requestHash) {
      throw new ApiError(409, "conflict", "This Idempotency-Key was used with a different request body");
    }
    if (existing.status === "in_progress") {
      throw new ApiError(409, "idempotency_in_progress", "A request with this Idempotency-Key is still being processed; retry shortly");
    }
    return { status: existing.responseStatus ?? 200, body: JSON.parse(existing.responseBody ?? "null"), replayed: true };
  }
  let committed: string | null = null;
  const reservation: Reservation = {
    store: async (t, status, body) => {
      committed = JSON.stringify({ status, body });
      await store(t, id, { status, body });
    },
  };
  let result: Result;
  try {
    result = await execute(reservation);
  } catch (err) {
    // Only successes are kept: a request that failed (402, 409, 5xx …) may be retried with the same key. A key whose
    // response was already committed with its effect stays: the effect exists, so a retry must replay, not redo it.
    await tx(db, (t) => t.delete(idempotencyKeys).where(and(eq(idempotencyKeys.scope, id), eq(idempotencyKeys.status, "in_progress"))));
    throw err;
  }
  // The final answer (a sync run's 200 once it finished) replaces what was committed with the effect; an async
  // request's answer is the one committed already, and is not written twice.
  if (committed !== JSON.stringify({ status: result.status, body: result.body })) await tx(db, (t) => store(t, id, result));
  return { ...result, replayed: false };
}

// The statements every idempotent request runs, prepared once per database (or transaction handle).

function findKey(db: Db, id: string) {
  return prepared(
    db,
    "idempotency-key-find",
    () =>
      db
        .select()
        .from(idempotencyKeys)
        .where(eq(idempotencyKeys.scope, sql.placeholder("scope"))),
    {
      scope: id,
    },
  );
}

/** Writes the stored response; `t` is the handle of the transaction it belongs to. */
async function store(t: Db, id: string, result: Result): Promise<void> {
  await prepared(
    t,
    "idempotency-key-store",
    () =>
      t
        .update(idempotencyKeys)
        .set({
          status: "done",
          responseStatus: sql`${sql.placeholder("status")}`,
          responseBody: sql`${sql.placeholder("body")}`,
          owner: null,
          lockedUntil: null,
        })
        .where(eq(idempotencyKeys.scope, sql.placeholder("scope"))),
    { scope: id, status: result.status, body: JSON.stringify(result.body) },
  );
}

/** Cleanup job: forget keys older than the retention. Answers how many were deleted. */
export async function purgeIdempotencyKeys(ctx: Context): Promise<number> {
  const cutoff = ctx.clock.now() - IDEMPOTENCY_RETENTION_MS;
  // Raw for the count of deleted rows, which the query builder answers differently on each backend.
  return tx(ctx.db, (t) => exec(t, sql`DELETE FROM idempotency_keys WHERE created_at < ${cutoff}`));
}

/**
 * At start: a key still "in progress" whose owner is gone belongs to a request that never finished. Its effect and
 * its response commit together, so "in progress" means nothing was committed for it: free it for a retry at once.
 * Gone: a process of this host that no longer runs, or (any host) a lease that has run out. Keys held by live
 * processes sharing the database are left alone.
 */
export async function releaseInterruptedKeys(ctx: Context): Promise<number> {
  // Read and released in one transaction: a key taken over meanwhile by another process is not freed under it.
  return tx(ctx.db, async (t) => {
    const held = await t
      .select({ scope: idempotencyKeys.scope, owner: idempotencyKeys.owner, lockedUntil: idempotencyKeys.lockedUntil })
      .from(idempotencyKeys)
      .where(eq(idempotencyKeys.status, "in_progress"));
    const now = ctx.clock.now();
    const gone = held.filter((k) => k.owner !== OWNER && (k.owner === null || (k.lockedUntil ?? 0) <= now || deadHere(k.owner)));
    for (const k of gone) {
      await t.delete(idempotencyKeys).where(and(eq(idempotencyKeys.scope, k.scope), eq(idempotencyKeys.status, "in_progress")));
    }
    return gone.length;
  });
}

/** The owner ran on this host and its process no longer exists (or is not the one that took the key). */
function deadHere(owner: string): boolean {
  const [host, pid] = owner.split(":");
  if (host !== os.hostname()) return false;
  if (Number(pid) === process.pid) return true; // our pid, another start: a previous process of ours
  try {
    process.kill(Number(pid), 0);
    return false;
  } catch (err) {
    return (err as { code?: string }).code === "ESRCH";
  }
}
