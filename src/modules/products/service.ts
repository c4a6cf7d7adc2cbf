// The product catalog (seeded from src/catalog/products.json, bundled into the binary).
import { type CatalogProduct, products } from "../../catalog";
import { ApiError } from "../../http/errors";

const byCode = new Map(products.map((p) => [p.code, p]));

export function listProducts(): CatalogProduct[] {
  return products;
}

export function getProduct(code: string): CatalogProduct {
  const product = byCode.get(code);
  if (!product) throw new ApiError(404, "not_found", `No product with code "${code}"`);
  return product;
}
