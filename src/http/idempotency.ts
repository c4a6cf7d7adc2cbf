// Idempotency-Key: one stored response per (credential, method, path, key) for 24 hours; replays, conflicts, in-progress.
import { eq } from "drizzle-orm";
import type { Context } from "../context";
import { tx } from "../db/client";
import { idempotencyKeys } from "../db/schema";
import { sha256Hex } from "../lib/ids";
import { ApiError } from "./errors";

export const IDEMPOTENCY_RETENTION_MS = 24 * 3600 * 1000;

export interface Outcome {
  status: number;
  body: unknown;
  replayed: boolean;
}

/**
 * Runs `execute` at most once per key. A finished request's status and body are replayed; a different body is
 * 409 conflict; the same key while the first request still executes is 409 idempotency_in_progress. A request that
 * ends in an error is forgotten, so that it can be retried once its cause is fixed.
 */
export async function withIdempotency(
  ctx: Context,
  key: string | undefined,
  scope: { credential: string; method: string; path: string; requestHash: string },
  execute: () => Promise<{ status: number; body: unknown }>,
): Promise<Outcome> {
  if (key === undefined) return { ...(await execute()), replayed: false };
  if (!key.trim() || key.length > 255) throw new ApiError(400, "validation_error", "Idempotency-Key must be 1 to 255 characters", "Idempotency-Key");
  const id = sha256Hex(`${scope.credential}\n${scope.method}\n${scope.path}\n${key}`);
  const { db, clock } = ctx;
  const existing = tx(db, () => {
    const now = clock.now();
    const row = db.select().from(idempotencyKeys).where(eq(idempotencyKeys.scope, id)).get();
    if (row && now - row.createdAt < IDEMPOTENCY_RETENTION_MS) return row;
    if (row) db.delete(idempotencyKeys).where(eq(idempotencyKeys.scope, id)).run();
    db.insert(idempotencyKeys).values({ scope: id, requestHash: scope.requestHash, status: "in_progress", createdAt: now }).run();
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
  let result: { status: number; body: unknown };
  try {
    result = await execute();
  } catch (err) {
    // Only successes are kept: a request that failed (402, 409, 5xx …) may be retried with the same key.
    db.delete(idempotencyKeys).where(eq(idempotencyKeys.scope, id)).run();
    throw err;
  }
  finish(ctx, id, result);
  return { ...result, replayed: false };
}

function finish(ctx: Context, id: string, result: { status: number; body: unknown }) {
  ctx.db
    .update(idempotencyKeys)
    .set({ status: "done", responseStatus: result.status, responseBody: JSON.stringify(result.body) })
    .where(eq(idempotencyKeys.scope, id))
    .run();
}

/** Cleanup job: forget keys older than the retention. */
export function purgeIdempotencyKeys(ctx: Context): number {
  return ctx.db.$client.run("DELETE FROM idempotency_keys WHERE created_at < ?", [ctx.clock.now() - IDEMPOTENCY_RETENTION_MS]).changes;
}

/** At start: a key still "in progress" belongs to a request the previous process never finished; free it for a retry. */
export function releaseInterruptedKeys(ctx: Context): number {
  return ctx.db.$client.run("DELETE FROM idempotency_keys WHERE status = 'in_progress'").changes;
}
