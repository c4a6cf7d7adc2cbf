// The credit ledger: grants, holds, charges, releases and refunds. Each ledger row moves its workspace's balance row
// in the same transaction, so a balance is one read however long the ledger grows.
import { and, asc, desc, eq, gte, lt, sql } from "drizzle-orm";
import { type Db, insertRow, prepared, rows, tx } from "../../db/client";
import { creditBalances, creditLedger, runs, workflows } from "../../db/schema";
import { ApiError } from "../../http/errors";
import type { Clock } from "../../lib/clock";

export type CreditKind = "regular" | "bonus";

export interface Balance {
  pro_credits: number;
  bonus_pro: number;
  regular_pro: number;
  basic_credits_excluded: boolean;
}

/** Credits are stored as floats; round to 4 decimals so sums never show 0.30000000000000004. */
export const roundCredits = (n: number) => Math.round(n * 10_000) / 10_000;

type LedgerRow = typeof creditLedger.$inferInsert;

/**
 * The only writer of the ledger: appends a row and moves the balance with it, both or neither (a savepoint inside
 * the caller's transaction, whose handle is `db`, which also holds the checks that led here).
 */
async function appendLedger(db: Db, row: LedgerRow & { kind: CreditKind }): Promise<void> {
  await tx(db, async (t) => {
    await insertRow(t, creditLedger, { runId: null, note: null, ...row });
    await prepared(
      t,
      "credit-balance-move",
      () =>
        t
          .insert(creditBalances)
          .values({ workspaceId: sql.placeholder("workspaceId"), kind: sql.placeholder("kind"), balance: sql.placeholder("delta") })
          .onConflictDoUpdate({
            target: [creditBalances.workspaceId, creditBalances.kind],
            set: { balance: sql`${creditBalances.balance} + ${sql.placeholder("delta")}` },
          }),
      { workspaceId: row.workspaceId, kind: row.kind, delta: row.delta },
    );
  });
}

/** A workspace's balance; inside a transaction, pass its handle so the read sees the transaction's own writes. */
export async function getBalance(db: Db, workspaceId: string): Promise<Balance> {
  const totals = await prepared(
    db,
    "credit-balances",
    () =>
      db
        .select({ kind: creditBalances.kind, total: creditBalances.balance })
        .from(creditBalances)
        .where(eq(creditBalances.workspaceId, sql.placeholder("workspaceId"))),
    { workspaceId },
  );
  const bonus = roundCredits(totals.find((r) => r.kind === "bonus")?.total ?? 0);
  const regular = roundCredits(totals.find((r) => r.kind === "regular")?.total ?? 0);
  return { pro_credits: roundCredits(bonus + regular), bonus_pro: bonus, regular_pro: regular, basic_credits_excluded: true };
}

/**
 * Adds (or, with a negative amount, debits) credits; a debit may never take the balance below zero. Call inside a
 * transaction: `db` is its handle.
 */
export async function grantCredits(
  db: Db,
  clock: Clock,
  workspaceId: string,
  amount: number,
  kind: CreditKind,
  reason: "grant" | "admin",
  note?: string,
): Promise<void> {
  if (!Number.isFinite(amount) || amount === 0 || Math.abs(amount) > 1e9) {
    throw new ApiError(400, "validation_error", "amount must be a non-zero number of at most 1e9 either way", "amount");
  }
  if (amount < 0) {
    const balance = await getBalance(db, workspaceId);
    const available = kind === "bonus" ? balance.bonus_pro : balance.regular_pro;
    if (available + amount < -1e-9) {
      throw new ApiError(400, "validation_error", `cannot debit ${-amount} ${kind} credits: only ${available} available`, "amount");
    }
  }
  await appendLedger(db, { workspaceId, kind, delta: amount, reason, note: note ?? null, createdAt: clock.now() });
}

/**
 * Holds `amount` for a run, bonus credits first; 402 when the balance cannot cover it. Call inside the
 * transaction that inserts the run (`db` is its handle), so a hold never exists without its run.
 */
export async function holdCredits(db: Db, clock: Clock, workspaceId: string, runId: string, amount: number): Promise<void> {
  const balance = await getBalance(db, workspaceId);
  if (amount > balance.pro_credits + 1e-9) {
    throw new ApiError(402, "insufficient_credits", `This run needs ${amount} credits; the workspace has ${balance.pro_credits}`);
  }
  const fromBonus = roundCredits(Math.min(Math.max(balance.bonus_pro, 0), amount));
  const fromRegular = roundCredits(amount - fromBonus);
  const now = clock.now();
  if (fromBonus > 0) await appendLedger(db, { workspaceId, kind: "bonus", delta: -fromBonus, reason: "hold", runId, createdAt: now });
  if (fromRegular > 0) await appendLedger(db, { workspaceId, kind: "regular", delta: -fromRegular, reason: "hold", runId, createdAt: now });
}

/** A run's ledger rows summed per kind and reason. */
async function runLedger(db: Db, runId: string) {
  const sums = await db
    .select({ kind: creditLedger.kind, reason: creditLedger.reason, total: sql<number>`coalesce(sum(${creditLedger.delta}), 0)` })
    .from(creditLedger)
    .where(eq(creditLedger.runId, runId))
    .groupBy(creditLedger.kind, creditLedger.reason);
  /** What rows of these reasons took from the balance (positive), per kind. */
  return (kind: CreditKind, reasons: string[]) =>
    -roundCredits(sums.filter((r) => r.kind === kind && reasons.includes(r.reason)).reduce((s, r) => s + Number(r.total), 0));
}

async function heldByKind(db: Db, runId: string) {
  const taken = await runLedger(db, runId);
  return { bonus: taken("bonus", ["hold", "release"]), regular: taken("regular", ["hold", "release"]) };
}

/** Gives a run's outstanding hold back in full (failure, cancel). Idempotent: nothing held, nothing written. Call inside a transaction. */
export async function releaseHold(db: Db, clock: Clock, workspaceId: string, runId: string): Promise<void> {
  const held = await heldByKind(db, runId);
  const now = clock.now();
  for (const kind of ["bonus", "regular"] as const) {
    if (held[kind] > 0) await appendLedger(db, { workspaceId, kind, delta: held[kind], reason: "release", runId, createdAt: now });
  }
}

/** Turns a run's hold into a charge (release + charge rows per kind); returns the credits charged. Call inside a transaction. */
export async function chargeHold(db: Db, clock: Clock, workspaceId: string, runId: string): Promise<number> {
  const held = await heldByKind(db, runId);
  const now = clock.now();
  for (const kind of ["bonus", "regular"] as const) {
    if (held[kind] <= 0) continue;
    await appendLedger(db, { workspaceId, kind, delta: held[kind], reason: "release", runId, createdAt: now });
    await appendLedger(db, { workspaceId, kind, delta: -held[kind], reason: "charge", runId, createdAt: now });
  }
  return roundCredits(held.bonus + held.regular);
}

/** Returns a run's charges to the kinds they came from; returns the credits refunded. Call inside a transaction. */
export async function refundCharge(db: Db, clock: Clock, workspaceId: string, runId: string): Promise<number> {
  const taken = await runLedger(db, runId);
  const now = clock.now();
  let refunded = 0;
  for (const kind of ["bonus", "regular"] as const) {
    const charged = taken(kind, ["charge", "refund"]);
    if (charged > 0) {
      await appendLedger(db, { workspaceId, kind, delta: charged, reason: "refund", runId, createdAt: now });
      refunded += charged;
    }
  }
  return roundCredits(refunded);
}

const DATE = /^\d{4}-\d{2}-\d{2}$/;

function parseDate(param: string, value: string): number {
  const ms = Date.parse(`${value}T00:00:00Z`);
  if (!DATE.test(value) || Number.isNaN(ms) || new Date(ms).toISOString().slice(0, 10) !== value) {
    throw new ApiError(400, "validation_error", `${param} must be a date like 2026-11-01`, param);
  }
  return ms;
}

/**
 * The usage period: inclusive UTC dates. Without bounds, the current calendar month; a missing bound comes from the
 * given one (only `to`: from the first day of its month; only `from`: to the last day of its month).
 */
export function usagePeriod(now: number, from?: string, to?: string) {
  const monthStart = (ms: number) => Date.UTC(new Date(ms).getUTCFullYear(), new Date(ms).getUTCMonth(), 1);
  const monthEnd = (ms: number) => Date.UTC(new Date(ms).getUTCFullYear(), new Date(ms).getUTCMonth() + 1, 0);
  const givenFrom = from ? parseDate("from", from) : null;
  const givenTo = to ? parseDate("to", to) : null;
  const fromMs = givenFrom ?? monthStart(givenTo ?? now);
  const toMs = givenTo ?? monthEnd(givenFrom ?? now);
  if (fromMs > toMs) throw new ApiError(400, "validation_error", "from must not be after to", from ? "from" : "to");
  const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
  return { from: day(fromMs), to: day(toMs), startMs: fromMs, endMs: toMs + 86_400_000 };
}

/**
 * Live runs created in the period, per workflow. Credits are the runs' `charged_credits` while they are succeeded (a
 * refunded run counts with 0), which equals what the ledger's charge and refund rows of those runs add up to (a test
 * checks that). Test-key runs are left out entirely.
 */
export async function usageReport(db: Db, workspaceId: string, period: ReturnType<typeof usagePeriod>) {
  const runCount = sql<number>`CAST(count(*) AS INTEGER)`;
  const credits = sql<number>`coalesce(sum(CASE WHEN ${runs.status} = 'succeeded' THEN ${runs.chargedCredits} ELSE 0 END), 0)`;
  const perWorkflow = await db
    .select({ workflow_id: runs.workflowId, name: sql<string>`coalesce(${workflows.name}, '')`, runs: runCount, credits })
    .from(runs)
    .leftJoin(workflows, eq(workflows.id, runs.workflowId))
    .where(and(eq(runs.workspaceId, workspaceId), eq(runs.keyMode, "live"), gte(runs.createdAt, period.startMs), lt(runs.createdAt, period.endMs)))
    // The workflow's name is one per workflow id; PostgreSQL wants every selected column grouped or aggregated.
    .groupBy(runs.workflowId, workflows.name)
    .orderBy(desc(credits), desc(runCount), asc(runs.workflowId));
  const byWorkflow = perWorkflow.map((r) => ({ ...r, runs: Number(r.runs), credits: roundCredits(Number(r.credits)) }));
  return {
    period: { from: period.from, to: period.to },
    total_runs: byWorkflow.reduce((s, r) => s + r.runs, 0),
    total_credits: roundCredits(byWorkflow.reduce((s, r) => s + r.credits, 0)),
    by_workflow: byWorkflow,
  };
}

/** `assay doctor`: every workspace whose balance rows differ from its ledger's sums (empty when all agree). */
export async function checkBalances(db: Db): Promise<{ workspace_id: string; kind: string; ledger: number; balance: number }[]> {
  // One statement, so the ledger and the balances are read from the same snapshot (two queries could fall either
  // side of a run's hold and report a drift that is not there). Raw: a UNION ALL in a subquery, portable as written
  // (the subquery is named, as PostgreSQL requires).
  const sums = await rows<{ workspace_id: string; kind: string; ledger: number; balance: number }>(
    db,
    sql`SELECT workspace_id, kind, sum(ledger) AS ledger, sum(balance) AS balance FROM (
          SELECT workspace_id, kind, delta AS ledger, 0 AS balance FROM credit_ledger
          UNION ALL SELECT workspace_id, kind, 0, balance FROM credit_balances
        ) AS both_sides GROUP BY workspace_id, kind`,
  );
  return sums
    .map((r) => ({ ...r, ledger: Number(r.ledger), balance: Number(r.balance) }))
    .filter((r) => Math.abs(r.ledger - r.balance) > 1e-6)
    .map((r) => ({ ...r, ledger: roundCredits(r.ledger), balance: roundCredits(r.balance) }));
}
