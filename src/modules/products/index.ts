// Routes: GET /v1/products, GET /v1/products/:code.
import { Elysia, t } from "elysia";
import type { Context } from "../../context";
import { authGuard } from "../../http/auth-guard";
import { ErrorBody } from "../../http/errors";
import { Product, toProductJson } from "./model";
import { getProduct, listProducts } from "./service";

export const productRoutes = (ctx: Context) => {
  // The catalog is fixed for the life of the process: serialise the list once.
  const listJson = JSON.stringify({ data: listProducts().map(toProductJson) });
  return new Elysia({ prefix: "/v1/products", tags: ["Catalog"] })
    .use(authGuard(ctx))
    .get("", () => new Response(listJson, { headers: { "content-type": "application/json" } }), {
      auth: "any",
      response: { 200: t.Object({ data: t.Array(Product) }), 401: ErrorBody },
      detail: { summary: "List products" },
    })
    .get("/:code", ({ params }) => toProductJson(getProduct(params.code)), {
      auth: "any",
      response: { 200: Product, 404: ErrorBody },
      detail: { summary: "Get a product" },
    });
};
