// The data layer's one surface for both backends: SQLite (embedded, the default) and PostgreSQL (ASSAY_DATABASE_URL).
// Services build queries with drizzle on the tables of ./schema and always `await` them; they never learn which
// backend answers. Writes happen only inside tx(), which gives SQLite one serialised writer connection and
// PostgreSQL a SERIALIZABLE transaction retried on conflict, so a check and the write it guards never interleave.
import { Database } from "bun:sqlite";
import { createHash } from "node:crypto";
import { eq, getTableName, type SQL, sql } from "drizzle-orm";
import { type BunSQLiteDatabase, drizzle } from "drizzle-orm/bun-sqlite";
import type { MigrationMeta } from "drizzle-orm/migrator";
import * as sqliteMigrations from "./migrations/index";
import * as schema from "./schema";

/**
 * The query builder every service uses. It is typed as drizzle's SQLite database; on PostgreSQL it is drizzle's
 * PostgreSQL database over the same table objects (their storage types are chosen so values map the same way).
 * Only the awaited forms work on both: `await db.select()…`, never `.all()`, `.get()` or `.run()`.
 */
export type Db = BunSQLiteDatabase<typeof schema>;

export type Dialect = "sqlite" | "postgres";

interface TxOptions {
  /**
   * PostgreSQL: READ COMMITTED instead of SERIALIZABLE, for single statements that lock what they change themselves
   * (queue claims with FOR UPDATE SKIP LOCKED, lease renewals), where a serialisation retry would only add waiting.
   */
  readCommitted?: boolean;
  /**
   * PostgreSQL: the transactions that name the same `lock` (a workspace id, a run id) run one after another, each
   * reading what the previous one committed (READ COMMITTED behind a transaction-scoped advisory lock). For the hot
   * paths many requests of one workspace take at once (creating runs, moving credits), where SERIALIZABLE would make
   * them fail and retry in turns. Every transaction that changes what such a path checks must name the same lock.
   * SQLite serialises every transaction anyway.
   */
  lock?: string;
}

interface Backend {
  dialect: Dialect;
  transaction<T>(fn: (t: Db) => Promise<T>, opts?: TxOptions): Promise<T>;
  /** Runs fn unless another process holds `key`; answers whether it ran. */
  exclusive(key: number, fn: () => Promise<void>): Promise<boolean>;
  /** A transaction-control statement (SAVEPOINT …) on an open transaction's handle. */
  control(handle: Db, text: string): Promise<void>;
  close(): Promise<void>;
}

const backends = new WeakMap<object, Backend>();
/** Transaction handles while their transaction is open (with the savepoint depth), so tx(handle) nests. */
const handles = new WeakMap<object, { backend: Backend; depth: number }>();

function backendOf(db: Db): Backend {
  const backend = backends.get(db) ?? handles.get(db)?.backend;
  if (!backend) throw new Error("not a database opened by openDb, or a transaction that has ended");
  return backend;
}

export function dialectOf(db: Db): Dialect {
  return backendOf(db).dialect;
}

/**
 * Opens `target`: a `postgres://` URL, or the path of a SQLite file (created when missing). Applies the embedded
 * migrations before returning.
 */
export async function openDb(target: string, opts: { poolSize?: number } = {}): Promise<Db> {
  return /^postgres(ql)?:\/\//.test(target) ? openPostgres(target, opts.poolSize ?? 10) : openSqlite(target);
}

/**
 * The SQLite connection that writes, for what only SQLite has (VACUUM INTO for backups, PRAGMAs in tests); null on
 * PostgreSQL. Never for ordinary queries: those go through the query builder and tx().
 */
export function sqliteConnection(db: Db): Database | null {
  return (backendOf(db) as Backend & { connection?: Database }).connection ?? null;
}

/**
 * Runs `fn` in one process of all those sharing the database at a time (a PostgreSQL advisory lock named by `key`,
 * see JOB_LOCKS); another process already running it makes this a no-op. For periodic jobs that must not run twice
 * at once across a cluster. Resolves to whether fn ran here.
 */
export function exclusively(db: Db, key: number, fn: () => Promise<void>): Promise<boolean> {
  return backendOf(db).exclusive(key, fn);
}

/**
 * The signing secret every process on this database uses: the one stored in the database, or, on first use,
 * `mine` (which is then stored). With `replace`, `mine` overwrites it (assay migrate-store carries the data folder's).
 */
export async function storeSecret(db: Db, mine: string, opts: { replace?: boolean } = {}): Promise<string> {
  await tx(db, async (t) => {
    const insert = t.insert(schema.settings).values({ key: "secret", value: mine });
    await (opts.replace ? insert.onConflictDoUpdate({ target: schema.settings.key, set: { value: mine } }) : insert.onConflictDoNothing());
  });
  const [stored] = await db.select({ value: schema.settings.value }).from(schema.settings).where(eq(schema.settings.key, "secret"));
  return stored?.value ?? mine;
}

export async function closeDb(db: Db): Promise<void> {
  await backendOf(db).close();
}

// ---- SQLite: one writer connection behind an async lock, one read-only connection for everything else -------------

function connect(file: string, readonly: boolean): Database {
  const conn = readonly ? new Database(file, { readonly: true, strict: true }) : new Database(file, { create: true, strict: true });
  if (!readonly) {
    conn.exec("PRAGMA journal_mode = WAL");
    conn.exec("PRAGMA synchronous = NORMAL");
    conn.exec("PRAGMA foreign_keys = ON");
  }
  conn.exec("PRAGMA busy_timeout = 5000");
  return conn;
}

/** A transaction waiting for the SQLite writer. */
interface Queued {
  fn: (t: Db) => Promise<unknown>;
  resolve(value: unknown): void;
  reject(err: unknown): void;
}
/** At most this many queued transactions share one COMMIT: the first of them waits for the rest. */
const MAX_GROUP = 32;

async function openSqlite(file: string): Promise<Db> {
  const writerConn = connect(file, false);
  const writer = drizzle(writerConn, { schema }) as Db;
  await migrate(writer, sqliteMigrations);
  // Reads never see a transaction half-way: WAL gives the reader the last committed state. It is read-only, so a
  // write that forgot tx() fails loudly instead of racing the writer.
  const readerConn = connect(file, true);
  const reader = drizzle(readerConn, { schema }) as Db;
  const writing: Compiled = { conn: writerConn, compiled: new Map() };
  sqliteConnections.set(writer, writing);
  sqliteConnections.set(reader, { conn: readerConn, compiled: new Map() });
  // Transaction control runs several times per write: compiled once each, not on every call.
  const control = (text: string) => {
    compile(writing, text).run();
  };
  const queue: Queued[] = [];
  let draining = false;
  // One transaction at a time on the writer; those that queue meanwhile join it under one COMMIT.
  const drain = async () => {
    draining = true;
    try {
      while (queue.length > 0) await commitGroup();
    } finally {
      draining = false;
    }
  };
  /** Whether the writer's transaction has ended (an error SQLite answers by ending it, or a closed database). */
  const ended = () => {
    try {
      return !writerConn.inTransaction;
    } catch {
      return true;
    }
  };
  /**
   * Group commit: a commit costs about the pages it writes to the WAL, and transactions committed together (run
   * creations under load) share most of theirs (the tables' and indexes' last pages, a balance). The queued
   * transactions run one after another, each in its own savepoint (as a nested tx() does) so that one that fails
   * rolls back alone; before the COMMIT the writer yields to the event loop once, so that requests already read (under
   * load, many per turn of the loop) join too. Every caller is answered only once the COMMIT holding its writes is
   * done, so nothing is acknowledged that a crash could take back.
   */
  const commitGroup = async () => {
    const settled: { item: Queued; value: unknown }[] = [];
    let failed: { err: unknown } | null = null;
    try {
      // A transaction left open on the writer outside the queue (a COMMIT and its ROLLBACK that both failed, or a
      // statement run on the connection itself) holds nothing the queue committed and no caller was answered for, and
      // would refuse every BEGIN from now on: it is rolled back, with a warning.
      if (!ended()) {
        process.emitWarning("a transaction was left open on the SQLite writer; it was rolled back", { code: "ASSAY_STRAY_TRANSACTION" });
        control("ROLLBACK");
      }
      // IMMEDIATE takes the write lock now, so another process's writer queues (busy_timeout) instead of failing later.
      control("BEGIN IMMEDIATE");
    } catch (err) {
      for (const item of queue.splice(0)) item.reject(err);
      return;
    }
    let ran = 0;
    const open = { backend, depth: 0 };
    handles.set(writer, open);
    try {
      for (let yielded = false; !failed && ran < MAX_GROUP; ) {
        const item = queue.shift();
        if (!item) {
          if (yielded) break;
          yielded = true;
          await new Promise<void>((resolve) => setImmediate(resolve));
          continue;
        }
        ran++;
        try {
          settled.push({ item, value: await savepoint(writer, open, item.fn) });
        } catch (err) {
          item.reject(err);
          // A transaction that ended takes the group's writes with it: those already run are refused; those still
          // queued run in the next group.
          if (ended()) failed = { err };
        }
      }
      if (!failed) control("COMMIT");
    } catch (err) {
      failed = { err };
    } finally {
      handles.delete(writer);
    }
    if (!failed) {
      for (const { item, value } of settled) item.resolve(value);
      return;
    }
    try {
      if (!ended()) control("ROLLBACK");
    } catch {} // nothing of it was committed either way
    for (const { item } of settled) item.reject(failed.err);
  };
  const backend: Backend & { connection: Database } = {
    dialect: "sqlite",
    connection: writerConn,
    transaction<T>(fn: (t: Db) => Promise<T>) {
      return new Promise<T>((resolve, reject) => {
        queue.push({ fn, resolve: resolve as (value: unknown) => void, reject });
        if (!draining) void drain();
      });
    },
    async control(_handle, text) {
      control(text);
    },
    // Processes sharing one SQLite file are one machine's; the periodic jobs are safe to repeat, so no lock.
    async exclusive(_key, fn) {
      await fn();
      return true;
    },
    async close() {
      readerConn.close();
      writerConn.close();
    },
  };
  backends.set(reader, backend);
  return reader;
}

// ---- PostgreSQL: a pool (postgres.js); transactions are SERIALIZABLE and retried on a serialisation failure -----------

const CONNECT_TIMEOUT_S = 10;
/** SQLSTATEs that mean "run the transaction again": serialization_failure, deadlock_detected. */
const RETRYABLE = new Set(["40001", "40P01"]);
const MAX_ATTEMPTS = 20;

async function openPostgres(url: string, poolSize: number): Promise<Db> {
  // Loaded only here: a process on SQLite never carries the PostgreSQL driver in memory.
  const [{ default: postgres }, { drizzle: drizzlePg }, pgMigrations] = await Promise.all([
    import("postgres"),
    import("drizzle-orm/postgres-js"),
    import("./migrations-pg/index"),
  ]);
  const client = postgres(url, {
    max: poolSize,
    idle_timeout: 30, // s: connections idle that long are closed, so a quiet process holds few
    connect_timeout: CONNECT_TIMEOUT_S, // an unreachable server is an error at start, not a hang
    onnotice: () => {},
    // int8 (times in ms, counts) as JS numbers, as SQLite gives them; every value we store is below 2^53.
    types: { bigint: { to: 20, from: [20], serialize: (n: number) => String(n), parse: (s: string) => Number(s) } },
  });
  const db = drizzlePg(client, { schema }) as unknown as Db;
  // A plain query first, bounded: connect_timeout covers only the TCP connect, and a peer that accepts the connection
  // but never answers (a firewall, the wrong service) would otherwise hold the start for ever.
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    await Promise.race([
      client`SELECT 1`,
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer from the server within ${CONNECT_TIMEOUT_S} s`)), CONNECT_TIMEOUT_S * 1000);
      }),
    ]);
  } catch (err) {
    await client.end({ timeout: 0 }).catch(() => {});
    throw err;
  } finally {
    clearTimeout(timer);
  }
  /**
   * Runs fn holding the session advisory lock `key`, taken on one reserved connection (fn's own queries use others)
   * and given back after. `wait`: queue for the lock; else skip fn when another process holds it. Whether fn ran.
   */
  const withAdvisoryLock = async (key: number, wait: boolean, fn: () => Promise<void>): Promise<boolean> => {
    const conn = await client.reserve();
    try {
      const [got] = wait
        ? await conn<{ ok: boolean }[]>`SELECT true AS ok FROM pg_advisory_lock(${LOCK_CLASS}, ${key})`
        : await conn<{ ok: boolean }[]>`SELECT pg_try_advisory_lock(${LOCK_CLASS}, ${key}) AS ok`;
      if (!got?.ok) return false;
      try {
        await fn();
      } finally {
        await conn`SELECT pg_advisory_unlock(${LOCK_CLASS}, ${key})`;
      }
      return true;
    } finally {
      conn.release();
    }
  };
  // Several processes may start at once: one migrates while the others wait on the advisory lock.
  await withAdvisoryLock(MIGRATION_LOCK, true, () => migrate(db, pgMigrations));
  const pg = db as unknown as { transaction<T>(fn: (t: unknown) => Promise<T>, config?: { isolationLevel: string }): Promise<T> };
  const backend: Backend = {
    dialect: "postgres",
    async transaction(fn, opts) {
      const isolationLevel = opts?.readCommitted || opts?.lock !== undefined ? "read committed" : "serializable";
      for (let attempt = 1; ; attempt++) {
        try {
          return await pg.transaction(
            async (t) => {
              if (opts?.lock !== undefined) await exec(t as Db, sql`SELECT pg_advisory_xact_lock(${KEYED_LOCKS}, hashtext(${opts.lock}))`);
              handles.set(t as object, { backend, depth: 0 });
              try {
                return await fn(t as Db);
              } finally {
                handles.delete(t as object);
              }
            },
            { isolationLevel },
          );
        } catch (err) {
          const code = (err as { code?: string }).code ?? (err as { cause?: { code?: string } }).cause?.code;
          if (!code || !RETRYABLE.has(code) || attempt >= MAX_ATTEMPTS) throw err;
          // Jittered and growing, so transactions that collided do not collide again in the same order.
          await Bun.sleep(Math.random() * Math.min(100, 2 ** attempt));
        }
      }
    },
    async control(handle, text) {
      await exec(handle, sql.raw(text));
    },
    exclusive: (key, fn) => withAdvisoryLock(key, false, fn),
    async close() {
      await client.end({ timeout: 5 });
    },
  };
  backends.set(db, backend);
  return db;
}

/** PostgreSQL advisory locks are (class, key) pairs of int4; Assay's class spells "ASSY" in ASCII. */
const LOCK_CLASS = 0x41535359;
const MIGRATION_LOCK = 1;
/** The class of tx()'s named locks (TxOptions.lock), keyed by hashtext(name). */
const KEYED_LOCKS = LOCK_CLASS + 1;
/** The keys of the periodic jobs that run in one process at a time (exclusively()). */
export const JOB_LOCKS = { recovery: 2, cleanup: 3 } as const;

// ---- migrations: drizzle's own bookkeeping (__drizzle_migrations), fed from the bundle instead of the disk ---------

interface Embedded {
  journal: { entries: { tag: string; when: number; breakpoints: boolean }[] };
  migrationSql: Record<string, string>;
}

function metas(embedded: Embedded): MigrationMeta[] {
  return embedded.journal.entries.map((entry) => {
    const query = embedded.migrationSql[entry.tag];
    if (query === undefined) throw new Error(`migration ${entry.tag} is not embedded`);
    return {
      sql: query.split("--> statement-breakpoint"),
      bps: entry.breakpoints,
      folderMillis: entry.when,
      hash: createHash("sha256").update(query).digest("hex"),
    };
  });
}

// drizzle exposes migrate on its dialect, not in its public types.
type Internals = { dialect: { migrate(m: MigrationMeta[], session: unknown, config: object): unknown }; session: unknown };

/** Applies what is not applied yet (SQLite's dialect migrates synchronously, PostgreSQL's asynchronously). */
async function migrate(db: Db, embedded: Embedded): Promise<void> {
  const internals = db as unknown as Internals;
  await internals.dialect.migrate(metas(embedded), internals.session, {});
}

// ---- transactions and raw SQL ---------------------------------------------------------------------------------------

/**
 * Runs `fn` in a transaction and hands it the transaction's handle: every read and write of the transaction goes
 * through `t`, never through the outer `db` (on PostgreSQL that would be another connection, outside the
 * transaction). Called with a handle, or from inside another tx(), it nests as a savepoint.
 */
export async function tx<T>(db: Db, fn: (t: Db) => Promise<T> | T, opts?: TxOptions): Promise<T> {
  const open = handles.get(db);
  if (open) return savepoint(db, open, fn);
  return backendOf(db).transaction(async (handle) => fn(handle), opts);
}

async function savepoint<T>(handle: Db, outer: { backend: Backend; depth: number }, fn: (t: Db) => Promise<T> | T): Promise<T> {
  const name = `sp${++outer.depth}`;
  const { backend } = outer;
  try {
    await backend.control(handle, `SAVEPOINT ${name}`);
    try {
      const result = await fn(handle);
      await backend.control(handle, `RELEASE SAVEPOINT ${name}`);
      return result;
    } catch (err) {
      try {
        await backend.control(handle, `ROLLBACK TO SAVEPOINT ${name}`);
        await backend.control(handle, `RELEASE SAVEPOINT ${name}`);
      } catch {} // the whole transaction has ended (SQLite ends it on disk full, I/O errors): fn's error says why
      throw err;
    }
  } finally {
    outer.depth--;
  }
}

type Runner = { execute?(q: SQL): Promise<unknown[] & { count?: number }> };
type Statement = ReturnType<Database["prepare"]>;

/** A SQLite connection and the raw statements compiled on it, by text (transaction control, the queue's claim, …). */
type Compiled = { conn: Database; compiled: Map<string, Statement> };
/** Each SQLite handle's connection and statements. */
const sqliteConnections = new WeakMap<object, Compiled>();
const MAX_COMPILED = 256;

/** `text` compiled once per connection; past MAX_COMPILED texts the oldest is finalised. */
function compile(on: Compiled, text: string): Statement {
  let statement = on.compiled.get(text);
  if (!statement) {
    if (on.compiled.size >= MAX_COMPILED) {
      const [oldest, old] = on.compiled.entries().next().value as [string, Statement];
      old.finalize();
      on.compiled.delete(oldest);
    }
    statement = on.conn.prepare(text);
    on.compiled.set(text, statement);
  }
  return statement;
}

function compiledFor(db: Db, query: SQL): { statement: Statement; params: unknown[] } {
  const found = sqliteConnections.get(db);
  if (!found) throw new Error("not a handle of an open SQLite database");
  const { sql: text, params } = (db as unknown as { dialect: { sqlToQuery(q: SQL): { sql: string; params: unknown[] } } }).dialect.sqlToQuery(query);
  return { statement: compile(found, text), params };
}

/** The rows of a raw query (drizzle `sql` template): for SQL that the query builder cannot say on both backends. */
export async function rows<T>(db: Db, query: SQL): Promise<T[]> {
  const runner = db as unknown as Runner;
  if (runner.execute) return [...(await runner.execute(query))] as T[];
  const { statement, params } = compiledFor(db, query);
  return statement.all(...(params as never[])) as T[];
}

/** The first row of a raw query, or undefined. */
export async function row<T>(db: Db, query: SQL): Promise<T | undefined> {
  return (await rows<T>(db, query))[0];
}

/** Runs a raw statement and answers how many rows it changed. */
export async function exec(db: Db, query: SQL): Promise<number> {
  const runner = db as unknown as Runner;
  if (runner.execute) return (await runner.execute(query)).count ?? 0;
  const { statement, params } = compiledFor(db, query);
  return statement.run(...(params as never[])).changes;
}

// ---- prepared statements --------------------------------------------------------------------------------------------

type Prepared<R> = { execute(values?: Record<string, unknown>): R | Promise<R> };
type Preparable<R> = { prepare(name?: string): Prepared<R> };

const statements = new WeakMap<object, Map<string, unknown>>();
const sha1 = (text: string) => createHash("sha1").update(text).digest("hex").slice(0, 12);

/**
 * A statement built once per database and reused: for the hot reads (a run polled, a list paged), where building the
 * SQL text on every request cost more than the query itself. `build` returns the query with sql.placeholder()s;
 * the answer runs it with `values` and resolves to its rows.
 */
export async function prepared<R>(db: Db, name: string, build: () => Preparable<R>, values: Record<string, unknown>): Promise<R> {
  let forDb = statements.get(db);
  if (!forDb) {
    forDb = new Map();
    statements.set(db, forDb);
  }
  let statement = forDb.get(name) as Prepared<R> | undefined;
  if (statement === undefined) {
    // PostgreSQL names its prepared statements; SQLite's prepare() takes no name.
    statement = dialectOf(db) === "postgres" ? build().prepare(`${name.replace(/[^a-z0-9]+/gi, "_").slice(0, 40)}_${sha1(name)}`) : build().prepare();
    forDb.set(name, statement);
  }
  return await statement.execute(values);
}

type Insertable = Parameters<Db["insert"]>[0];

/**
 * Inserts one row through a statement prepared once per handle and set of columns: for inserts on a hot path (a run
 * created, its ledger rows), where drizzle building the INSERT and SQLite compiling it cost more than the write.
 * Pass the columns it sets every time (null rather than absent), so each call site keeps to one statement.
 */
export async function insertRow<T extends Insertable>(db: Db, table: T, row: T["$inferInsert"]): Promise<void> {
  const values = row as Record<string, unknown>;
  const columns = Object.keys(values);
  const name = `insert:${getTableName(table)}:${columns.join(",")}`;
  await prepared(
    db,
    name,
    () => db.insert(table).values(Object.fromEntries(columns.map((c) => [c, sql.placeholder(c)])) as T["$inferInsert"]),
    values,
  );
}
