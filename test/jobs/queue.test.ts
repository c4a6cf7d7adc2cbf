// The one work queue: claims never overlap, the lease boundary is the same everywhere, renewals keep work alive, and a
// lost lease stops the work before another worker can run it twice.
import { describe, expect, test } from "bun:test";
import { tx } from "../../src/db/client";
import { jobs } from "../../src/db/schema";
import { claim, firstWaiting, LeaseLost, type QueueSpec, renew, withLease } from "../../src/jobs/queue";
import { harness, TestClock } from "../helpers";

const QUEUE: QueueSpec<typeof jobs> = {
  source: jobs,
  table: "jobs",
  pick: firstWaiting("jobs", "q.status = 'queued'", "q.id"),
  onClaim: "status = 'running', attempts = attempts + 1",
};

async function setup() {
  const clock = new TestClock();
  const h = await harness({}, clock);
  const add = async () => {
    const [row] = await tx(h.ctx.db, (t) =>
      t
        .insert(jobs)
        .values({ kind: "test", subjectId: "x", status: "queued", attempts: 0, nextAttemptAt: 0, createdAt: clock.now() })
        .returning({ id: jobs.id }),
    );
    return row.id;
  };
  /** Moves every job's lease, as another worker would. */
  const setLease = (lockedUntil: number) => tx(h.ctx.db, (t) => t.update(jobs).set({ lockedUntil }));
  return { h, clock, db: h.ctx.db, add, setLease };
}

describe("claim", () => {
  test("takes each waiting row once, in order, counting the attempt; nothing left is null", async () => {
    const { db, clock, add } = await setup();
    const [a, b] = [await add(), await add()];
    expect(await claim(db, QUEUE, clock.now(), 1000)).toMatchObject({ id: a, lockedUntil: clock.now() + 1000, status: "running", attempts: 1 });
    expect((await claim(db, QUEUE, clock.now(), 1000))?.id).toBe(b);
    expect(await claim(db, QUEUE, clock.now(), 1000)).toBeNull();
    expect((await db.select().from(jobs).orderBy(jobs.id)).map((j) => [j.status, j.attempts])).toEqual([
      ["running", 1],
      ["running", 1],
    ]);
  });

  test("a lease that ends at t is free at t, not before", async () => {
    const { db, clock, add, setLease } = await setup();
    const id = await add();
    await setLease(clock.now() + 500);
    expect(await claim(db, QUEUE, clock.now() + 499, 1000)).toBeNull();
    expect((await claim(db, QUEUE, clock.now() + 500, 1000))?.id).toBe(id);
  });

  test("many claimers at once (as several processes would) each get a different row, and every row is taken", async () => {
    const { db, clock, add } = await setup();
    const ids = [];
    for (let i = 0; i < 30; i++) ids.push(await add());
    const claims = await Promise.all(Array.from({ length: 40 }, () => claim(db, QUEUE, clock.now(), 1000)));
    const taken = claims.filter((c) => c !== null).map((c) => c.id);
    expect(new Set(taken).size).toBe(taken.length);
    expect(taken.sort((x, y) => x - y)).toEqual(ids);
  });
});

describe("leases", () => {
  test("renew extends only a lease we still hold", async () => {
    const { db, clock, add } = await setup();
    await add();
    const first = await claim(db, QUEUE, clock.now(), 1000);
    if (!first) throw new Error("claim failed");
    const next = await renew(db, "jobs", first.id, first.lockedUntil ?? 0, clock.now() + 100, 1000);
    expect(next).toBe(clock.now() + 1100);
    expect(await renew(db, "jobs", first.id, first.lockedUntil ?? 0, clock.now() + 200, 1000)).toBeNull(); // the old lease is gone
  });

  test("work under a lease keeps it alive past its length, and a stolen lease aborts the work at once", async () => {
    const { h, db, clock, add, setLease } = await setup();
    const id = await add();
    const claimed = await claim(db, QUEUE, clock.now(), 60);
    if (!claimed) throw new Error("claim failed");
    const lease = { table: "jobs" as const, id, lease: claimed.lockedUntil ?? 0, leaseMs: 60 };
    // Renewed while it works: after 3 lease lengths the lease still moved on with it.
    const held = await withLease(h.ctx, lease, async (_signal, current) => {
      await Bun.sleep(180);
      return current();
    });
    expect(held).toBeGreaterThan(claimed.lockedUntil ?? 0);
    // The row holds that lease, or the one a renewal still on its way when the work ended set (withLease waits for it).
    const rowLease = (await db.select().from(jobs))[0]?.lockedUntil ?? 0;
    expect(rowLease).toBeGreaterThanOrEqual(held);

    // Another worker takes the row (as after a crash): the next renewal fails and the signal aborts.
    const again = { ...lease, lease: rowLease };
    let reason: unknown = null;
    const t0 = performance.now();
    await withLease(h.ctx, again, async (signal) => {
      await setLease(rowLease + 999);
      await new Promise<void>((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
      reason = signal.reason;
    });
    expect(reason).toBeInstanceOf(LeaseLost);
    expect(performance.now() - t0).toBeLessThan(200);
  });
});
