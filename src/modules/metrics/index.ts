// Route: GET /metrics, Prometheus text format. Off (404) unless ASSAY_METRICS=1; then it needs the bearer token of
// ASSAY_METRICS_TOKEN, an admin's session, or an API key of an admin. Counters and histograms are kept where things
// happen (lib/metrics); the gauges here are read from the database at each scrape.
import { createHash, timingSafeEqual } from "node:crypto";
import { eq, sql } from "drizzle-orm";
import { Elysia } from "elysia";
import type { Context } from "../../context";
import { rows } from "../../db/client";
import { users } from "../../db/schema";
import { ApiError } from "../../http/errors";

const digest = (s: string) => createHash("sha256").update(s).digest();

/** The gauges read from the database; the function it answers refreshes them (called at each scrape). */
function registerGauges(ctx: Context): () => Promise<void> {
  // Raw SQL, portable as written: a UNION ALL of three tables' counts is one statement (and one snapshot) this way.
  const active = () =>
    rows<{ status: string; product: string; n: number }>(
      ctx.db,
      sql`SELECT r.status AS status, w.product_code AS product, CAST(count(*) AS INTEGER) AS n
          FROM runs r JOIN workflows w ON w.id = r.workflow_id
          WHERE r.status IN ('queued', 'running') GROUP BY r.status, w.product_code`,
    );
  // Per queue: rows waiting and the time the oldest has waited (runs since creation; the others since they fell due).
  const queues = (now: number) =>
    rows<{ queue: string; depth: number; oldest: number | null }>(
      ctx.db,
      sql`SELECT 'runs' AS queue, CAST(count(*) AS INTEGER) AS depth, min(created_at) AS oldest FROM runs WHERE status = 'queued'
          UNION ALL SELECT 'webhook_deliveries', CAST(count(*) AS INTEGER), min(next_attempt_at) FROM webhook_deliveries
            WHERE status = 'pending' AND next_attempt_at <= ${now}
          UNION ALL SELECT 'indexing', CAST(count(*) AS INTEGER), min(next_attempt_at) FROM jobs
            WHERE status = 'queued' AND next_attempt_at <= ${now}`,
    );
  const runsActive = ctx.metrics.gauge({
    name: "assay_runs_active",
    help: "Runs queued or running now, by status and product.",
    labelNames: ["status", "product"],
  });
  const depth = ctx.metrics.gauge({ name: "assay_queue_depth", help: "Work waiting in each queue.", labelNames: ["queue"] });
  const oldest = ctx.metrics.gauge({
    name: "assay_queue_oldest_age_seconds",
    help: "How long the oldest waiting item of each queue has waited (0 when empty).",
    labelNames: ["queue"],
  });
  // Read once per scrape, before the registry is serialised: one query feeds both queue gauges.
  return async () => {
    const now = ctx.clock.now();
    const [activeRows, queueRows] = await Promise.all([active(), queues(now)]);
    runsActive.reset();
    for (const row of activeRows) runsActive.set({ status: row.status, product: row.product }, Number(row.n));
    for (const row of queueRows) {
      depth.set({ queue: row.queue }, Number(row.depth));
      oldest.set({ queue: row.queue }, row.oldest === null ? 0 : Math.max(0, (now - Number(row.oldest)) / 1000));
    }
  };
}

export const metricsRoutes = (ctx: Context) => {
  const app = new Elysia({ name: "metrics" });
  const config = ctx.config.metrics;
  const registry = ctx.metrics.registry;
  if (!config || !registry) return app; // off: /metrics is an unknown route like any other
  const refreshGauges = registerGauges(ctx);
  const tokenDigest = config.token ? digest(config.token) : null;
  const isAdmin = async (token: string) => {
    if (tokenDigest && timingSafeEqual(digest(token), tokenDigest)) return true;
    const caller = await ctx.runtime.authenticate(token, "any", {});
    if (caller.kind === "session") return caller.role === "admin";
    const [user] = await ctx.db.select({ role: users.role }).from(users).where(eq(users.id, caller.userId)).limit(1);
    return user?.role === "admin";
  };
  return app.get(
    "/metrics",
    async ({ headers }) => {
      const match = /^bearer\s+(\S+)\s*$/i.exec(headers.authorization ?? "");
      if (!match) throw new ApiError(401, "unauthenticated", "Missing, invalid, expired or revoked credentials");
      if (!(await isAdmin(match[1]))) throw new ApiError(403, "forbidden", "Metrics are for administrators and the metrics token");
      await refreshGauges();
      const body = await registry.metrics();
      return new Response(body, { headers: { "content-type": registry.contentType, "cache-control": "no-store" } });
    },
    { detail: { hide: true } },
  );
};
