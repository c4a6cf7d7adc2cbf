// Login throttling. Each attempt is counted before the password is checked (so a burst of guesses cannot outrun the
// count), per email and per client address, and failures earn delays that grow instead of a hard lock (a hard lock
// lets anyone lock anyone out). A success takes its own count back and clears the email.
import { ApiError } from "../../http/errors";

/** Failures allowed before any delay. */
const FREE_FAILURES = 5;
/** The first delay; each further failure doubles it. */
const BASE_DELAY_MS = 1_000;
/** An email's delay stays short: anyone can type anyone's email, so its owner must never wait long. */
const MAX_EMAIL_DELAY_MS = 60_000;
/**
 * An address's delay is capped at a minute too: behind a reverse proxy every client shares the proxy's address, and a
 * long delay there would let one guesser lock everybody out. A minute still slows guessing to about one a minute.
 */
const MAX_ADDRESS_DELAY_MS = 60_000;
/** Failures are forgotten this long after the last one. */
const FORGET_AFTER_MS = 15 * 60_000;
/** Entries kept per table. Only idle entries are evicted, so a flood of other emails cannot reset a victim's count. */
const MAX_ENTRIES = 50_000;

interface Attempt {
  email: string;
  address: string;
  before: Pick<Entry, "failures" | "blockedUntil">;
}

interface Entry {
  failures: number;
  lastAt: number;
  blockedUntil: number;
}

class Table {
  private readonly entries = new Map<string, Entry>();
  constructor(private readonly maxDelayMs: number) {}

  /** The entry for `key`, made fresh when its failures are old; null when the table is full of live entries. */
  get(key: string, now: number): Entry | null {
    let entry = this.entries.get(key);
    if (entry && now - entry.lastAt >= FORGET_AFTER_MS && entry.blockedUntil <= now) entry = undefined;
    if (!entry) {
      if (this.entries.size >= MAX_ENTRIES && !this.evictIdle(now)) return null;
      entry = { failures: 0, lastAt: now, blockedUntil: 0 };
    }
    // Re-inserted on every use: the Map's order is then least recently used first, which is where eviction looks.
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry;
  }

  count(entry: Entry, now: number): void {
    entry.failures++;
    entry.lastAt = now;
    if (entry.failures > FREE_FAILURES) {
      entry.blockedUntil = now + Math.min(this.maxDelayMs, BASE_DELAY_MS * 2 ** (entry.failures - FREE_FAILURES - 1));
    }
  }

  /** Takes back a count made by `count`, restoring the block that was there before it. */
  uncount(key: string, before: Pick<Entry, "failures" | "blockedUntil">): void {
    const entry = this.entries.get(key);
    if (entry) Object.assign(entry, before);
  }

  forget(key: string): void {
    this.entries.delete(key);
  }

  private evictIdle(now: number): boolean {
    for (const [key, entry] of this.entries) {
      if (now - entry.lastAt >= FORGET_AFTER_MS && entry.blockedUntil <= now) {
        this.entries.delete(key);
        return true;
      }
      if (now - entry.lastAt < FORGET_AFTER_MS) return false; // least recently used first: the rest are live too
    }
    return false;
  }
}

export class LoginThrottle {
  private readonly emails = new Table(MAX_EMAIL_DELAY_MS);
  private readonly addresses = new Table(MAX_ADDRESS_DELAY_MS);

  /**
   * Before the password is checked: 429 while a delay runs, else the attempt is counted as a failure. Returns what
   * `succeeded` needs to take the count back.
   */
  begin(email: string, address: string, now: number): Attempt {
    const e = this.emails.get(email, now);
    const a = this.addresses.get(address, now);
    if (!e || !a) {
      throw new ApiError(429, "rate_limited", "Too many login attempts on this server right now; try again in a minute", undefined, {
        "retry-after": "60",
      });
    }
    const until = Math.max(e.blockedUntil, a.blockedUntil);
    if (until > now) {
      const retryAfter = String(Math.max(1, Math.ceil((until - now) / 1000)));
      throw new ApiError(429, "rate_limited", "Too many failed logins; try again later", undefined, { "retry-after": retryAfter });
    }
    const attempt: Attempt = { email, address, before: { failures: a.failures, blockedUntil: a.blockedUntil } };
    this.emails.count(e, now);
    this.addresses.count(a, now);
    return attempt;
  }

  /** The password was right: the attempt was not a failure after all, and the email starts afresh. */
  succeeded(attempt: Attempt): void {
    this.emails.forget(attempt.email);
    this.addresses.uncount(attempt.address, attempt.before);
  }
}
