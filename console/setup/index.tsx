// First run: /console/setup?token=… creates the first administrator with POST /v1/auth/setup and signs in.
import { useState } from "preact/hooks";
import { api, type Session } from "../api";
import { ErrorBox, useAction } from "../ui";

/** A rough hint, not a rule: the server decides what it accepts. */
function strength(password: string): string {
  if (!password) return "";
  let points = 0;
  if (password.length >= 12) points++;
  if (password.length >= 16) points++;
  if (/[a-z]/.test(password) && /[A-Z]/.test(password)) points++;
  if (/\d/.test(password)) points++;
  if (/[^A-Za-z0-9]/.test(password)) points++;
  if (password.length < 10) return "Too short: use at least 10 characters (a few words work well).";
  return ["Weak", "Weak", "Fair", "Good", "Strong", "Very strong"][points];
}

export function SetupPage({ onSignedIn }: { onSignedIn: (s: Session) => void }) {
  const token = new URLSearchParams(location.search).get("token") ?? "";
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const [again, setAgain] = useState("");
  const { error, busy, run } = useAction();
  const mismatch = again !== "" && again !== password;
  const submit = (e: Event) => {
    e.preventDefault();
    if (password !== again) return;
    run(async () => onSignedIn(await api.setup(token, email, password)));
  };
  return (
    <main id="main" class="narrow">
      <h1 tabIndex={-1}>Set up Assay</h1>
      <p>Create the first administrator account. This page works once, with the setup token the server printed at its first start.</p>
      {!token && <p class="error">This link has no setup token: open the link the server printed (…/console/setup?token=…).</p>}
      <form onSubmit={submit}>
        <label for="setup-email">Email</label>
        <input id="setup-email" type="email" autocomplete="username" required value={email} onInput={(e) => setEmail(e.currentTarget.value)} />
        <label for="setup-password">Password</label>
        <input
          id="setup-password"
          type="password"
          autocomplete="new-password"
          required
          aria-describedby="setup-strength"
          value={password}
          onInput={(e) => setPassword(e.currentTarget.value)}
        />
        <p id="setup-strength" class="hint" aria-live="polite">
          {strength(password)}
        </p>
        <label for="setup-again">Password again</label>
        <input
          id="setup-again"
          type="password"
          autocomplete="new-password"
          required
          aria-invalid={mismatch}
          aria-describedby="setup-mismatch"
          value={again}
          onInput={(e) => setAgain(e.currentTarget.value)}
        />
        <p id="setup-mismatch" class="hint" aria-live="polite">
          {mismatch ? "The passwords differ." : ""}
        </p>
        <ErrorBox error={error} />
        <button type="submit" disabled={busy || !token || mismatch}>
          {busy ? "Creating…" : "Create administrator"}
        </button>
      </form>
    </main>
  );
}
