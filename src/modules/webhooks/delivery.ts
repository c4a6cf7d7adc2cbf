// Webhook deliveries: fan-out of outbox events into delivery rows, claiming one due row, sending one signed attempt,
// and the rules that decide what happens next (retry schedule, window, Retry-After, 410, disabling a dead endpoint).
import { and, asc, count, eq, gte, inArray, isNull, lte, ne, or, sql } from "drizzle-orm";
import type { Config } from "../../config";
import type { Context } from "../../context";
import { type Db, dialectOf, rows, tx } from "../../db/client";
import { events, webhookDeliveries, webhookEndpoints } from "../../db/schema";
import { ApiError } from "../../http/errors";
import { claim, firstWaiting, type QueueSpec } from "../../jobs/queue";
import type { Clock } from "../../lib/clock";
import { newId } from "../../lib/ids";
import { parseRetryAfter } from "../../lib/retry-after";
import { resignDownloadUrls } from "../../storage";
import { type RateWindow, rateLimit } from "../keys/service";
import type { DeliveryRow, EndpointRow } from "./model";
import { getDelivery, getEndpoint } from "./service";
import { signatureHeader } from "./signature";
import { deliveryTarget, type Resolve } from "./url-policy";

export type WebhookConfig = Pick<
  Config,
  | "webhookRetryScheduleMs"
  | "webhookRetryWindowMs"
  | "webhookTimeoutMs"
  | "webhookEndpointConcurrency"
  | "webhookAllowedNetworks"
  | "secret"
  | "publicUrl"
  | "dataDir"
  | "s3"
  | "leaseMs"
>;
type Attempt = DeliveryRow["attempts"][number];

/**
 * A claim outlives the attempt's timeout by half a lease (ASSAY_LEASE_MS; 30 s by default), so only a crashed
 * process's claim ever expires, and another process delivers in its place that much after the timeout.
 */
const claimMs = (config: WebhookConfig) => config.webhookTimeoutMs + Math.floor(config.leaseMs / 2);
/** An endpoint whose every delivery of this period failed is disabled. */
const DEAD_ENDPOINT_PERIOD_MS = 24 * 3_600_000;
/** Bounds a receiver's Retry-After; one that passes the retry window fails the delivery anyway (nextAttemptAt). */
const MAX_RETRY_AFTER_MS = 30 * 24 * 3600_000;
/** Floor under a receiver's Retry-After, so "Retry-After: 0" cannot turn into a tight loop. */
const MIN_RETRY_AFTER_MS = 1_000;

/**
 * Turns undispatched events into one pending delivery per target endpoint, and marks the events dispatched, in one
 * transaction. Targets: the workspace's active endpoints subscribed to the type (a workflow's own endpoint too, and
 * only for the types it subscribes to). The unique (event_id, endpoint_id) index makes it once.
 */
export async function dispatchEvents(db: Db, clock: Clock, limit = 100): Promise<number> {
  // Cheap look first: idle loops should not take the write lock every second.
  const [any] = await db.select({ id: events.id }).from(events).where(isNull(events.dispatchedAt)).limit(1);
  if (!any) return 0;
  return tx(
    db,
    async (t) => {
      // On PostgreSQL each process's dispatcher takes a batch no other is taking (SKIP LOCKED); on SQLite one writer.
      const lock = dialectOf(t) === "postgres" ? sql` FOR UPDATE SKIP LOCKED` : sql``;
      const picked = await rows<{ id: string }>(t, sql`SELECT id FROM events WHERE dispatched_at IS NULL ORDER BY created_at LIMIT ${limit}${lock}`);
      if (picked.length === 0) return 0;
      const batch = await t
        .select()
        .from(events)
        .where(
          inArray(
            events.id,
            picked.map((p) => p.id),
          ),
        )
        .orderBy(asc(events.createdAt));
      const now = clock.now();
      const endpointsOf = new Map<string, EndpointRow[]>();
      for (const event of batch) {
        let live = endpointsOf.get(event.workspaceId);
        if (!live) {
          live = await t
            .select()
            .from(webhookEndpoints)
            .where(
              and(eq(webhookEndpoints.workspaceId, event.workspaceId), eq(webhookEndpoints.status, "active"), isNull(webhookEndpoints.deletedAt)),
            );
          endpointsOf.set(event.workspaceId, live);
        }
        // An endpoint's events list always filters, the endpoint a workflow names included (CONTRACT "Fine points").
        const targets = live.filter((e) => e.events.includes(event.type));
        const payload = JSON.stringify({ id: event.id, type: event.type, created: Math.floor(event.createdAt / 1000), data: event.data });
        for (const endpoint of targets) {
          await t
            .insert(webhookDeliveries)
            .values({
              id: newId("whd"),
              workspaceId: event.workspaceId,
              endpointId: endpoint.id,
              eventId: event.id,
              eventType: event.type,
              payload,
              status: "pending",
              attempts: [],
              firstAttemptAt: null,
              nextAttemptAt: now,
              lockedUntil: null,
              createdAt: now,
            })
            .onConflictDoNothing();
        }
        await t.update(events).set({ dispatchedAt: now }).where(eq(events.id, event.id));
      }
      return batch.length;
    },
    { readCommitted: true },
  );
}

/**
 * Deliveries in flight (claimed, not yet answered) at once per workspace; per endpoint it is
 * ASSAY_WEBHOOK_ENDPOINT_CONCURRENCY (1..4). A receiver that hangs, or a tenant with many, occupies at most this many
 * of the WEBHOOK_LOOPS, never all of them.
 */
const MAX_IN_FLIGHT_PER_WORKSPACE = 4;
/** Parallel delivery loops: more than one workspace may hold, so another tenant's delivery always finds one free. */
export const WEBHOOK_LOOPS = 8;

const inFlight = (column: "endpoint_id" | "workspace_id") =>
  `(SELECT count(*) FROM webhook_deliveries f WHERE f.${column} = q.${column} AND f.status = 'pending' AND f.locked_until > $now)`;

/** Due deliveries of active endpoints, most overdue first, skipping endpoints and workspaces at their in-flight cap. */
const DELIVERY_QUEUE: QueueSpec<typeof webhookDeliveries> = {
  source: webhookDeliveries,
  table: "webhook_deliveries",
  pick: firstWaiting(
    "webhook_deliveries",
    `q.status = 'pending' AND q.next_attempt_at <= $now
      AND EXISTS (SELECT 1 FROM webhook_endpoints e WHERE e.id = q.endpoint_id AND e.status = 'active' AND e.deleted_at IS NULL)
      AND ${inFlight("endpoint_id")} < $perEndpoint AND ${inFlight("workspace_id")} < ${MAX_IN_FLIGHT_PER_WORKSPACE}`,
    "q.next_attempt_at, q.id",
  ),
  lock: "webhook-delivery-claims",
};

/**
 * Claims a due delivery through the one work queue, so two loops or two processes never send the same delivery at
 * once; a claim left by a crashed process expires at locked_until.
 */
export async function claimDelivery(db: Db, clock: Clock, config: WebhookConfig): Promise<DeliveryRow | null> {
  return await claim(db, DELIVERY_QUEUE, clock.now(), claimMs(config), { perEndpoint: config.webhookEndpointConcurrency });
}

/**
 * When the next attempt happens after a failed one, or null when it would fall outside the window (then the delivery
 * is failed). The schedule's delays are gaps between attempts, its last delay repeats; a receiver's Retry-After
 * replaces the delay.
 */
function nextAttemptAt(config: WebhookConfig, attemptsMade: number, firstAttemptAt: number, now: number, retryAfterMs: number | null): number | null {
  const schedule = config.webhookRetryScheduleMs;
  const delay = retryAfterMs != null ? Math.max(retryAfterMs, MIN_RETRY_AFTER_MS) : schedule[Math.min(attemptsMade - 1, schedule.length - 1)];
  const next = now + delay;
  return next > firstAttemptAt + config.webhookRetryWindowMs ? null : next;
}

interface Outcome {
  attempt: Attempt;
  ok: boolean;
  retryAfterMs: number | null;
  startedAt: number;
}

/**
 * One POST of the stored payload, its download links signed afresh (a retry hours later must not send a link that
 * has expired) and the body as sent signed with the endpoint's current secret. Tries each checked address of the
 * endpoint's host in turn until one connects. Never throws.
 */
export async function sendAttempt(
  clock: Clock,
  config: WebhookConfig,
  endpoint: EndpointRow,
  delivery: DeliveryRow,
  resolve?: Resolve,
): Promise<Outcome> {
  const startedAt = clock.now();
  const t0 = performance.now();
  const timeoutMs = config.webhookTimeoutMs;
  // One deadline for the whole attempt (DNS check + request), so it never outlives the claim.
  const signal = AbortSignal.timeout(timeoutMs);
  const done = (status: number | null, error?: string, retryAfterMs: number | null = null): Outcome => ({
    attempt: { at: new Date(startedAt).toISOString(), status, duration_ms: Math.round(performance.now() - t0), ...(error ? { error } : {}) },
    ok: status !== null && status >= 200 && status < 300,
    retryAfterMs,
    startedAt,
  });
  try {
    const target = await deliveryTarget(endpoint.url, timeoutMs, resolve, config.webhookAllowedNetworks);
    if ("problem" in target) return done(null, target.problem);
    const body = resignDownloadUrls(delivery.payload, config, startedAt);
    const headers = {
      ...(target.host ? { host: target.host } : {}),
      "content-type": "application/json",
      "user-agent": "Assay-Webhooks/1.0",
      "x-service-event": delivery.eventType,
      "x-service-delivery": delivery.id,
      "x-service-signature": signatureHeader(endpoint.secret, Math.floor(startedAt / 1000), body),
    };
    let res: Response | null = null;
    for (const [i, url] of target.urls.entries()) {
      try {
        // A redirect is a non-2xx answer: following it could lead to an address the URL rules refuse.
        res = await fetch(url, { method: "POST", headers, body, signal, redirect: "manual" });
        break;
      } catch (err) {
        // This address did not connect: the next one may (an answer of any status ends the attempt).
        if (signal.aborted || i === target.urls.length - 1) throw err;
      }
    }
    if (!res) return done(null, "could not connect");
    // The receiver's body is not needed; release the connection.
    await res.body?.cancel().catch(() => {});
    if (res.ok) return done(res.status);
    if (res.status === 410) return done(410, "410 Gone: the endpoint was disabled");
    const retryAfter =
      res.status === 429 || res.status === 503 ? parseRetryAfter(res.headers.get("retry-after"), clock.now(), MAX_RETRY_AFTER_MS) : null;
    const note = retryAfter != null ? `; Retry-After ${Math.ceil(retryAfter / 1000)} s` : "";
    return done(res.status, `receiver answered HTTP ${res.status}${note}`, retryAfter);
  } catch (err) {
    const e = err as { name?: string; code?: string; message?: string };
    if (signal.aborted || e.name === "TimeoutError" || e.name === "AbortError") return done(null, `no answer within ${timeoutMs} ms`);
    return done(null, `could not connect: ${e.code ?? e.message ?? "network error"}`);
  }
}

/**
 * Disables the endpoint when every delivery to it created in the last 24 h (and the one that just failed) has failed.
 * Call inside a transaction, with its handle as `db`.
 */
async function disableIfDead(db: Db, now: number, endpointId: string, failedId: string): Promise<void> {
  const [alive] = await db
    .select({ n: count() })
    .from(webhookDeliveries)
    .where(
      and(
        eq(webhookDeliveries.endpointId, endpointId),
        or(gte(webhookDeliveries.createdAt, now - DEAD_ENDPOINT_PERIOD_MS), eq(webhookDeliveries.id, failedId)),
        ne(webhookDeliveries.status, "failed"),
      ),
    );
  if ((alive?.n ?? 0) === 0) await disableEndpoint(db, now, endpointId);
}

/** Call inside a transaction, with its handle as `db`. */
async function disableEndpoint(db: Db, now: number, endpointId: string): Promise<void> {
  await db
    .update(webhookEndpoints)
    .set({ status: "disabled", updatedAt: now })
    .where(and(eq(webhookEndpoints.id, endpointId), eq(webhookEndpoints.status, "active")));
}

/**
 * Writes an attempt's outcome on the claimed row and releases the claim, in one transaction (the attempt itself was
 * made before, outside any transaction). `manual`: a retry asked for through the API; when it fails on an already
 * failed delivery, the delivery stays failed (no new schedule starts).
 */
async function recordAttempt(ctx: Context, claimed: DeliveryRow, outcome: Outcome, manual = false): Promise<DeliveryRow> {
  const { db, clock, config } = ctx;
  const row = await tx(db, async (t): Promise<DeliveryRow> => {
    const now = clock.now();
    const attempts = [...claimed.attempts, outcome.attempt];
    const firstAttemptAt = claimed.firstAttemptAt ?? outcome.startedAt;
    let status: DeliveryRow["status"];
    let next: number | null = null;
    if (outcome.ok) status = "succeeded";
    else if (outcome.attempt.status === 410) {
      status = "failed";
      await disableEndpoint(t, now, claimed.endpointId);
    } else if (manual && claimed.status === "failed") status = "failed";
    else {
      next = nextAttemptAt(config, attempts.length, firstAttemptAt, now, outcome.retryAfterMs);
      status = next === null ? "failed" : "pending";
    }
    const [row] = await t
      .update(webhookDeliveries)
      .set({ attempts, status, firstAttemptAt, nextAttemptAt: next, lockedUntil: null })
      // Only while our claim holds: a claim that expired belongs to whoever took the row over.
      .where(and(eq(webhookDeliveries.id, claimed.id), leaseHeld(claimed)))
      .returning();
    if (!row) {
      const [current] = await t.select().from(webhookDeliveries).where(eq(webhookDeliveries.id, claimed.id)).limit(1);
      return { ...claimed, ...(current ?? {}) };
    }
    if (status === "failed" && outcome.attempt.status !== 410 && claimed.status === "pending") {
      await disableIfDead(t, now, claimed.endpointId, claimed.id);
    }
    return row;
  });
  const result = row.status === "succeeded" ? "delivered" : row.status === "failed" ? "failed" : "retrying";
  ctx.metrics.webhookDeliveries.inc({ outcome: result });
  ctx.log[outcome.ok ? "info" : "warn"](
    {
      delivery_id: claimed.id,
      endpoint_id: claimed.endpointId,
      event_id: claimed.eventId,
      attempt: row.attempts.length,
      http_status: outcome.attempt.status,
      duration_ms: outcome.attempt.duration_ms,
      ...(outcome.attempt.error ? { error: outcome.attempt.error } : {}),
      outcome: result,
      manual,
    },
    "webhook delivery attempt",
  );
  return row;
}

/** Closes a claimed delivery without an attempt (endpoint gone, or its window passed while the endpoint was disabled). */
async function giveUp(db: Db, claimed: DeliveryRow): Promise<void> {
  await tx(db, (t) =>
    t
      .update(webhookDeliveries)
      .set({ status: "failed", nextAttemptAt: null, lockedUntil: null })
      .where(and(eq(webhookDeliveries.id, claimed.id), leaseHeld(claimed))),
  );
}

/** The row still carries the lease we claimed it with (a claimed row always has one). */
function leaseHeld(claimed: DeliveryRow) {
  return claimed.lockedUntil === null ? isNull(webhookDeliveries.lockedUntil) : eq(webhookDeliveries.lockedUntil, claimed.lockedUntil);
}

/**
 * Claims one due delivery and makes one attempt. Resolves false when nothing was due. The HTTP attempt runs outside
 * any transaction (it may take the whole attempt timeout); only the claim and the bookkeeping after it write.
 */
export async function deliverNext(ctx: Context): Promise<boolean> {
  const { db, clock, config } = ctx;
  const claimed = await claimDelivery(db, clock, config);
  if (!claimed) return false;
  const [endpoint] = await db.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, claimed.endpointId)).limit(1);
  const windowClosed = claimed.firstAttemptAt != null && clock.now() > claimed.firstAttemptAt + config.webhookRetryWindowMs;
  if (!endpoint || endpoint.deletedAt != null || windowClosed) {
    await giveUp(db, claimed);
    return true;
  }
  await recordAttempt(ctx, claimed, await sendAttempt(clock, config, endpoint, claimed));
  return true;
}

/** Manual retries per endpoint and minute: the delivery log must not become a fast probe of internal hosts. */
const MANUAL_RETRIES_PER_MINUTE = 10;
const retryWindows = new Map<string, RateWindow>();

function limitManualRetries(endpointId: string, now: number) {
  const window = retryWindows.get(endpointId) ?? { rateLimitRpm: MANUAL_RETRIES_PER_MINUTE, windowStart: 0, windowCount: 0 };
  retryWindows.delete(endpointId);
  retryWindows.set(endpointId, window);
  if (retryWindows.size > 10_000) retryWindows.delete(retryWindows.keys().next().value as string);
  const rl = rateLimit(window, MANUAL_RETRIES_PER_MINUTE, now);
  if (!rl.allowed) {
    throw new ApiError(429, "rate_limited", `At most ${MANUAL_RETRIES_PER_MINUTE} manual retries per endpoint and minute`, undefined, {
      "retry-after": String(rl.retryAfter),
    });
  }
}

/**
 * POST …/deliveries/<id>/retry: one attempt now, whatever next_attempt_at says, for a pending or failed delivery.
 * Success → succeeded. Failure of a pending one follows the schedule; of a failed one, it stays failed.
 */
export async function retryDelivery(ctx: Context, workspaceId: string, endpointId: string, deliveryId: string): Promise<DeliveryRow> {
  const { db, clock, config } = ctx;
  const endpoint = await getEndpoint(db, workspaceId, endpointId);
  limitManualRetries(endpoint.id, clock.now());
  const current = await getDelivery(db, workspaceId, endpoint.id, deliveryId);
  if (current.status === "succeeded") throw new ApiError(409, "invalid_state", "This delivery already succeeded");
  const now = clock.now();
  const [claimed] = await tx(db, (t) =>
    t
      .update(webhookDeliveries)
      .set({ lockedUntil: now + claimMs(config) })
      .where(
        and(
          eq(webhookDeliveries.id, current.id),
          inArray(webhookDeliveries.status, ["pending", "failed"]),
          // The queue's lease rule: a lease that ends at `now` is free.
          or(isNull(webhookDeliveries.lockedUntil), lte(webhookDeliveries.lockedUntil, now)),
        ),
      )
      .returning(),
  );
  if (!claimed) throw new ApiError(409, "invalid_state", "An attempt of this delivery is in progress; try again in a few seconds");
  // The attempt runs outside any transaction; recordAttempt writes its outcome in one.
  return recordAttempt(ctx, claimed, await sendAttempt(clock, config, endpoint, claimed), true);
}
