// PostgreSQL for tests: with ASSAY_TEST_DATABASE_URL (an admin URL, e.g. from scripts/pg-cluster.sh start), each
// testDatabaseUrl() is a fresh empty database of its own; without it, null (the test runs on SQLite).
import postgres from "postgres";

let admin: postgres.Sql | undefined;
const created: string[] = [];

export async function testDatabaseUrl(): Promise<string | null> {
  const adminUrl = process.env.ASSAY_TEST_DATABASE_URL;
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
