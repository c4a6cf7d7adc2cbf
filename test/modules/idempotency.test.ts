// Idempotency-Keys are written only in the transaction of their request's effect: a key another process committed
// first rolls this request's effect back and replays the first answer; a failed request leaves nothing; an expired
// key executes again; in one process, a second request with a key still executing is told to wait.
import { describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { type Db, tx } from "../../src/db/client";
import { idempotencyKeys, settings } from "../../src/db/schema";
import { sha256Hex } from "../../src/lib/ids";
import { withIdempotency } from "../../src/modules/idempotency/service";
import { type Harness, harness, TestClock } from "../helpers";

const scope = { credential: "key_x", method: "POST", path: "/v1/workflows/wf_x/runs", requestHash: "h" };
const keyId = sha256Hex(`${scope.credential}\n${scope.method}\n${scope.path}\nk1`);

/** What another process sharing the database does: commits the key with its own answer. */
const commitElsewhere = (h: Harness, requestHash: string, createdAt = h.clock.now()) =>
  tx(h.ctx.db, (t) =>
    t.insert(idempotencyKeys).values({ scope: keyId, requestHash, responseStatus: 202, responseBody: '{"first":true}', createdAt }),
  );

/** The request's effect (a settings row standing for a run) and its key, in one transaction, as a run's creation does. */
const effect = (db: Db, name: string, store: (t: Db) => Promise<void>) =>
  tx(db, async (t) => {
    await t.insert(settings).values({ key: name, value: "created" });
    await store(t);
  });
const effects = async (h: Harness, name: string) => (await h.ctx.db.select().from(settings).where(eq(settings.key, name))).length;

describe("Idempotency-Key written with its effect", () => {
  test("another process committed the key first: this request's effect rolls back and the first answer is replayed", async () => {
    const h = await harness();
    const outcome = await withIdempotency(h.ctx, "k1", scope, async (r) => {
      await commitElsewhere(h, "h"); // the other process wins the race while this one executes
      await effect(h.ctx.db, "mine", (t) => r!.store(t, 202, { mine: true }));
      return { status: 202, body: { mine: true } };
    });
    expect(outcome).toEqual({ status: 202, body: { first: true }, replayed: true });
    expect(await effects(h, "mine")).toBe(0);
  });

  test("another process committed the key first with a different body: 409 conflict, and nothing of this request stays", async () => {
    const h = await harness();
    const err = await withIdempotency(h.ctx, "k1", scope, async (r) => {
      await commitElsewhere(h, "other-body");
      await effect(h.ctx.db, "mine", (t) => r!.store(t, 202, { mine: true }));
      return { status: 202, body: { mine: true } };
    }).catch((e) => e);
    expect(err.code).toBe("conflict");
    expect(await effects(h, "mine")).toBe(0);
  });

  test("a request that fails stores nothing, and the retry with the same key executes", async () => {
    const h = await harness();
    const failed = await withIdempotency(h.ctx, "k1", scope, async () => {
      throw new Error("no credits");
    }).catch((e) => e.message);
    expect(failed).toBe("no credits");
    expect(await h.ctx.db.select().from(idempotencyKeys)).toHaveLength(0);
    const again = await withIdempotency(h.ctx, "k1", scope, async (r) => {
      await effect(h.ctx.db, "mine", (t) => r!.store(t, 202, { ran: true }));
      return { status: 202, body: { ran: true } };
    });
    expect(again).toEqual({ status: 202, body: { ran: true }, replayed: false });
    expect(await withIdempotency(h.ctx, "k1", scope, async () => ({ status: 500, body: null }))).toEqual({
      status: 202,
      body: { ran: true },
      replayed: true,
    });
  });

  test("a key older than 24 hours is forgotten: the request executes again and its answer replaces the old one", async () => {
    const clock = new TestClock();
    const h = await harness({}, clock);
    await commitElsewhere(h, "old-body", clock.now());
    clock.advance(24 * 3600 * 1000);
    const outcome = await withIdempotency(h.ctx, "k1", scope, async (r) => {
      await effect(h.ctx.db, "mine", (t) => r!.store(t, 202, { fresh: true }));
      return { status: 202, body: { fresh: true } };
    });
    expect(outcome).toEqual({ status: 202, body: { fresh: true }, replayed: false });
    expect(await withIdempotency(h.ctx, "k1", scope, async () => ({ status: 500, body: null }))).toMatchObject({
      body: { fresh: true },
      replayed: true,
    });
  });

  test("in one process, the same key while the first request executes is told to wait, then replayed", async () => {
    const h = await harness();
    let finish = () => {};
    let started = () => {};
    const executing = new Promise<void>((resolve) => {
      started = resolve;
    });
    const first = withIdempotency(h.ctx, "k1", scope, async (r) => {
      await new Promise<void>((resolve) => {
        finish = resolve;
        started();
      });
      await effect(h.ctx.db, "mine", (t) => r!.store(t, 202, { ran: true }));
      return { status: 202, body: { ran: true } };
    });
    await executing;
    const second = await withIdempotency(h.ctx, "k1", scope, async () => ({ status: 500, body: null })).catch((e) => e.code);
    expect(second).toBe("idempotency_in_progress");
    const otherBody = await withIdempotency(h.ctx, "k1", { ...scope, requestHash: "h2" }, async () => ({ status: 500, body: null })).catch(
      (e) => e.code,
    );
    expect(otherBody).toBe("conflict");
    finish();
    expect(await first).toEqual({ status: 202, body: { ran: true }, replayed: false });
    expect(await withIdempotency(h.ctx, "k1", scope, async () => ({ status: 500, body: null }))).toMatchObject({
      body: { ran: true },
      replayed: true,
    });
    expect(await effects(h, "mine")).toBe(1);
  });

  test("an answer that changes after the commit (a sync run's final 200) replaces the committed one", async () => {
    const h = await harness();
    const outcome = await withIdempotency(h.ctx, "k1", scope, async (r) => {
      await effect(h.ctx.db, "mine", (t) => r!.store(t, 202, { status: "queued" }));
      return { status: 200, body: { status: "succeeded" } };
    });
    expect(outcome.replayed).toBe(false);
    expect(await withIdempotency(h.ctx, "k1", scope, async () => ({ status: 500, body: null }))).toEqual({
      status: 200,
      body: { status: "succeeded" },
      replayed: true,
    });
  });
});
