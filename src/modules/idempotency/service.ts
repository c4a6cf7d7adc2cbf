// Idempotency-Key: one stored response per (credential, method, path, key) for 24 hours; replays, conflicts,
// in-progress, and a stored response committed in the same transaction as what the request created.
import { eq, lte, sql } from "drizzle-orm";
import type { Context } from "../../context";
import { type Db, exec, prepared, tx } from "../../db/client";
import { idempotencyKeys } from "../../db/schema";
import { ApiError } from "../../http/errors";
import { sha256Hex } from "../../lib/ids";

const IDEMPOTENCY_RETENTION_MS = 24 * 3600 * 1000;

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
 * request's effect (the run, its credit hold), with that transaction's handle `t`: the key is written there, so the
 * effect and its stored response exist together or not at all, and a crash can never leave an effect whose key a
 * retry would execute again. When another process committed the same key first, `store` throws and the
 * transaction rolls back: that request's answer is replayed instead.
 */
export interface Reservation {
  store(t: Db, status: number, body: unknown): Promise<void>;
}

/**
 * The keys this process's requests are executing, with their request hashes. A key is written to the database only
 * with its request's effect (one commit, not a reservation and then the effect), so "in progress" lives here.
 */
const executing = new Map<string, string>();

/** Thrown by `store` when the key was committed by another process meanwhile; never leaves withIdempotency. */
class KeyTaken extends Error {}

/**
 * Runs `execute` at most once per key. A finished request's status and body are replayed; a different body is
 * 409 conflict; the same key while the first request still executes in this process is 409 idempotency_in_progress.
 * A request that ends in an error stores nothing, so that it can be retried once its cause is fixed. Two processes
 * sharing the database that execute the same key at once both get to the commit; the first commits, the other's
 * transaction rolls back and it replays the first's answer.
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
  const running = executing.get(id);
  if (running !== undefined) {
    throw running === scope.requestHash ? inProgress() : conflict();
  }
  // Held from here, before the first await: a second request with this key in this process now waits its turn.
  executing.set(id, scope.requestHash);
  try {
    const earlier = await answered(ctx, id, scope.requestHash);
    if (earlier) return earlier;
    let committed: string | null = null;
    const reservation: Reservation = {
      store: async (t, status, body) => {
        if (!(await claim(ctx, t, id, scope.requestHash, { status, body }))) throw new KeyTaken();
        committed = JSON.stringify({ status, body });
      },
    };
    let result: Result;
    try {
      result = await execute(reservation);
    } catch (err) {
      if (err instanceof KeyTaken) return await replayTaken(ctx, id, scope.requestHash);
      throw err;
    }
    // The final answer (a sync run's 200 once it finished) replaces what was committed with the effect; an async
    // request's answer is the one committed already, and is not written twice.
    const final = JSON.stringify({ status: result.status, body: result.body });
    if (committed === null) {
      if (!(await tx(ctx.db, (t) => claim(ctx, t, id, scope.requestHash, result)))) return await replayTaken(ctx, id, scope.requestHash);
    } else if (committed !== final) await tx(ctx.db, (t) => store(t, id, result));
    return { ...result, replayed: false };
  } finally {
    executing.delete(id);
  }
}

const conflict = () => new ApiError(409, "conflict", "This Idempotency-Key was used with a different request body");
const inProgress = () => new ApiError(409, "idempotency_in_progress", "A request with this Idempotency-Key is still being processed; retry shortly");

/** The stored answer for the key, replayed; null when there is none yet (or it expired). */
async function answered(ctx: Context, id: string, requestHash: string): Promise<Outcome | null> {
  const [row] = await findKey(ctx.db, id);
  if (!row || ctx.clock.now() - row.createdAt >= IDEMPOTENCY_RETENTION_MS) return null;
  if (row.requestHash !== requestHash) throw conflict();
  return { status: row.responseStatus ?? 200, body: JSON.parse(row.responseBody ?? "null"), replayed: true };
}

/** Another process committed the key first: its answer, which exists now. */
async function replayTaken(ctx: Context, id: string, requestHash: string): Promise<Outcome> {
  const earlier = await answered(ctx, id, requestHash);
  if (!earlier) throw inProgress();
  return earlier;
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

/**
 * Writes the key with its answer, in the transaction `t` of the request's effect. A row of the same key that expired
 * is replaced; a live one (another process committed this key first) is left as it is, and the answer is false.
 */
async function claim(ctx: Context, t: Db, id: string, requestHash: string, result: Result): Promise<boolean> {
  const now = ctx.clock.now();
  const written = await prepared(
    t,
    "idempotency-key-claim",
    () =>
      t
        .insert(idempotencyKeys)
        .values({
          scope: sql.placeholder("scope"),
          requestHash: sql.placeholder("requestHash"),
          responseStatus: sql.placeholder("status"),
          responseBody: sql.placeholder("body"),
          createdAt: sql.placeholder("now"),
        })
        .onConflictDoUpdate({
          target: idempotencyKeys.scope,
          set: {
            requestHash: sql`excluded.request_hash`,
            responseStatus: sql`excluded.response_status`,
            responseBody: sql`excluded.response_body`,
            createdAt: sql`excluded.created_at`,
          },
          setWhere: lte(idempotencyKeys.createdAt, sql.placeholder("cutoff")),
        })
        .returning({ scope: idempotencyKeys.scope }),
    { scope: id, requestHash, status: result.status, body: JSON.stringify(result.body), now, cutoff: now - IDEMPOTENCY_RETENTION_MS },
  );
  return written.length === 1;
}

/** Replaces the stored answer (a sync run's final one); `t` is the handle of the transaction it belongs to. */
async function store(t: Db, id: string, result: Result): Promise<void> {
  await prepared(
    t,
    "idempotency-key-store",
    () =>
      t
        .update(idempotencyKeys)
        .set({ responseStatus: sql`${sql.placeholder("status")}`, responseBody: sql`${sql.placeholder("body")}` })
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
