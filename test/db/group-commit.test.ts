// SQLite's group commit: transactions that queue for the writer run together under one COMMIT, each in its own
// savepoint. A caller is answered only once its writes are committed (another connection sees them), one that fails
// rolls back alone (nested savepoints included), and the rest of its group still commits.
import { Database } from "bun:sqlite";
import { afterAll, expect, test } from "bun:test";
import path from "node:path";
import { eq } from "drizzle-orm";
import { closeDb, openDb, sqliteConnection, tx } from "../../src/db/client";
import { settings } from "../../src/db/schema";
import { tempDir } from "../helpers";

const file = path.join(tempDir("assay-group-commit-"), "assay.db");
const db = await openDb(file);
const other = new Database(file, { readonly: true });
afterAll(async () => {
  other.close();
  await closeDb(db);
});
/** What a second process sees: only committed rows. */
const committed = (key: string) => other.query("SELECT value FROM settings WHERE key = ?").get(key) as { value: string } | null;

test("20 transactions queued at once: each answered after its commit, the failing one alone rolled back", async () => {
  const seen: (string | null)[][] = [];
  const write = (i: number) =>
    tx(db, async (t) => {
      await t.insert(settings).values({ key: `g${i}`, value: String(i) });
      if (i === 7) throw new Error("refused on purpose");
      // A nested transaction that fails takes only its own write with it.
      await tx(t, async (n) => {
        await n.insert(settings).values({ key: `nested${i}`, value: "x" });
        throw new Error("nested refusal");
      }).catch(() => {});
    }).then(
      () => {
        // The moment a caller is answered, its row is committed: visible to another connection.
        seen.push([committed(`g${i}`)?.value ?? null]);
        return "ok";
      },
      (err: Error) => err.message,
    );
  const results = await Promise.all(Array.from({ length: 20 }, (_, i) => write(i)));
  expect(results.filter((r) => r === "ok")).toHaveLength(19);
  expect(results[7]).toBe("refused on purpose");
  expect(seen.every(([value]) => value !== null)).toBe(true);
  expect(committed("g7")).toBeNull();
  for (let i = 0; i < 20; i++) expect(committed(`nested${i}`)).toBeNull();
  expect(await db.select().from(settings).where(eq(settings.key, "g19"))).toHaveLength(1);
});

test("transactions that queue while one runs join it under one COMMIT", async () => {
  let release = () => {};
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  // The first holds the writer until released; ten queue meanwhile, and join its group.
  const first = tx(db, async (t) => {
    await t.insert(settings).values({ key: "first", value: "1" });
    await gate;
  });
  const answered: string[] = [];
  const queued = Array.from({ length: 10 }, (_, i) =>
    tx(db, async (t) => {
      await t.insert(settings).values({ key: `q${i}`, value: String(i) });
    }).then(() => {
      // When the first of the ten is answered, all ten are already committed: one COMMIT held them all.
      answered.push(Array.from({ length: 10 }, (_, j) => (committed(`q${j}`) ? "c" : "-")).join(""));
    }),
  );
  release();
  await first;
  await Promise.all(queued);
  expect(answered[0]).toBe("cccccccccc");
});

test("a transaction requested in the next turn of the event loop (the next request read) joins the open one", async () => {
  let later: Promise<void> = Promise.resolve();
  const first = tx(db, async (t) => {
    await t.insert(settings).values({ key: "turn1", value: "1" });
    // As a server does under load: another request is read in the loop's next turn and writes too.
    setImmediate(() => {
      later = tx(db, (n) => n.insert(settings).values({ key: "turn2", value: "1" })).then(() => {});
    });
  });
  await first;
  expect(committed("turn2")).not.toBeNull(); // committed with the first, before the first was answered
  await later;
});

test("an error that ends the whole transaction refuses the group's earlier writes and runs the rest again", async () => {
  await tx(db, (t) => t.insert(settings).values({ key: "kept", value: "1" }));
  const ok = (key: string, wait?: Promise<void>) =>
    tx(db, async (t) => {
      await t.insert(settings).values({ key, value: "1" });
      await wait;
    }).then(
      () => "ok",
      (err: Error) => err.message,
    );
  let release = () => {};
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  const holder = ok("holder", gate);
  const before = ok("before");
  // A ROLLBACK inside a transaction ends it, as SQLite does after a disk-full or I/O error.
  const breaker = tx(db, async (t) => {
    const conn = (t as unknown as { $client: Database }).$client;
    conn.run("ROLLBACK");
    throw new Error("transaction ended");
  }).then(
    () => "ok",
    (err: Error) => err.message,
  );
  const after = ok("after");
  release();
  expect(await breaker).toBe("transaction ended");
  // Their writes were in the ended transaction (the holder's group, which the others joined): refused, not lost silently.
  expect(await holder).toBe("transaction ended");
  expect(await before).toBe("transaction ended");
  expect(await after).toBe("ok"); // not yet run when the transaction ended: run in the next group
  expect(committed("before")).toBeNull();
  expect(committed("holder")).toBeNull();
  expect(committed("after")).not.toBeNull();
  expect(committed("kept")).not.toBeNull();
});

test("a database closed under queued transactions answers each with an error: none hangs, none throws elsewhere", async () => {
  const closing = await openDb(path.join(tempDir("assay-group-close-"), "assay.db"));
  let release = () => {};
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  const outcome = (p: Promise<unknown>) =>
    p.then(
      () => "ok",
      () => "refused",
    );
  const running = outcome(
    tx(closing, async (t) => {
      await gate;
      await t.insert(settings).values({ key: "late", value: "1" });
    }),
  );
  const queued = Array.from({ length: 3 }, (_, i) => outcome(tx(closing, (t) => t.insert(settings).values({ key: `q${i}`, value: "1" }))));
  await closeDb(closing);
  release();
  expect(await Promise.all([running, ...queued])).toEqual(["refused", "refused", "refused", "refused"]);
});

test("a transaction left open on the writer outside the queue cannot stop every later write: it is rolled back, unanswered", async () => {
  const writer = sqliteConnection(db) as Database;
  writer.run("BEGIN");
  writer.run("INSERT INTO settings (key, value) VALUES ('stray', 'never acknowledged')");
  const warned = new Promise<Error>((resolve) => process.once("warning", resolve));
  await tx(db, (t) => t.insert(settings).values({ key: "after-stray", value: "kept" }));
  expect((await warned).message).toContain("left open on the SQLite writer");
  expect(committed("after-stray")?.value).toBe("kept");
  expect(committed("stray")).toBeNull();
});
