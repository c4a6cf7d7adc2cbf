// Admin (administrators only): users, listed and created (GET/POST /v1/admin/users); grant or debit a user's workspace
// credits (POST /v1/admin/credits); refund a succeeded run (POST /v1/admin/runs/{id}/refund).
import { useState } from "preact/hooks";
import { type AdminUser, api, type Balance, type Run } from "../api";
import { credits, ErrorBox, H1, Pager, Table, useAction, useCursorPages, usePoll, when } from "../ui";

const ROLES = ["member", "admin"] as const;

/** Users, newest first, 20 a page with cursor paging; a form creates one (its own workspace, the initial credits). */
function Users() {
  const pages = useCursorPages();
  const cursor = pages.cursor;
  const list = usePoll(
    () => api.users(cursor),
    0,
    () => false,
    [cursor],
  );
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const [role, setRole] = useState<AdminUser["role"]>("member");
  const [created, setCreated] = useState<AdminUser | null>(null);
  const { error, busy, run } = useAction();
  const submit = (e: Event) => {
    e.preventDefault();
    setCreated(null);
    run(async () => {
      setCreated(await api.createUser({ email: email.trim(), password, role }));
      setEmail("");
      setPassword("");
      setRole("member");
      // The newest user is first: back to page 1.
      if (cursor === null) list.reload();
      else pages.reset();
    });
  };
  // PATCH /v1/admin/users/{id}: the select shows the server's answer (the last administrator stays one: 409).
  const [roleError, setRoleError] = useState<unknown>(null);
  const changeRole = async (user: AdminUser, next: AdminUser["role"], select: HTMLSelectElement) => {
    setRoleError(null);
    try {
      await api.setRole(user.id, next);
      list.reload();
    } catch (err) {
      select.value = user.role;
      setRoleError(err);
    }
  };
  const next = list.value?.next_cursor;
  return (
    <section aria-labelledby="users-title">
      <h2 id="users-title">Users</h2>
      <ErrorBox error={list.error || roleError} />
      {list.value && (
        <Table
          label="Users"
          columns={["Email", "Role", "Workspace", "Created"]}
          items={list.value.data}
          empty="No users on this page."
          row={(u) => (
            <tr key={u.id} data-user={u.email}>
              <td>
                {u.email}
                <div class="hint">{u.id}</div>
              </td>
              <td>
                <select
                  aria-label={`Role of ${u.email}`}
                  value={u.role}
                  onChange={(e) => changeRole(u, e.currentTarget.value as AdminUser["role"], e.currentTarget)}
                >
                  <option value="member">member</option>
                  <option value="admin">admin</option>
                </select>
              </td>
              <td class="hint">{u.workspace_id}</td>
              <td>{when(u.created_at)}</td>
            </tr>
          )}
        />
      )}
      <Pager pages={pages} next={next} noun="users" testId="users-page" />
      <form class="panel" onSubmit={submit} aria-labelledby="new-user-title">
        <h3 id="new-user-title">Create a user</h3>
        <p class="hint">The user gets a workspace of their own with the initial credits, and signs in with this email and password.</p>
        <label for="new-user-email">Email</label>
        <input id="new-user-email" type="email" required autoComplete="off" value={email} onInput={(e) => setEmail(e.currentTarget.value)} />
        <label for="new-user-password">Password (at least 8 characters)</label>
        <input
          id="new-user-password"
          type="password"
          required
          minLength={8}
          maxLength={1024}
          autoComplete="new-password"
          value={password}
          onInput={(e) => setPassword(e.currentTarget.value)}
        />
        <label for="new-user-role">Role</label>
        <select id="new-user-role" value={role} onChange={(e) => setRole(e.currentTarget.value as AdminUser["role"])}>
          {ROLES.map((r) => (
            <option key={r} value={r}>
              {r}
            </option>
          ))}
        </select>
        <button type="submit" disabled={busy}>
          Create user
        </button>
      </form>
      <ErrorBox error={error} />
      {created && (
        <p role="status" data-testid="user-created">
          Created {created.email} ({created.role}), id {created.id}, workspace {created.workspace_id}.
        </p>
      )}
    </section>
  );
}

function Refund() {
  const [runId, setRunId] = useState("");
  const [done, setDone] = useState<Run | null>(null);
  const { error, run } = useAction();
  const submit = (e: Event) => {
    e.preventDefault();
    setDone(null);
    if (!confirm(`Refund the run ${runId.trim()}? Its charged credits go back to its workspace.`)) return;
    run(async () => setDone(await api.refundRun(runId.trim())));
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
  const { error, run } = useAction();
  const submit = (e: Event) => {
    e.preventDefault();
    setResult(null);
    run(async () => setResult({ email, balance: await api.grantCredits({ email, amount: Number(amount), kind, ...(note ? { note } : {}) }) }));
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
      <Users />
      <p class="hint">The API has no endpoint to delete a user, so the console cannot either.</p>
    </>
  );
}
