// The credit ledger: grants, holds, charges, releases and refunds; balances are derived from it, never stored.
import { and, eq, sql } from "drizzle-orm";
import type { Clock } from "../../context";
import { creditLedger } from "../../db/schema";
import type { Db } from "../../db/client";
import { ApiError } from "../../http/errors";

export type CreditKind = "regular" | "bonus";

export interface Balance {
  pro_credits: number;
  bonus_pro: number;
  regular_pro: number;
  basic_credits_excluded: boolean;
}

/** Credits are stored as floats; round to 4 decimals so sums never show 0.30000000000000004. */
export const roundCredits = (n: number) => Math.round(n * 10_000) / 10_000;

export function getBalance(db: Db, workspaceId: string): Balance {
  const rows = db
    .select({ kind: creditLedger.kind, total: sql<number>`coalesce(sum(${creditLedger.delta}), 0)` })
    .from(creditLedger)
    .where(eq(creditLedger.workspaceId, workspaceId))
    .groupBy(creditLedger.kind)
    .all();
  const bonus = roundCredits(rows.find((r) => r.kind === "bonus")?.total ?? 0);
  const regular = roundCredits(rows.find((r) => r.kind === "regular")?.total ?? 0);
  return { pro_credits: roundCredits(bonus + regular), bonus_pro: bonus, regular_pro: regular, basic_credits_excluded: true };
}

/** Adds (or, with a negative amount, debits) credits; a debit may never take the balance below zero. Call inside a transaction. */
export function grantCredits(db: Db, clock: Clock, workspaceId: string, amount: number, kind: CreditKind, reason: "grant" | "admin", note?: string): void {
  if (!Number.isFinite(amount) || amount === 0) throw new ApiError(400, "validation_error", "amount must be a non-zero number", "amount");
  if (amount < 0) {
    const balance = getBalance(db, workspaceId);
    const available = kind === "bonus" ? balance.bonus_pro : balance.regular_pro;
    if (available + amount < -1e-9) {
      throw new ApiError(400, "validation_error", `cannot debit ${-amount} ${kind} credits: only ${available} available`, "amount");
    }
  }
  db.insert(creditLedger).values({ workspaceId, kind, delta: amount, reason, note: note ?? null, createdAt: clock.now() }).run();
}

/** Sum of ledger rows of one run (negative while held or charged). */
export function runLedgerTotal(db: Db, runId: string): { bonus: number; regular: number } {
  const rows = db
    .select({ kind: creditLedger.kind, total: sql<number>`coalesce(sum(${creditLedger.delta}), 0)` })
    .from(creditLedger)
    .where(and(eq(creditLedger.runId, runId)))
    .groupBy(creditLedger.kind)
    .all();
  return { bonus: rows.find((r) => r.kind === "bonus")?.total ?? 0, regular: rows.find((r) => r.kind === "regular")?.total ?? 0 };
}
