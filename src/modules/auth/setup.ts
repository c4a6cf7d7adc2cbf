// The one-time setup link of a first run: while no user exists, the server mints a token, prints it (with the
// console's setup address) only to its terminal, and POST /v1/auth/setup exchanges it once for the first admin.
// In memory on purpose: a restart mints a new token and the old link stops working.
import { timingSafeEqual } from "node:crypto";
import { base62, sha256Hex } from "../../lib/ids";

/** How long a printed setup link works. */
export const SETUP_TTL_MS = 60 * 60_000;

export class SetupGate {
  private current: { hash: Buffer; expiresAt: number } | null = null;

  /** A new token (the previous one stops working); printed by the caller, never stored in clear. */
  open(now: number): { token: string; expiresAt: number } {
    const token = `setup_${base62(32)}`;
    this.current = { hash: Buffer.from(sha256Hex(token)), expiresAt: now + SETUP_TTL_MS };
    return { token, expiresAt: this.current.expiresAt };
  }

  /** True once for the valid token; the token is spent by that call, whatever follows. */
  consume(token: string, now: number): boolean {
    const current = this.current;
    if (!current || now >= current.expiresAt) return false;
    const given = Buffer.from(sha256Hex(token));
    if (!timingSafeEqual(given, current.hash)) return false;
    this.current = null;
    return true;
  }

  close(): void {
    this.current = null;
  }
}
