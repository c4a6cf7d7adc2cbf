// Idempotency-Keys held "in progress" by several processes sharing one database: a live process's key is never taken
// from it, a dead process's key is freed at start (same host) or once its lease runs out (any host).
import { describe, expect, test } from "bun:test";
import os from "node:os";
import { eq } from "drizzle-orm";
import { tx } from "../../src/db/client";
import { idempotencyKeys } from "../../src/db/schema";
import { IN_PROGRESS_LEASE_MS, releaseInterruptedKeys, withIdempotency } from "../../src/modules/idempotency/service";
import { type Harness, harness, TestClock } from "../helpers";

const scope = { credential: "key_x", method: "POST", path: "/v1/workflows/wf_x/runs", requestHash: "h" };

async function hold(h: Harness, owner: string | null, lockedUntil: number | null) {
  // The stored scope is the hash withIdempotency computes: hold the key through it, then rewrite the holder.
  const id = new Bun.CryptoHasher("sha256").update(`${scope.credential}\n${scope.method}\n${scope.path}\nk1`).digest("hex");
  await tx(h.ctx.db, (t) =>
    t.insert(idempotencyKeys).values({ scope: id, requestHash: "h", status: "in_progress", createdAt: h.clock.now(), owner, lockedUntil }),
  );
  return id;
}

const attempt = (h: Harness) =>
  withIdempotency(h.ctx, "k1", scope, async () => ({ status: 202, body: { ran: true } })).catch((err) => err.code as string);

describe("keys in progress across processes", () => {
  test("a live process's key (this host) stays held at another's start, and a retry is told to wait", async () => {
    const other = Bun.spawn(["sleep", "30"]);
    try {
      const h = await harness();
      const id = await hold(h, `${os.hostname()}:${other.pid}:1`, h.clock.now() + IN_PROGRESS_LEASE_MS);
      expect(await releaseInterruptedKeys(h.ctx)).toBe(0);
      expect((await h.ctx.db.select().from(idempotencyKeys).where(eq(idempotencyKeys.scope, id)))[0]?.status).toBe("in_progress");
      expect(await attempt(h)).toBe("idempotency_in_progress");
    } finally {
      other.kill();
    }
  });

  test("a dead process's key (this host) is freed at start, lease or not", async () => {
    const gone = Bun.spawn(["true"]);
    await gone.exited;
    const h = await harness();
    await hold(h, `${os.hostname()}:${gone.pid}:1`, h.clock.now() + IN_PROGRESS_LEASE_MS);
    expect(await releaseInterruptedKeys(h.ctx)).toBe(1);
    expect(await attempt(h)).toMatchObject({ status: 202, body: { ran: true }, replayed: false });
  });

  test("another host's key is left to its lease; past it, a retry takes the key over and runs once", async () => {
    const clock = new TestClock();
    const h = await harness({}, clock);
    await hold(h, "another-host:4242:1", clock.now() + IN_PROGRESS_LEASE_MS);
    expect(await releaseInterruptedKeys(h.ctx)).toBe(0);
    expect(await attempt(h)).toBe("idempotency_in_progress");
    clock.advance(IN_PROGRESS_LEASE_MS);
    expect(await attempt(h)).toMatchObject({ status: 202, replayed: false });
    expect(await attempt(h)).toMatchObject({ status: 202, body: { ran: true }, replayed: true });
  });
});
