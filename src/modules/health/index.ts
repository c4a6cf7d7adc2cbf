// Route: GET /v1/health (no auth): real checks of the database and the data directory.

import { unlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { sql } from "drizzle-orm";
import { Elysia, t } from "elysia";
import pkg from "../../../package.json";
import type { Context } from "../../context";
import { dialectOf, row } from "../../db/client";

const Check = t.Object({ status: t.Union([t.Literal("ok"), t.Literal("fail")]), latency_ms: t.Number(), error: t.Optional(t.String()) });

const Health = t.Object(
  {
    status: t.Union([t.Literal("ok"), t.Literal("degraded")]),
    service: t.String({ examples: ["assay"] }),
    version: t.String(),
    checks: t.Object({ database: Check, data_dir: Check }),
  },
  { title: "Health" },
);

async function check(fn: () => void | Promise<void>) {
  const start = performance.now();
  try {
    await fn();
    return { status: "ok" as const, latency_ms: Math.round((performance.now() - start) * 100) / 100 };
  } catch (err) {
    // Only the error's class of failure, never a path or SQL.
    return {
      status: "fail" as const,
      latency_ms: Math.round((performance.now() - start) * 100) / 100,
      error: (err as { code?: string }).code ?? "failed",
    };
  }
}

export const healthRoutes = (ctx: Context) =>
  new Elysia({ prefix: "/v1", tags: ["Health"] }).get(
    "/health",
    async () => {
      const database = await check(async () => {
        // drizzle keeps its bookkeeping table in the schema "drizzle" on PostgreSQL, in the main database on SQLite.
        const table = dialectOf(ctx.db) === "postgres" ? sql`drizzle.__drizzle_migrations` : sql`__drizzle_migrations`;
        const applied = await row<{ n: number }>(ctx.db, sql`SELECT CAST(count(*) AS INTEGER) AS n FROM ${table}`);
        if (!applied || Number(applied.n) < 1) throw Object.assign(new Error("no migrations"), { code: "not_migrated" });
      });
      const data_dir = await check(() => {
        const probe = path.join(ctx.config.dataDir, `.health-${process.pid}`);
        writeFileSync(probe, "ok");
        unlinkSync(probe);
      });
      const ok = database.status === "ok" && data_dir.status === "ok";
      return { status: ok ? ("ok" as const) : ("degraded" as const), service: "assay", version: pkg.version, checks: { database, data_dir } };
    },
    { response: { 200: Health }, detail: { summary: "Health check", description: "Always 200; `status` is `degraded` when a check fails." } },
  );
