// Routes: /v1/webhook-endpoints (list, create, read, update, delete) and each endpoint's delivery log and manual retry.
import { Elysia } from "elysia";
import type { Context } from "../../context";
import { authGuard } from "../../http/auth-guard";
import { strictBody } from "../../http/body";
import { ErrorBody } from "../../http/errors";
import { Page } from "../../http/pagination";
import { resignDownloadUrls } from "../../storage";
import { retryDelivery } from "./delivery";
import { notifyWebhooks } from "./events";
import {
  CreatedWebhookEndpoint,
  CreateEndpointBody,
  DeletedEndpoint,
  DeliveryParams,
  EndpointListQuery,
  EndpointParams,
  toDeliveryJson,
  toEndpointJson,
  UpdateEndpointBody,
  WebhookDelivery,
  WebhookDeliveryWithPayload,
  WebhookEndpoint,
} from "./model";
import { createEndpoint, deleteEndpoint, getDelivery, getEndpoint, listDeliveries, listEndpoints, updateEndpoint } from "./service";

export const webhookRoutes = (ctx: Context) =>
  new Elysia({ prefix: "/v1/webhook-endpoints", tags: ["Webhooks"] })
    .use(authGuard(ctx))
    .get("", ({ auth, query }) => listEndpoints(ctx.db, ctx.config.secret, auth.workspaceId, query), {
      auth: "webhooks:read",
      query: EndpointListQuery,
      response: { 200: Page(WebhookEndpoint), 400: ErrorBody, 401: ErrorBody },
      detail: {
        summary: "List webhook endpoints",
        description: "Newest first. Accepts `limit` and `cursor` like every list (the spec shows none for this one). No secrets.",
      },
    })
    .post(
      "",
      async ({ auth, body, status }) =>
        status(
          201,
          await createEndpoint(
            ctx.db,
            ctx.clock,
            { workspaceId: auth.workspaceId, url: body.url, events: body.events },
            ctx.config.webhookAllowedNetworks,
          ),
        ),
      {
        auth: "webhooks:write",
        ...strictBody(CreateEndpointBody),
        response: { 201: CreatedWebhookEndpoint, 400: ErrorBody, 401: ErrorBody },
        detail: { summary: "Create a webhook endpoint (the signing secret is shown once)" },
      },
    )
    .get("/:whk_id", async ({ auth, params }) => toEndpointJson(await getEndpoint(ctx.db, auth.workspaceId, params.whk_id)), {
      auth: "webhooks:read",
      params: EndpointParams,
      response: { 200: WebhookEndpoint, 401: ErrorBody, 404: ErrorBody },
      detail: { summary: "Get a webhook endpoint" },
    })
    .patch(
      "/:whk_id",
      async ({ auth, params, body }) => {
        const row = await updateEndpoint(ctx.db, ctx.clock, auth.workspaceId, params.whk_id, body, ctx.config.webhookAllowedNetworks);
        // Re-enabling releases deliveries that were held while the endpoint was disabled.
        if (body.status === "active") notifyWebhooks(ctx);
        return toEndpointJson(row);
      },
      {
        auth: "webhooks:write",
        params: EndpointParams,
        ...strictBody(UpdateEndpointBody),
        response: { 200: WebhookEndpoint, 400: ErrorBody, 401: ErrorBody, 404: ErrorBody },
        detail: { summary: "Update a webhook endpoint's url, events or status" },
      },
    )
    .delete("/:whk_id", ({ auth, params }) => deleteEndpoint(ctx.db, ctx.clock, auth.workspaceId, params.whk_id), {
      auth: "webhooks:write",
      params: EndpointParams,
      response: { 200: DeletedEndpoint, 401: ErrorBody, 404: ErrorBody },
      detail: { summary: "Delete a webhook endpoint (its pending deliveries stop)" },
    })
    .get("/:whk_id/deliveries", ({ auth, params, query }) => listDeliveries(ctx.db, ctx.config.secret, auth.workspaceId, params.whk_id, query), {
      auth: "webhooks:read",
      params: EndpointParams,
      query: EndpointListQuery,
      response: { 200: Page(WebhookDelivery), 400: ErrorBody, 401: ErrorBody, 404: ErrorBody },
      detail: { summary: "List an endpoint's deliveries, each with every attempt" },
    })
    .get(
      "/:whk_id/deliveries/:whd_id",
      async ({ auth, params }) => {
        const row = await getDelivery(ctx.db, auth.workspaceId, params.whk_id, params.whd_id);
        return { ...toDeliveryJson(row), payload: JSON.parse(resignDownloadUrls(row.payload, ctx.config, ctx.clock.now())) };
      },
      {
        auth: "webhooks:read",
        params: DeliveryParams,
        response: { 200: WebhookDeliveryWithPayload, 401: ErrorBody, 404: ErrorBody },
        detail: {
          summary: "One delivery, with its payload",
          description: "An Assay extension: the delivery log's entry and the event body it sends.",
        },
      },
    )
    .post(
      "/:whk_id/deliveries/:whd_id/retry",
      async ({ auth, params }) => toDeliveryJson(await retryDelivery(ctx, auth.workspaceId, params.whk_id, params.whd_id)),
      {
        auth: "webhooks:write",
        params: DeliveryParams,
        response: { 200: WebhookDelivery, 401: ErrorBody, 404: ErrorBody, 409: ErrorBody },
        detail: {
          summary: "Resend a delivery now",
          description:
            "Makes one attempt at once and answers the updated delivery. Allowed for pending and failed deliveries (409 invalid_state for a succeeded one). A failed delivery whose retry fails stays failed.",
        },
      },
    );
