// The one reader of a Retry-After header (RFC 9110 §10.2.3), for webhook receivers and model servers alike.

/**
 * Retry-After as milliseconds from `now`: delay-seconds (decimals accepted, as some servers send them) or an HTTP
 * date, at most `capMs`; null when absent or unreadable. A date in the past is 0.
 */
export function parseRetryAfter(value: string | null, now: number, capMs: number): number | null {
  if (value === null) return null;
  const text = value.trim();
  if (/^\d+(\.\d+)?$/.test(text)) return Math.min(capMs, Math.round(Number(text) * 1000));
  // Only a real HTTP date: Date.parse would also read "1.5" or "2" as dates in 2001.
  if (!/[a-z]/i.test(text)) return null;
  const at = Date.parse(text);
  if (Number.isNaN(at)) return null;
  return Math.min(capMs, Math.max(0, at - now));
}
