// The PostgreSQL test plumbing: on the PostgreSQL pass, testDatabaseUrl() gives fresh databases; otherwise
// scripts/pg-cluster.sh itself starts a real cluster and stops it (required in CI, skipped without the binaries).
import { afterAll, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import path from "node:path";
import postgres from "postgres";
import { dropTestDatabases, testDatabaseUrl } from "../postgres";

const SCRIPT = path.resolve(import.meta.dir, "../../scripts/pg-cluster.sh");
const adminUrl = process.env.ASSAY_TEST_DATABASE_URL;
// .ci/run's PostgreSQL pass sets it: a missing or broken admin URL then fails here instead of passing on SQLite.
const pgPass = process.env.ASSAY_CI_PG_PASS === "1";

function connect(url: string) {
  return postgres(url, { max: 1, connect_timeout: 5, onnotice: () => {} });
}

async function cluster(...args: string[]) {
  const proc = Bun.spawn(["bash", SCRIPT, ...args], { stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { stdout, stderr, code };
}

if (adminUrl || pgPass) {
  afterAll(dropTestDatabases);

  test("testDatabaseUrl() gives each call a fresh, usable database of its own", async () => {
    expect(adminUrl, "the PostgreSQL pass (ASSAY_CI_PG_PASS=1) needs ASSAY_TEST_DATABASE_URL").toBeTruthy();
    const a = await testDatabaseUrl();
    const b = await testDatabaseUrl();
    expect(a).toMatch(/\/assay_t_[0-9a-f]{32}$/);
    expect(b).toMatch(/\/assay_t_[0-9a-f]{32}$/);
    expect(a).not.toBe(b);
    const sqlA = connect(a!);
    const sqlB = connect(b!);
    try {
      const [rowA] = await sqlA`select 1 as one, current_database() as db`;
      const [rowB] = await sqlB`select 1 as one, current_database() as db`;
      expect(rowA).toEqual({ one: 1, db: a!.split("/").pop() });
      expect(rowB).toEqual({ one: 1, db: b!.split("/").pop() });
      // Separate databases: a table made in one is not in the other.
      await sqlA`create table probe (id int)`;
      expect((await sqlA`select to_regclass('probe') as t`)[0].t).toBe("probe");
      expect((await sqlB`select to_regclass('probe') as t`)[0].t).toBeNull();
    } finally {
      await Promise.all([sqlA.end(), sqlB.end()]);
    }
  }, 30_000);
} else {
  test("testDatabaseUrl() is null without ASSAY_TEST_DATABASE_URL", async () => {
    expect(await testDatabaseUrl()).toBeNull();
  });

  const haveBinaries = Bun.spawnSync(["bash", SCRIPT, "bindir"]).exitCode === 0;
  // CI installs PostgreSQL, so there a missing server fails this test (unless ASSAY_CI_PG=0 turned PostgreSQL off).
  const required = !!process.env.ASSAY_CI && process.env.ASSAY_CI_PG !== "0";
  test.skipIf(!haveBinaries && !required)(
    "scripts/pg-cluster.sh start prints one URL of a running throwaway cluster; stop URL ends it and removes its folder",
    async () => {
      const started = await cluster("start");
      expect(started.code, started.stderr).toBe(0);
      const lines = started.stdout.split("\n").filter(Boolean);
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(/^postgres:\/\/assay@127\.0\.0\.1:\d+\/postgres$/);
      const url = lines[0];
      let stopped = false;
      try {
        const sql = connect(url);
        let dataDir: string;
        try {
          const [row] = await sql`select 1 as one, current_user as who`;
          expect(row).toEqual({ one: 1, who: "assay" });
          const setting = async (name: string) => (await sql`select current_setting(${name}) as v`)[0].v;
          expect(await setting("listen_addresses")).toBe("127.0.0.1");
          expect(await setting("fsync")).toBe("off");
          expect(await setting("synchronous_commit")).toBe("off");
          expect(await setting("full_page_writes")).toBe("off");
          expect(await setting("max_connections")).toBe("300");
          dataDir = await setting("data_directory");
          expect(existsSync(dataDir)).toBe(true);
          expect(await setting("unix_socket_directories")).toBe(path.dirname(dataDir));
        } finally {
          await sql.end();
        }

        const stop = await cluster("stop", url);
        stopped = stop.code === 0;
        expect(stop.code, stop.stderr).toBe(0);
        expect(existsSync(path.dirname(dataDir))).toBe(false);
        const after = connect(url);
        try {
          await expect(after`select 1`).rejects.toThrow();
        } finally {
          await after.end();
        }
      } finally {
        if (!stopped) await cluster("stop", url);
      }
    },
    60_000,
  );
}
