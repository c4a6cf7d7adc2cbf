// Login: email + password → POST /v1/auth/login; the session token stays in this tab (sessionStorage).
import { useState } from "preact/hooks";
import { api, type Session } from "../api";
import { ErrorBox, useAction } from "../ui";

export function LoginPage({ onSignedIn }: { onSignedIn: (s: Session) => void }) {
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const { error, busy, run } = useAction();
  const submit = (e: Event) => {
    e.preventDefault();
    run(async () => onSignedIn(await api.login(email, password)));
  };
  return (
    <main id="main" class="narrow">
      <h1 tabIndex={-1}>Sign in to Assay</h1>
      <form onSubmit={submit}>
        <label for="login-email">Email</label>
        <input id="login-email" type="email" autocomplete="username" required value={email} onInput={(e) => setEmail(e.currentTarget.value)} />
        <label for="login-password">Password</label>
        <input
          id="login-password"
          type="password"
          autocomplete="current-password"
          required
          value={password}
          onInput={(e) => setPassword(e.currentTarget.value)}
        />
        <ErrorBox error={error} />
        <button type="submit" disabled={busy}>
          {busy ? "Signing in…" : "Sign in"}
        </button>
      </form>
    </main>
  );
}
