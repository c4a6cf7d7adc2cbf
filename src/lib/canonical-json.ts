// JSON with object keys sorted: one text per JSON value, whatever the key order (cache keys, idempotency hashes).
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((x) => canonicalJson(x === undefined ? null : x)).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const obj = value as Record<string, unknown>;
    const keys = Object.keys(obj)
      .filter((k) => obj[k] !== undefined)
      .sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(obj[k])}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}
