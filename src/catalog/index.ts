// The seed catalogs, typed: products (with their pricing) and prompt templates, bundled into the binary as JSON imports.

import type { PromptTemplate } from "../engine/prompt-generate";
import type { ModelPolicy } from "../engine/types";
import productsJson from "./products.json";
import templatesJson from "./prompt-templates.json";

type ProductStatus = "active" | "beta" | "deprecated";

/** Credits a run costs: credits_per_run plus credits_per_page per page (paged inputs) or credits_per_1k_chars per started 1,000 characters. */
export interface ProductPricing {
  credits_per_run: number;
  credits_per_page: number;
  credits_per_1k_chars: number;
}

/** One entry of products.json: the spec's Product plus its pricing (pricing is not part of the wire format). */
export interface CatalogProduct {
  code: string;
  name: string;
  description: string | null;
  status: ProductStatus;
  default_model_policy: ModelPolicy;
  created_at: string;
  pricing: ProductPricing;
}

// The casts only narrow string fields to their unions; test/catalog checks every value is in range.
export const products = productsJson as CatalogProduct[];
export const promptTemplates: PromptTemplate[] = templatesJson;
