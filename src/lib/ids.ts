// Random identifiers and tokens: a prefix plus base62 characters from a CSPRNG (rejection sampling, no modulo bias).
const ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

// Random bytes are drawn 4 kB at a time (one getRandomValues call per ~150 ids, not one per id: ids are made on
// every request). A byte is used once and never again.
const pool = new Uint8Array(4096);
let next = pool.length;

export function base62(length: number): string {
  let out = "";
  while (out.length < length) {
    if (next === pool.length) {
      crypto.getRandomValues(pool);
      next = 0;
    }
    const b = pool[next++];
    if (b < 248) out += ALPHABET[b % 62];
  }
  return out;
}

export type IdPrefix = "key" | "ws" | "usr" | "prd" | "tpl" | "wf" | "run" | "doc" | "ref" | "whk" | "whd" | "evt" | "req";

export function newId(prefix: IdPrefix): string {
  return `${prefix}_${base62(24)}`;
}

export function sha256Hex(value: string): string {
  return new Bun.CryptoHasher("sha256").update(value).digest("hex");
}
