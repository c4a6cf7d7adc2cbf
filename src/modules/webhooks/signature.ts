// Webhook signatures, Stripe's scheme: X-Service-Signature: t=<unix>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>.
import { createHmac, timingSafeEqual } from "node:crypto";

/** Receivers reject signatures older (or newer) than this; the spec's tolerance. */
const SIGNATURE_TOLERANCE_SECONDS = 300;

function computeSignature(secret: string, timestamp: number, rawBody: string): string {
  return createHmac("sha256", secret).update(`${timestamp}.${rawBody}`).digest("hex");
}

/** The header value for one attempt; `timestamp` is unix seconds. */
export function signatureHeader(secret: string, timestamp: number, rawBody: string): string {
  return `t=${timestamp},v1=${computeSignature(secret, timestamp, rawBody)}`;
}

/**
 * What a receiver does (docs/webhooks.md shows the same steps): parse t and every v1, recompute, compare in constant
 * time, and check t is within the tolerance of the receiver's own clock. Returns false rather than throwing.
 */
export function verifySignature(
  rawBody: string,
  header: string,
  secret: string,
  opts: { nowSeconds?: number; toleranceSeconds?: number } = {},
): boolean {
  let timestamp: number | null = null;
  const candidates: string[] = [];
  for (const part of header.split(",")) {
    const eq = part.indexOf("=");
    if (eq === -1) continue;
    const key = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (key === "t" && /^\d+$/.test(value)) timestamp = Number(value);
    else if (key === "v1") candidates.push(value);
  }
  if (timestamp === null || candidates.length === 0) return false;
  const now = opts.nowSeconds ?? Math.floor(Date.now() / 1000);
  if (Math.abs(now - timestamp) > (opts.toleranceSeconds ?? SIGNATURE_TOLERANCE_SECONDS)) return false;
  const expected = Buffer.from(computeSignature(secret, timestamp, rawBody), "utf8");
  // Any matching v1 counts, so a sender could sign with two secrets while one is being rotated.
  return candidates.some((c) => {
    const given = Buffer.from(c, "utf8");
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
}
