// Wire format of products (spec §2 Product, plus the pricing runs are quoted from).
import { t } from "elysia";
import type { CatalogProduct } from "../../catalog";

export const Product = t.Object(
  {
    code: t.String({ examples: ["education"] }),
    name: t.String(),
    description: t.Union([t.String(), t.Null()]),
    status: t.Union([t.Literal("active"), t.Literal("beta"), t.Literal("deprecated")]),
    default_model_policy: t.String({ examples: ["hybrid"] }),
    created_at: t.String({ format: "date-time" }),
    pricing: t.Object(
      {
        credits_per_run: t.Number(),
        credits_per_page: t.Number({ description: "per page of paged inputs (PDF pages, slides, sheets)" }),
        credits_per_1k_chars: t.Number({ description: "per started 1,000 characters of unpaged inputs" }),
      },
      { description: "How a run's quoted_credits are computed" },
    ),
  },
  { title: "Product" },
);

export function toProductJson(p: CatalogProduct) {
  return {
    code: p.code,
    name: p.name,
    description: p.description,
    status: p.status,
    default_model_policy: p.default_model_policy,
    created_at: p.created_at,
    pricing: p.pricing,
  };
}
