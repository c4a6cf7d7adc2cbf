// Webhook endpoints: create (secret shown once), list, read, update, soft delete; and the delivery log of one endpoint.
import { and, eq, isNull } from "drizzle-orm";
import { type Db, tx } from "../../db/client";
import { webhookDeliveries, webhookEndpoints, workflows } from "../../db/schema";
import { ApiError } from "../../http/errors";
import { listPage } from "../../http/pagination";
import type { Clock } from "../../lib/clock";
import { base62, newId } from "../../lib/ids";
import { EVENT_TYPES } from "./events";
import { type DeliveryRow, type EndpointRow, toDeliveryJson, toEndpointJson } from "./model";
import { urlProblem } from "./url-policy";

function checkUrl(url: string, allowed: readonly string[] | null): string {
  const trimmed = url.trim();
  const problem = urlProblem(trimmed, allowed);
  if (problem) throw new ApiError(400, "validation_error", problem, "url");
  return trimmed;
}

function checkEvents(events: string[]): string[] {
  events.forEach((type, i) => {
    if (!(EVENT_TYPES as readonly string[]).includes(type)) {
      throw new ApiError(400, "validation_error", `unknown event type "${type}"; known types: ${EVENT_TYPES.join(", ")}`, `events.${i}`);
    }
  });
  return [...new Set(events)];
}

/** `allowed`: ASSAY_WEBHOOK_ALLOWED_NETWORKS (null = no restriction beyond link-local and metadata addresses). */
export async function createEndpoint(
  db: Db,
  clock: Clock,
  input: { workspaceId: string; url: string; events?: string[] },
  allowed: readonly string[] | null = null,
) {
  const url = checkUrl(input.url, allowed);
  const events = checkEvents(input.events ?? [...EVENT_TYPES]);
  const now = clock.now();
  const row: EndpointRow = {
    id: newId("whk"),
    workspaceId: input.workspaceId,
    url,
    events,
    secret: `whsec_${base62(32)}`,
    status: "active",
    deletedAt: null,
    createdAt: now,
    updatedAt: now,
  };
  await tx(db, (t) => t.insert(webhookEndpoints).values(row));
  return {
    ...toEndpointJson(row),
    secret: row.secret,
    warning: "Store this signing secret now: it is shown only once and cannot be read again.",
  };
}

/** A live (not deleted) endpoint of the workspace, or 404. Other modules use it to check a workflow's webhook_endpoint_id. */
export async function getEndpoint(db: Db, workspaceId: string, endpointId: string): Promise<EndpointRow> {
  const [row] = await db
    .select()
    .from(webhookEndpoints)
    .where(and(eq(webhookEndpoints.id, endpointId), eq(webhookEndpoints.workspaceId, workspaceId), isNull(webhookEndpoints.deletedAt)))
    .limit(1);
  if (!row) throw new ApiError(404, "not_found", `No webhook endpoint ${endpointId}`);
  return row;
}

export async function listEndpoints(db: Db, secret: string, workspaceId: string, query: { limit?: number; cursor?: string }) {
  return listPage(db, secret, webhookEndpoints, { workspaceId, deletedAt: null }, query, toEndpointJson);
}

export async function updateEndpoint(
  db: Db,
  clock: Clock,
  workspaceId: string,
  endpointId: string,
  patch: { url?: string; events?: string[]; status?: "active" | "disabled" },
  allowed: readonly string[] | null = null,
): Promise<EndpointRow> {
  const row = await getEndpoint(db, workspaceId, endpointId);
  const changes: Partial<EndpointRow> = { updatedAt: clock.now() };
  if (patch.url !== undefined) changes.url = checkUrl(patch.url, allowed);
  if (patch.events !== undefined) changes.events = checkEvents(patch.events);
  if (patch.status !== undefined) changes.status = patch.status;
  await tx(db, (t) => t.update(webhookEndpoints).set(changes).where(eq(webhookEndpoints.id, row.id)));
  return { ...row, ...changes };
}

/** Soft delete. Its pending deliveries stop for good: they are marked failed in the same transaction. */
export async function deleteEndpoint(db: Db, clock: Clock, workspaceId: string, endpointId: string) {
  return tx(db, async (t) => {
    const row = await getEndpoint(t, workspaceId, endpointId);
    const now = clock.now();
    await t.update(webhookEndpoints).set({ deletedAt: now, updatedAt: now }).where(eq(webhookEndpoints.id, row.id));
    // Workflows that sent their runs' events to it no longer name it: an id that answers 404 is no setting.
    await t
      .update(workflows)
      .set({ webhookEndpointId: null, updatedAt: now })
      .where(and(eq(workflows.workspaceId, workspaceId), eq(workflows.webhookEndpointId, row.id)));
    await t
      .update(webhookDeliveries)
      .set({ status: "failed", nextAttemptAt: null })
      .where(and(eq(webhookDeliveries.endpointId, row.id), eq(webhookDeliveries.status, "pending")));
    return { id: row.id, object: "webhook_endpoint" as const, deleted: true as const };
  });
}

export async function listDeliveries(db: Db, secret: string, workspaceId: string, endpointId: string, query: { limit?: number; cursor?: string }) {
  const endpoint = await getEndpoint(db, workspaceId, endpointId);
  return listPage(db, secret, webhookDeliveries, { endpointId: endpoint.id, workspaceId }, query, toDeliveryJson);
}

/** One delivery of one live endpoint of the workspace, or 404. */
export async function getDelivery(db: Db, workspaceId: string, endpointId: string, deliveryId: string): Promise<DeliveryRow> {
  const endpoint = await getEndpoint(db, workspaceId, endpointId);
  const [row] = await db
    .select()
    .from(webhookDeliveries)
    .where(and(eq(webhookDeliveries.id, deliveryId), eq(webhookDeliveries.endpointId, endpoint.id), eq(webhookDeliveries.workspaceId, workspaceId)))
    .limit(1);
  if (!row) throw new ApiError(404, "not_found", `No webhook delivery ${deliveryId}`);
  return row;
}
