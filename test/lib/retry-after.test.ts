// parseRetryAfter: the one Retry-After reader for webhook receivers and model servers.
import { describe, expect, test } from "bun:test";
import { parseRetryAfter } from "../../src/lib/retry-after";

const now = Date.parse("2024-01-01T00:00:00Z");
const DAY = 24 * 3600_000;

describe("parseRetryAfter", () => {
  test.each([
    ["2", 2000],
    ["1.5", 1500], // decimals are seconds, not a date in 2001
    [" 7 ", 7000],
    ["0", 0],
    ["Mon, 01 Jan 2024 00:00:05 GMT", 5000],
    ["Sun, 31 Dec 2023 23:00:00 GMT", 0], // a date in the past: now
  ] as const)("%p is %p ms", (value, ms) => {
    expect(parseRetryAfter(value, now, DAY)).toBe(ms);
  });

  test.each(["soon", "", "-5", "1e3", "12:00"])("%p is unreadable: null", (value) => {
    expect(parseRetryAfter(value, now, DAY)).toBeNull();
  });

  test("absent is null; the cap bounds seconds and dates alike", () => {
    expect(parseRetryAfter(null, now, DAY)).toBeNull();
    expect(parseRetryAfter("3600", now, 30_000)).toBe(30_000);
    expect(parseRetryAfter("Tue, 02 Jan 2024 00:00:00 GMT", now, 30_000)).toBe(30_000);
  });
});
