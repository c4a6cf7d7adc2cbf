// Admin (administrators only): grant or debit a user's workspace credits (POST /v1/admin/credits) and refund a
// succeeded run (POST /v1/admin/runs/{id}/refund). The API has no endpoint to create users.
import { useState } from "preact/hooks";
import { api, type Balance, type Run } from "../api";
import { credits, ErrorBox, H1 } from "../ui";

function Refund() {
  const [runId, setRunId] = useState("");
  const [done, setDone] = useState<Run | null>(null);
  const [error, setError] = useState<unknown>(null);
  const submit = async (e: Event) => {
    e.preventDefault();
    setError(null);
    setDone(null);
    if (!confirm(`Refund the run ${runId.trim()}? Its charged credits go back to its workspace.`)) return;
    try {
      setDone(await api.refundRun(runId.trim()));
    } catch (err) {
      setError(err);
    }
  };
  return (
    <>
      <form class="panel" onSubmit={submit} aria-labelledby="refund-title">
        <h2 id="refund-title">Refund a run</h2>
        <p class="hint">A succeeded run becomes refunded and the credits it was charged return to its workspace.</p>
        <label for="refund-run">Run id</label>
        <input id="refund-run" required placeholder="run_…" value={runId} onInput={(e) => setRunId(e.currentTarget.value)} />
        <button type="submit">Refund</button>
      </form>
      <ErrorBox error={error} />
      {done && (
        <p role="status">
          Run {done.id} is now {done.status}; {credits(done.quoted_credits)} quoted credits, {credits(done.charged_credits)} charged.
        </p>
      )}
    </>
  );
}

export function AdminPage() {
  const [email, setEmail] = useState("");
  const [amount, setAmount] = useState("100");
  const [kind, setKind] = useState<"regular" | "bonus">("regular");
  const [note, setNote] = useState("");
  const [result, setResult] = useState<{ email: string; balance: Balance } | null>(null);
  const [error, setError] = useState<unknown>(null);
  const submit = async (e: Event) => {
    e.preventDefault();
    setError(null);
    setResult(null);
    try {
      const balance = await api.grantCredits({ email, amount: Number(amount), kind, ...(note ? { note } : {}) });
      setResult({ email, balance });
    } catch (err) {
      setError(err);
    }
  };
  return (
    <>
      <H1>Admin</H1>
      <form class="panel" onSubmit={submit} aria-labelledby="grant-title">
        <h2 id="grant-title">Grant credits</h2>
        <label for="grant-email">User's email</label>
        <input id="grant-email" type="email" required value={email} onInput={(e) => setEmail(e.currentTarget.value)} />
        <label for="grant-amount">Amount (negative to debit)</label>
        <input id="grant-amount" type="number" step="any" required value={amount} onInput={(e) => setAmount(e.currentTarget.value)} />
        <label for="grant-kind">Kind</label>
        <select id="grant-kind" value={kind} onChange={(e) => setKind(e.currentTarget.value as "regular" | "bonus")}>
          <option value="regular">regular</option>
          <option value="bonus">bonus</option>
        </select>
        <label for="grant-note">Note (optional)</label>
        <input id="grant-note" maxLength={500} value={note} onInput={(e) => setNote(e.currentTarget.value)} />
        <button type="submit">Grant</button>
      </form>
      <ErrorBox error={error} />
      {result && (
        <p role="status" data-testid="grant-result">
          {result.email} now has {credits(result.balance.pro_credits)} pro credits ({credits(result.balance.regular_pro)} regular,{" "}
          {credits(result.balance.bonus_pro)} bonus).
        </p>
      )}
      <Refund />
      <p class="hint">Users: the API has no endpoint to create users or change their role, so the console cannot either.</p>
    </>
  );
}
