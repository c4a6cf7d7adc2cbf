// PostgreSQL for tests: with ASSAY_TEST_DATABASE_URL (an admin URL, e.g. from scripts/pg-cluster.sh start), each
// testDatabaseUrl() is a fresh empty database of its own; without it, null (the test runs on SQLite).
import { existsSync, readdirSync } from "node:fs";
import postgres from "postgres";

let admin: postgres.Sql | undefined;
const created: string[] = [];

export async function testDatabaseUrl(adminUrl = process.env.ASSAY_TEST_DATABASE_URL): Promise<string | null> {
  if (!adminUrl) return null;
  // One small connection per process; it closes itself when idle, so it never holds the test process open.
  admin ??= postgres(adminUrl, { max: 1, idle_timeout: 2, onnotice: () => {} });
  const name = `assay_t_${crypto.randomUUID().replaceAll("-", "")}`;
  await admin.unsafe(`CREATE DATABASE ${name}`);
  created.push(name);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/** Drops the databases this process made (their open connections are ended). */
export async function dropTestDatabases(): Promise<void> {
  if (!admin) return;
  for (const name of created.splice(0)) await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
}

let ownCluster: string | null = null;

/**
 * A fresh database for the tests that need PostgreSQL on either pass (the cluster test): the suite's server when
 * ASSAY_TEST_DATABASE_URL is set, else a throwaway cluster of this process's own (scripts/pg-cluster.sh), stopped
 * when the process exits. Throws, never skips, when PostgreSQL cannot be started.
 */
export async function clusterDatabaseUrl(): Promise<string> {
  if (!process.env.ASSAY_TEST_DATABASE_URL && !ownCluster) {
    const script = new URL("../scripts/pg-cluster.sh", import.meta.url).pathname;
    // --owner: the script's watchdog stops the cluster when this process ends, however it ends.
    const started = Bun.spawnSync(["bash", script, "start", "--owner", String(process.pid)], { stderr: "pipe" });
    const url = started.stdout.toString().trim();
    if (started.exitCode !== 0 || !url) {
      throw new Error(`PostgreSQL could not be started (install Debian's postgresql): ${started.stderr.toString().trim()}`);
    }
    ownCluster = url;
  }
  const url = await testDatabaseUrl(process.env.ASSAY_TEST_DATABASE_URL ?? ownCluster ?? undefined);
  if (!url) throw new Error("no PostgreSQL database");
  return url;
}

/**
 * Whether the tests that need PostgreSQL can run here: a test server is given, or the binaries are installed (a
 * throwaway cluster is started), or this is CI, which installs them, so there a missing PostgreSQL fails instead of
 * skipping (unless ASSAY_CI_PG=0 turned PostgreSQL off). On a machine with only Node.js they are skipped, as the
 * browser and promtool tests are.
 */
export const postgresAvailable: boolean =
  !!process.env.ASSAY_TEST_DATABASE_URL ||
  !!Bun.which("initdb") ||
  (existsSync("/usr/lib/postgresql") && readdirSync("/usr/lib/postgresql").some((v) => existsSync(`/usr/lib/postgresql/${v}/bin/initdb`))) ||
  (!!process.env.ASSAY_CI && process.env.ASSAY_CI_PG !== "0");
