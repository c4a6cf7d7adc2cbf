// The credit ledger: grants, holds, charges, releases and refunds. Each ledger row moves its workspace's balance row
// in the same transaction, so a balance is one read however long the ledger grows.
import { eq, sql } from "drizzle-orm";
import type { Db } from "../../db/client";
import { creditBalances, creditLedger } from "../../db/schema";
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
 * the caller's transaction, which also holds the checks that led here).
 */
function appendLedger(db: Db, row: LedgerRow & { kind: CreditKind }): void {
  db.$client.transaction(() => {
    db.insert(creditLedger).values(row).run();
    db.insert(creditBalances)
      .values({ workspaceId: row.workspaceId, kind: row.kind, balance: row.delta })
      .onConflictDoUpdate({
        target: [creditBalances.workspaceId, creditBalances.kind],
        set: { balance: sql`${creditBalances.balance} + ${row.delta}` },
      })
      .run();
  })();
}

export function getBalance(db: Db, workspaceId: string): Balance {
  const rows = db
    .select({ kind: creditBalances.kind, total: creditBalances.balance })
    .from(creditBalances)
    .where(eq(creditBalances.workspaceId, workspaceId))
    .all();
  const bonus = roundCredits(rows.find((r) => r.kind === "bonus")?.total ?? 0);
  const regular = roundCredits(rows.find((r) => r.kind === "regular")?.total ?? 0);
  return { pro_credits: roundCredits(bonus + regular), bonus_pro: bonus, regular_pro: regular, basic_credits_excluded: true };
}

/** Adds (or, with a negative amount, debits) credits; a debit may never take the balance below zero. Call inside a transaction. */
export function grantCredits(
  db: Db,
  clock: Clock,
  workspaceId: string,
  amount: number,
  kind: CreditKind,
  reason: "grant" | "admin",
  note?: string,
): void {
  if (!Number.isFinite(amount) || amount === 0 || Math.abs(amount) > 1e9) {
    throw new ApiError(400, "validation_error", "amount must be a non-zero number of at most 1e9 either way", "amount");
  }
  if (amount < 0) {
    const balance = getBalance(db, workspaceId);
    const available = kind === "bonus" ? balance.bonus_pro : balance.regular_pro;
    if (available + amount < -1e-9) {
      throw new ApiError(400, "validation_error", `cannot debit ${-amount} ${kind} credits: only ${available} available`, "amount");
    }
  }
  appendLedger(db, { workspaceId, kind, delta: amount, reason, note: note ?? null, createdAt: clock.now() });
}

/**
 * Holds `amount` for a run, bonus credits first; 402 when the balance cannot cover it. Call inside the
 * transaction that inserts the run, so a hold never exists without its run.
 */
export function holdCredits(db: Db, clock: Clock, workspaceId: string, runId: string, amount: number): void {
  const balance = getBalance(db, workspaceId);
  if (amount > balance.pro_credits + 1e-9) {
    throw new ApiError(402, "insufficient_credits", `This run needs ${amount} credits; the workspace has ${balance.pro_credits}`);
  }
  const fromBonus = roundCredits(Math.min(Math.max(balance.bonus_pro, 0), amount));
  const fromRegular = roundCredits(amount - fromBonus);
  const now = clock.now();
  if (fromBonus > 0) appendLedger(db, { workspaceId, kind: "bonus", delta: -fromBonus, reason: "hold", runId, createdAt: now });
  if (fromRegular > 0) appendLedger(db, { workspaceId, kind: "regular", delta: -fromRegular, reason: "hold", runId, createdAt: now });
}

/** A run's ledger rows summed per kind and reason. */
function runLedger(db: Db, runId: string) {
  const rows = db
    .select({ kind: creditLedger.kind, reason: creditLedger.reason, total: sql<number>`coalesce(sum(${creditLedger.delta}), 0)` })
    .from(creditLedger)
    .where(eq(creditLedger.runId, runId))
    .groupBy(creditLedger.kind, creditLedger.reason)
    .all();
  /** What rows of these reasons took from the balance (positive), per kind. */
  return (kind: CreditKind, reasons: string[]) =>
    -roundCredits(rows.filter((r) => r.kind === kind && reasons.includes(r.reason)).reduce((s, r) => s + r.total, 0));
}

function heldByKind(db: Db, runId: string) {
  const taken = runLedger(db, runId);
  return { bonus: taken("bonus", ["hold", "release"]), regular: taken("regular", ["hold", "release"]) };
}

/** Gives a run's outstanding hold back in full (failure, cancel). Idempotent: nothing held, nothing written. */
export function releaseHold(db: Db, clock: Clock, workspaceId: string, runId: string): void {
  const held = heldByKind(db, runId);
  const now = clock.now();
  for (const kind of ["bonus", "regular"] as const) {
    if (held[kind] > 0) appendLedger(db, { workspaceId, kind, delta: held[kind], reason: "release", runId, createdAt: now });
  }
}

/** Turns a run's hold into a charge (release + charge rows per kind); returns the credits charged. */
export function chargeHold(db: Db, clock: Clock, workspaceId: string, runId: string): number {
  const held = heldByKind(db, runId);
  const now = clock.now();
  for (const kind of ["bonus", "regular"] as const) {
    if (held[kind] <= 0) continue;
    appendLedger(db, { workspaceId, kind, delta: held[kind], reason: "release", runId, createdAt: now });
    appendLedger(db, { workspaceId, kind, delta: -held[kind], reason: "charge", runId, createdAt: now });
  }
  return roundCredits(held.bonus + held.regular);
}

/** Returns a run's charges to the kinds they came from; returns the credits refunded. */
export function refundCharge(db: Db, clock: Clock, workspaceId: string, runId: string): number {
  const taken = runLedger(db, runId);
  const now = clock.now();
  let refunded = 0;
  for (const kind of ["bonus", "regular"] as const) {
    const charged = taken(kind, ["charge", "refund"]);
    if (charged > 0) {
      appendLedger(db, { workspaceId, kind, delta: charged, reason: "refund", runId, createdAt: now });
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
export function usageReport(db: Db, workspaceId: string, period: ReturnType<typeof usagePeriod>) {
  const rows = db.$client
    .query(
      `SELECT r.workflow_id AS workflow_id, coalesce(w.name, '') AS name, count(*) AS runs,
              coalesce(sum(CASE WHEN r.status = 'succeeded' THEN r.charged_credits ELSE 0 END), 0) AS credits
       FROM runs r LEFT JOIN workflows w ON w.id = r.workflow_id
       WHERE r.workspace_id = ?1 AND r.key_mode = 'live' AND r.created_at >= ?2 AND r.created_at < ?3
       GROUP BY r.workflow_id ORDER BY credits DESC, runs DESC, r.workflow_id`,
    )
    .all(workspaceId, period.startMs, period.endMs) as { workflow_id: string; name: string; runs: number; credits: number }[];
  const byWorkflow = rows.map((r) => ({ ...r, credits: roundCredits(r.credits) }));
  return {
    period: { from: period.from, to: period.to },
    total_runs: byWorkflow.reduce((s, r) => s + r.runs, 0),
    total_credits: roundCredits(byWorkflow.reduce((s, r) => s + r.credits, 0)),
    by_workflow: byWorkflow,
  };
}

/** `assay doctor`: every workspace whose balance rows differ from its ledger's sums (empty when all agree). */
export function checkBalances(db: Db): { workspace_id: string; kind: string; ledger: number; balance: number }[] {
  const rows = db.$client
    .query(
      `SELECT workspace_id, kind, sum(ledger) AS ledger, sum(balance) AS balance FROM (
         SELECT workspace_id, kind, delta AS ledger, 0 AS balance FROM credit_ledger
         UNION ALL SELECT workspace_id, kind, 0, balance FROM credit_balances
       ) GROUP BY workspace_id, kind`,
    )
    .all() as { workspace_id: string; kind: string; ledger: number; balance: number }[];
  return rows
    .filter((r) => Math.abs(r.ledger - r.balance) > 1e-6)
    .map((r) => ({ ...r, ledger: roundCredits(r.ledger), balance: roundCredits(r.balance) }));
}
