// The outbox: other modules record events here inside the transaction that makes the change they report.
import type { Context } from "../../context";
import type { Db } from "../../db/client";
import { events } from "../../db/schema";
import type { Clock } from "../../lib/clock";
import { newId } from "../../lib/ids";

export const EVENT_TYPES = ["run.succeeded", "run.failed", "run.canceled", "reference_document.ready"] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/**
 * Writes an event row. Call it inside the caller's transaction (see db/client.ts `tx`), passing its handle as `db`,
 * so the event exists exactly when the change does. `data` is the payload's data ({run} or {reference_document}) at that moment.
 * The webhook deliverer fans it out to the endpoints subscribed to its type.
 */
export async function recordEvent(
  db: Db,
  clock: Clock,
  input: { workspaceId: string; type: EventType; subjectId: string; data: Record<string, unknown> },
): Promise<string> {
  const id = newId("evt");
  await db.insert(events).values({
    id,
    workspaceId: input.workspaceId,
    type: input.type,
    subjectId: input.subjectId,
    data: input.data,
    createdAt: clock.now(),
  });
  return id;
}

/** The scheduler name of the webhook worker (see worker.ts). */
export const WEBHOOK_WORKER = "webhooks";

/**
 * Call after the transaction that recorded events has committed: wakes the webhook worker so delivery starts now
 * rather than at its next poll. Harmless when the scheduler is not running (CLI, tests).
 */
export function notifyWebhooks(ctx: Pick<Context, "runtime">): void {
  ctx.runtime.scheduler.wake(WEBHOOK_WORKER);
}
