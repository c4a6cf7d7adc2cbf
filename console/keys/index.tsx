// API keys: create (name, mode, scopes), the token shown once with a copy button, list, revoke with confirmation.
import { useState } from "preact/hooks";
import { type ApiKey, api, SCOPES, type SecretApiKey } from "../api";
import { Checkboxes, ErrorBox, H1, Secret, Status, Table, useAction, usePoll, when } from "../ui";

export function KeysPage() {
  const list = usePoll(api.keys, 0, () => false);
  const [name, setName] = useState("");
  const [mode, setMode] = useState<"live" | "test">("live");
  const [scopes, setScopes] = useState<string[]>([...SCOPES]);
  const [created, setCreated] = useState<SecretApiKey | null>(null);
  const { error, busy, run } = useAction();
  const [rpm, setRpm] = useState("");
  const [expires, setExpires] = useState("");

  const create = (e: Event) => {
    e.preventDefault();
    run(async () => {
      setCreated(
        await api.createKey({
          name,
          mode,
          scopes,
          ...(rpm ? { rate_limit_rpm: Number(rpm) } : {}),
          // The end of the chosen day, UTC.
          ...(expires ? { expires_at: `${expires}T23:59:59Z` } : {}),
        }),
      );
      setName("");
      setRpm("");
      setExpires("");
      list.reload();
    });
  };
  const revoke = (key: ApiKey) =>
    confirm(`Revoke the key "${key.name}" (…${key.last4})? Programs using it stop working at once.`) &&
    run(async () => {
      await api.revokeKey(key.public_id);
      list.reload();
    });

  return (
    <>
      <H1>API keys</H1>
      <form class="panel" onSubmit={create} aria-labelledby="key-new">
        <h2 id="key-new">New key</h2>
        <label for="key-name">Name</label>
        <input id="key-name" required maxLength={100} value={name} onInput={(e) => setName(e.currentTarget.value)} />
        <fieldset>
          <legend>Mode</legend>
          <label class="check">
            <input type="radio" name="key-mode" checked={mode === "live"} onChange={() => setMode("live")} /> live (spends credits)
          </label>
          <label class="check">
            <input type="radio" name="key-mode" checked={mode === "test"} onChange={() => setMode("test")} /> test (stubbed output, free)
          </label>
        </fieldset>
        <Checkboxes legend="Scopes" options={SCOPES} value={scopes} onChange={setScopes} />
        <label for="key-rpm">Rate limit, requests a minute (optional; empty = the server's default)</label>
        <input id="key-rpm" type="number" min={1} max={100000} step={1} value={rpm} onInput={(e) => setRpm(e.currentTarget.value)} />
        <label for="key-expires">Expires after (optional; the end of that day, UTC)</label>
        <input id="key-expires" type="date" value={expires} onInput={(e) => setExpires(e.currentTarget.value)} />
        <button type="submit" disabled={busy || scopes.length === 0}>
          Create key
        </button>
      </form>
      {created && <Secret label={`Key "${created.name}":`} value={created.token} warning={created.warning} />}
      <ErrorBox error={error || list.error} />
      {list.value && (
        <Table
          columns={["Name", "Key", "Mode", "Status", "Limits", "Last used", ""]}
          items={list.value.data}
          empty="No keys yet."
          row={(k) => (
            <tr key={k.public_id} data-key={k.name}>
              <td>
                {k.name}
                <div class="hint">{k.scopes.join(", ")}</div>
              </td>
              <td>
                <code>
                  {k.key_prefix}…{k.last4}
                </code>
              </td>
              <td>{k.mode}</td>
              <td>
                <Status value={k.status} />
              </td>
              <td>
                {k.rate_limit_rpm ? `${k.rate_limit_rpm}/min` : "default rate"}
                <div class="hint">{k.expires_at ? `expires ${when(k.expires_at)}` : "no expiry"}</div>
              </td>
              <td>{k.last_used_at ? when(k.last_used_at) : "never"}</td>
              <td>
                {k.status === "active" && (
                  <button type="button" class="danger" onClick={() => revoke(k)} aria-label={`Revoke ${k.name}`}>
                    Revoke
                  </button>
                )}
              </td>
            </tr>
          )}
        />
      )}
    </>
  );
}
