// Wire format of webhook endpoints and deliveries (spec §2 WebhookEndpoint, §6 Events; CONTRACT.md "Webhooks").
import { t } from "elysia";
import type { webhookDeliveries, webhookEndpoints } from "../../db/schema";
import { JsonInteger, RequestBody } from "../../http/body";
import { ListQuery } from "../../http/pagination";
import { iso } from "../../lib/time";
import { EVENT_TYPES } from "./events";

export type EndpointRow = typeof webhookEndpoints.$inferSelect;
export type DeliveryRow = typeof webhookDeliveries.$inferSelect;

const EventList = t.Array(t.String({ examples: [...EVENT_TYPES] }), {
  minItems: 1,
  description: `Any of ${EVENT_TYPES.join(", ")}; omitted = all four. The list always filters, for an endpoint a workflow names too.`,
});
const EndpointStatus = t.Union([t.Literal("active"), t.Literal("disabled")]);

export const WebhookEndpoint = t.Object(
  {
    id: t.String({ examples: ["whk_4f8Qk2LmZ9xW1aBcDeFgHiJk"] }),
    object: t.Literal("webhook_endpoint"),
    url: t.String({ examples: ["https://example.com/hooks/assay"] }),
    events: t.Array(t.String()),
    status: EndpointStatus,
    created_at: t.String({ format: "date-time" }),
  },
  { title: "WebhookEndpoint" },
);

export const CreatedWebhookEndpoint = t.Object(
  {
    id: t.String(),
    object: t.Literal("webhook_endpoint"),
    url: t.String(),
    events: t.Array(t.String()),
    status: EndpointStatus,
    created_at: t.String({ format: "date-time" }),
    secret: t.String({ description: "Signing secret (whsec_…). Returned only here, once.", examples: ["whsec_9QZ…"] }),
    warning: t.String(),
  },
  { title: "CreatedWebhookEndpoint" },
);

export const CreateEndpointBody = RequestBody({
  url: t.String({
    minLength: 1,
    maxLength: 2048,
    description: "http(s); link-local and cloud metadata addresses are refused",
    examples: ["https://example.com/hooks/assay"],
  }),
  events: t.Optional(EventList),
});

export const UpdateEndpointBody = RequestBody({
  url: t.Optional(t.String({ minLength: 1, maxLength: 2048, examples: ["https://example.com/hooks/assay"] })),
  events: t.Optional(EventList),
  status: t.Optional(EndpointStatus),
});

export const EndpointParams = t.Object({ whk_id: t.String() });
export const DeliveryParams = t.Object({ whk_id: t.String(), whd_id: t.String() });
export const EndpointListQuery = t.Object(ListQuery);

export const DeletedEndpoint = t.Object(
  { id: t.String(), object: t.Literal("webhook_endpoint"), deleted: t.Literal(true) },
  { title: "DeletedWebhookEndpoint" },
);

const DeliveryAttempt = t.Object(
  {
    at: t.String({ format: "date-time" }),
    status: t.Union([JsonInteger(), t.Null()], { description: "The receiver's HTTP status; null when none came (timeout, connection error)" }),
    duration_ms: JsonInteger(),
    error: t.Optional(t.String()),
  },
  { title: "WebhookDeliveryAttempt" },
);

export const WebhookDelivery = t.Object(
  {
    id: t.String({ examples: ["whd_4f8Qk2LmZ9xW1aBcDeFgHiJk"] }),
    object: t.Literal("webhook_delivery"),
    endpoint_id: t.String(),
    event_id: t.String(),
    event_type: t.String(),
    status: t.Union([t.Literal("pending"), t.Literal("succeeded"), t.Literal("failed")]),
    attempts: t.Array(DeliveryAttempt),
    next_attempt_at: t.Union([t.String({ format: "date-time" }), t.Null()]),
    created_at: t.String({ format: "date-time" }),
  },
  { title: "WebhookDelivery" },
);

export const WebhookDeliveryWithPayload = t.Composite([
  WebhookDelivery,
  t.Object({ payload: t.Unknown({ description: "The event as it is sent, its download links signed afresh" }) }),
]);

export function toEndpointJson(row: EndpointRow) {
  return {
    id: row.id,
    object: "webhook_endpoint" as const,
    url: row.url,
    events: row.events,
    status: row.status,
    created_at: iso(row.createdAt),
  };
}

export function toDeliveryJson(row: DeliveryRow) {
  return {
    id: row.id,
    object: "webhook_delivery" as const,
    endpoint_id: row.endpointId,
    event_id: row.eventId,
    event_type: row.eventType,
    status: row.status,
    attempts: row.attempts,
    next_attempt_at: row.status === "pending" && row.nextAttemptAt != null ? iso(row.nextAttemptAt) : null,
    created_at: iso(row.createdAt),
  };
}
