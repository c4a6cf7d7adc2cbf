// Random identifiers and tokens: a prefix plus base62 characters from a CSPRNG (rejection sampling, no modulo bias).
const ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

export function base62(length: number): string {
  let out = "";
  while (out.length < length) {
    const bytes = crypto.getRandomValues(new Uint8Array(length * 2));
    for (const b of bytes) {
      if (b < 248 && out.length < length) out += ALPHABET[b % 62];
    }
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
