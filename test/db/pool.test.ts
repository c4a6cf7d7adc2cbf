// The data layer under concurrency, on whichever backend this pass runs (SQLite, or PostgreSQL with a pool of 2):
// many transactions at once with reads between them all finish, none is lost, none sees another half-done, and a
// transaction that fails leaves nothing behind. (A pool smaller than the work is where PostgreSQL drivers hang.)
import { expect, test } from "bun:test";
import { eq, sql } from "drizzle-orm";
import { rows, tx } from "../../src/db/client";
import { creditBalances, workspaces } from "../../src/db/schema";
import { harness } from "../helpers";

test("200 transactions at once on a pool of 2 (each a read-then-write), with reads between: all land, in full", async () => {
  const h = await harness({ ASSAY_DATABASE_POOL: "2" });
  const db = h.ctx.db;
  await tx(db, async (t) => {
    await t.insert(workspaces).values({ id: "ws_pool", name: "pool", createdAt: 0 });
    await t.insert(creditBalances).values({ workspaceId: "ws_pool", kind: "regular", balance: 0 });
  });
  const add = (i: number) =>
    tx(
      db,
      async (t) => {
        // A read, then a write that depends on it: what a lost update would break.
        const [row] = await t.select({ balance: creditBalances.balance }).from(creditBalances).where(eq(creditBalances.workspaceId, "ws_pool"));
        await t
          .update(creditBalances)
          .set({ balance: (row?.balance ?? 0) + 1 })
          .where(eq(creditBalances.workspaceId, "ws_pool"));
        if (i % 50 === 7) throw new Error("rolled back on purpose");
      },
      { lock: "ws_pool" },
    ).then(
      () => true,
      (err: Error) => {
        if (err.message !== "rolled back on purpose") throw err;
        return false;
      },
    );
  const reads = Array.from({ length: 50 }, () => db.select().from(workspaces));
  const results = await Promise.all([...Array.from({ length: 200 }, (_, i) => add(i)), ...reads]);
  const committed = results.slice(0, 200).filter((r) => r === true).length;
  expect(committed).toBe(196); // 4 rolled back on purpose
  const [final] = await rows<{ balance: number }>(db, sql`SELECT balance FROM credit_balances WHERE workspace_id = 'ws_pool'`);
  expect(Number(final?.balance)).toBe(committed);
}, 60_000);

test("a nested tx() is a savepoint: its failure undoes only its own writes", async () => {
  const h = await harness();
  const db = h.ctx.db;
  await tx(db, async (t) => {
    await t.insert(workspaces).values({ id: "ws_outer", name: "outer", createdAt: 0 });
    await expect(
      tx(t, async (inner) => {
        await inner.insert(workspaces).values({ id: "ws_inner", name: "inner", createdAt: 0 });
        throw new Error("inner fails");
      }),
    ).rejects.toThrow("inner fails");
  });
  const ids = (await db.select({ id: workspaces.id }).from(workspaces)).map((w) => w.id);
  expect(ids).toContain("ws_outer");
  expect(ids).not.toContain("ws_inner");
});
