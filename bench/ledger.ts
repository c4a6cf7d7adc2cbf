// Run creation (quote + hold in one transaction) on an empty ledger vs the same workspace with 1.5M ledger rows.
// In-process through app.handle, so the figure is the request path's own cost. Target: ratio ≥ 0.9 (the balance is one
// row per workspace and kind; summing the ledger made the ratio fall with every run).
// Run by hand: `bun run bench/ledger.ts [--rows N] [--runs N]`.
import { parseArgs } from "node:util";
import { count } from "drizzle-orm";
import { createApp } from "../src/app";
import { ensureDataDir, loadConfig } from "../src/config";
import { createContext } from "../src/create-context";
import { tx } from "../src/db/client";
import { creditLedger } from "../src/db/schema";
import { tempDir } from "../src/lib/temp-dir";
import { createUser } from "../src/modules/auth/service";
import { createDocumentFromBytes } from "../src/modules/documents/service";
import { checkBalances } from "../src/modules/usage/service";

const { values } = parseArgs({ options: { rows: { type: "string", default: "1500000" }, runs: { type: "string", default: "3000" } } });
const LEDGER_ROWS = Number(values.rows);
const RUNS = Number(values.runs);

const dataDir = tempDir("assay-bench-ledger-");
const ctx = await createContext(
  ensureDataDir(loadConfig({ ASSAY_DATA_DIR: dataDir, ASSAY_INITIAL_CREDITS: "1000000000", ASSAY_DEFAULT_RPM: "1000000000" })),
);
const app = createApp(ctx);
const call = async (method: string, url: string, token: string | null, body?: unknown) => {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (token) headers.authorization = `Bearer ${token}`;
  const res = await app.handle(
    new Request(`http://localhost/v1${url}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) }),
  );
  return (await res.json()) as { token: string; id: string };
};

const user = await createUser(ctx.db, ctx.clock, ctx.config, { email: "ledger@example.com", password: "bench-password" });
const session = (await call("POST", "/auth/login", null, { email: "ledger@example.com", password: "bench-password" })).token;
const key = (await call("POST", "/keys", session, { name: "bench" })).token;
const workflow = (await call("POST", "/workflows", key, { product_code: "general", name: "ledger bench" })).id;
const doc = (
  await createDocumentFromBytes(ctx, { workspaceId: user.workspaceId, filename: "a.txt", bytes: new TextEncoder().encode("a short input") })
).id;

async function createRuns(n: number): Promise<number> {
  const t0 = performance.now();
  for (let i = 0; i < n; i++) {
    const res = await app.handle(
      new Request(`http://localhost/v1/workflows/${workflow}/runs`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify({ input_documents: [doc] }),
      }),
    );
    if (res.status !== 202) throw new Error(`run creation answered ${res.status}: ${await res.text()}`);
  }
  return n / ((performance.now() - t0) / 1000);
}

await createRuns(200); // warm-up
const empty = await createRuns(RUNS);

// History: hold/release pairs of long-finished runs (they leave the balance as it is), written the way the service
// would have, rows and balance together.
const t0 = performance.now();
// Several hundred rows per statement: one statement per row would make the filling, not the bench, the slow part.
const PAIRS_PER_INSERT = 250;
await tx(ctx.db, async (t) => {
  for (let first = 0; first < LEDGER_ROWS / 2; first += PAIRS_PER_INSERT) {
    const batch: (typeof creditLedger.$inferInsert)[] = [];
    for (let i = first; i < Math.min(first + PAIRS_PER_INSERT, LEDGER_ROWS / 2); i++) {
      const common = { workspaceId: user.workspaceId, kind: "regular" as const, runId: `run_old${i}`, createdAt: 1 };
      batch.push({ ...common, delta: -1.5, reason: "hold" }, { ...common, delta: 1.5, reason: "release" });
    }
    await t.insert(creditLedger).values(batch);
  }
});
const rows = (await ctx.db.select({ n: count() }).from(creditLedger))[0].n;
console.log(`ledger filled to ${rows} rows in ${((performance.now() - t0) / 1000).toFixed(1)} s`);

await createRuns(200);
const full = await createRuns(RUNS);
const drift = await checkBalances(ctx.db);
console.log(`run creation, ${RUNS} sequential requests in-process`);
console.log(`  empty ledger          ${empty.toFixed(0).padStart(6)} runs/s`);
console.log(`  ${String(rows).padEnd(8)} ledger rows ${full.toFixed(0).padStart(6)} runs/s`);
console.log(
  `ratio ${(full / empty).toFixed(2)} (target ≥ 0.90); balances ${drift.length === 0 ? "agree with the ledger" : `DRIFT: ${JSON.stringify(drift)}`}`,
);
