// The stack's own memory floor for bench/startup.ts: the libraries Assay is built on, started as Assay starts them and
// nothing of Assay's code. Elysia with @elysiajs/openapi, as many routes as Assay has, each with TypeBox parameter and
// response schemas and reading a row through drizzle over bun:sqlite (WAL), a pino logger. Compiled like Assay
// (scripts/compile.ts).
//   stack-floor PORT DB_FILE
import { Database } from "bun:sqlite";
import { openapi } from "@elysiajs/openapi";
import { eq } from "drizzle-orm";
import { drizzle } from "drizzle-orm/bun-sqlite";
import { sqliteTable, text } from "drizzle-orm/sqlite-core";
import { Elysia, t } from "elysia";
import pino from "pino";

const ROUTES = 51; // Assay's route count (grep of .get/.post/.put/.patch/.delete in src/modules)
const [port, file] = process.argv.slice(2);
const log = pino({ level: "warn" });
const conn = new Database(file, { create: true, strict: true });
conn.exec("PRAGMA journal_mode = WAL; CREATE TABLE IF NOT EXISTS things (id TEXT PRIMARY KEY, name TEXT)");
const things = sqliteTable("things", { id: text("id").primaryKey(), name: text("name") });
const db = drizzle(conn);
const Thing = t.Object({ id: t.String(), name: t.Union([t.String(), t.Null()]) });
let app = new Elysia({ normalize: true }).use(openapi({ path: "/docs" }));
for (let i = 0; i < ROUTES; i++) {
  app = app.get(`/v1/r${i}/:id`, ({ params }) => db.select().from(things).where(eq(things.id, params.id)).all(), {
    params: t.Object({ id: t.String() }),
    response: t.Array(Thing),
  }) as unknown as typeof app;
}
app.get("/v1/health", () => ({ status: "ok" })).listen({ port: Number(port), hostname: "127.0.0.1" });
process.on("SIGTERM", () => process.exit(0)); // as Assay stops: the build's recorded profile is written on exit
log.info("listening");
