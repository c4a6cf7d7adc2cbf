// The one work queue: claims never overlap, the lease boundary is the same everywhere, renewals keep work alive, and a
// lost lease stops the work before another worker can run it twice.
import { describe, expect, test } from "bun:test";
import { jobs } from "../../src/db/schema";
import { claim, firstWaiting, LeaseLost, type QueueSpec, renew, withLease } from "../../src/jobs/queue";
import { harness, TestClock } from "../helpers";

const QUEUE: QueueSpec<typeof jobs> = {
  source: jobs,
  table: "jobs",
  pick: firstWaiting("jobs", "q.status = 'queued'", "q.id"),
  onClaim: "status = 'running', attempts = attempts + 1",
};

function setup() {
  const clock = new TestClock();
  const h = harness({}, clock);
  const add = () =>
    h.ctx.db
      .insert(jobs)
      .values({ kind: "test", subjectId: "x", status: "queued", attempts: 0, nextAttemptAt: 0, createdAt: clock.now() })
      .returning()
      .get().id;
  return { h, clock, db: h.ctx.db, add };
}

describe("claim", () => {
  test("takes each waiting row once, in order, counting the attempt; nothing left is null", () => {
    const { db, clock, add } = setup();
    const [a, b] = [add(), add()];
    expect(claim(db, QUEUE, clock.now(), 1000)).toMatchObject({ id: a, lockedUntil: clock.now() + 1000, status: "running", attempts: 1 });
    expect(claim(db, QUEUE, clock.now(), 1000)?.id).toBe(b);
    expect(claim(db, QUEUE, clock.now(), 1000)).toBeNull();
    expect(
      db
        .select()
        .from(jobs)
        .all()
        .map((j) => [j.status, j.attempts]),
    ).toEqual([
      ["running", 1],
      ["running", 1],
    ]);
  });

  test("a lease that ends at t is free at t, not before", () => {
    const { db, clock, add } = setup();
    const id = add();
    db.update(jobs)
      .set({ lockedUntil: clock.now() + 500 })
      .run();
    expect(claim(db, QUEUE, clock.now() + 499, 1000)).toBeNull();
    expect(claim(db, QUEUE, clock.now() + 500, 1000)?.id).toBe(id);
  });
});

describe("leases", () => {
  test("renew extends only a lease we still hold", () => {
    const { db, clock, add } = setup();
    add();
    const first = claim(db, QUEUE, clock.now(), 1000);
    if (!first) throw new Error("claim failed");
    const next = renew(db, "jobs", first.id, first.lockedUntil ?? 0, clock.now() + 100, 1000);
    expect(next).toBe(clock.now() + 1100);
    expect(renew(db, "jobs", first.id, first.lockedUntil ?? 0, clock.now() + 200, 1000)).toBeNull(); // the old lease is gone
  });

  test("work under a lease keeps it alive past its length, and a stolen lease aborts the work at once", async () => {
    const { h, db, clock, add } = setup();
    const id = add();
    const claimed = claim(db, QUEUE, clock.now(), 60);
    if (!claimed) throw new Error("claim failed");
    const lease = { table: "jobs" as const, id, lease: claimed.lockedUntil ?? 0, leaseMs: 60 };
    // Renewed while it works: after 3 lease lengths the lease still moved on with it.
    const held = await withLease(h.ctx, lease, async (_signal, current) => {
      await Bun.sleep(180);
      return current();
    });
    expect(held).toBeGreaterThan(claimed.lockedUntil ?? 0);
    expect(db.select().from(jobs).get()?.lockedUntil).toBe(held);

    // Another worker takes the row (as after a crash): the next renewal fails and the signal aborts.
    const again = { ...lease, lease: held };
    let reason: unknown = null;
    const t0 = performance.now();
    await withLease(h.ctx, again, async (signal) => {
      db.update(jobs)
        .set({ lockedUntil: held + 999 })
        .run();
      await new Promise<void>((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
      reason = signal.reason;
    });
    expect(reason).toBeInstanceOf(LeaseLost);
    expect(performance.now() - t0).toBeLessThan(200);
  });
});
