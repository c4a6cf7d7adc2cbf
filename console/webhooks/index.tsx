// Webhooks: endpoints (create with the secret shown once, edit events, pause/resume, delete) and an endpoint's
// deliveries with their attempts, next retry and "retry now".
import { useState } from "preact/hooks";
import { api, EVENT_TYPES, type WebhookEndpoint } from "../api";
import { Checkboxes, ErrorBox, H1, Secret, Status, Table, useAction, usePoll, when } from "../ui";

function EditEvents({ endpoint, onSaved, onClose }: { endpoint: WebhookEndpoint; onSaved: () => void; onClose: () => void }) {
  const [events, setEvents] = useState<string[]>(endpoint.events);
  const { error, run } = useAction();
  const save = (e: Event) => {
    e.preventDefault();
    run(async () => {
      await api.updateWebhook(endpoint.id, { events });
      onSaved();
      onClose();
    });
  };
  return (
    <form class="panel" onSubmit={save} aria-labelledby="whk-edit">
      <h2 id="whk-edit" tabIndex={-1}>
        Events sent to {endpoint.url}
      </h2>
      <Checkboxes legend="Events" options={EVENT_TYPES} value={events} onChange={setEvents} />
      <ErrorBox error={error} />
      <div class="actions">
        <button type="submit" disabled={events.length === 0}>
          Save events
        </button>
        <button type="button" class="danger" onClick={onClose}>
          Cancel
        </button>
      </div>
    </form>
  );
}

function Deliveries({ endpoint }: { endpoint: WebhookEndpoint }) {
  const list = usePoll(
    () => api.deliveries(endpoint.id),
    3000,
    (p) => p.data.some((d) => d.status === "pending"),
    [endpoint.id],
  );
  const { error, run } = useAction();
  const retry = (id: string) =>
    run(async () => {
      await api.retryDelivery(endpoint.id, id);
      list.reload();
    });
  return (
    <section aria-labelledby="whk-deliveries">
      <h2 id="whk-deliveries">Deliveries to {endpoint.url}</h2>
      <ErrorBox error={error || list.error} />
      {list.value?.data.length === 0 && <p>No deliveries yet.</p>}
      <ul class="deliveries">
        {list.value?.data.map((d) => (
          <li key={d.id}>
            <strong>{d.event_type}</strong> <Status value={d.status} /> <span class="hint">{when(d.created_at)}</span>
            {d.next_attempt_at && <span class="hint"> · next retry {when(d.next_attempt_at)}</span>}
            {d.event_id && <div class="hint">event {d.event_id}</div>}
            <Payload endpointId={endpoint.id} deliveryId={d.id} />
            <ol aria-label="Attempts">
              {d.attempts.map((a) => (
                <li key={a.at}>
                  {when(a.at)}: {a.status ?? "no answer"} in {a.duration_ms} ms{a.error ? ` (${a.error})` : ""}
                </li>
              ))}
            </ol>
            {d.status !== "succeeded" && (
              <button type="button" onClick={() => retry(d.id)}>
                Retry now
              </button>
            )}
          </li>
        ))}
      </ul>
    </section>
  );
}

/** The event body a delivery sends (GET …/deliveries/{id}), fetched when asked for. */
function Payload({ endpointId, deliveryId }: { endpointId: string; deliveryId: string }) {
  const [payload, setPayload] = useState<string | null>(null);
  const { error, run } = useAction();
  const toggle = () =>
    payload !== null ? setPayload(null) : run(async () => setPayload(JSON.stringify((await api.delivery(endpointId, deliveryId)).payload, null, 2)));
  return (
    <div>
      <button type="button" aria-expanded={payload !== null} onClick={toggle}>
        {payload === null ? "Show payload" : "Hide payload"}
      </button>
      <ErrorBox error={error} />
      {payload !== null && <pre class="payload">{payload}</pre>}
    </div>
  );
}

export function WebhooksPage() {
  const list = usePoll(api.webhooks, 0, () => false);
  const [url, setUrl] = useState("");
  const [events, setEvents] = useState<string[]>([...EVENT_TYPES]);
  const [created, setCreated] = useState<{ url: string; secret: string; warning: string } | null>(null);
  const [open, setOpen] = useState<WebhookEndpoint | null>(null);
  const [editing, setEditing] = useState<WebhookEndpoint | null>(null);
  const { error, run } = useAction();

  const create = (e: Event) => {
    e.preventDefault();
    run(async () => {
      setCreated(await api.createWebhook(url, events));
      setUrl("");
      list.reload();
    });
  };
  const toggle = (ep: WebhookEndpoint) =>
    run(async () => {
      await api.updateWebhook(ep.id, { status: ep.status === "active" ? "disabled" : "active" });
      list.reload();
    });
  const remove = (ep: WebhookEndpoint) =>
    confirm(`Delete the endpoint ${ep.url}?`) &&
    run(async () => {
      await api.deleteWebhook(ep.id);
      if (open?.id === ep.id) setOpen(null);
      list.reload();
    });

  return (
    <>
      <H1>Webhooks</H1>
      <form class="panel" onSubmit={create} aria-labelledby="whk-new">
        <h2 id="whk-new">New endpoint</h2>
        <label for="whk-url">URL</label>
        <input
          id="whk-url"
          type="url"
          required
          placeholder="https://example.com/hooks/assay"
          value={url}
          onInput={(e) => setUrl(e.currentTarget.value)}
        />
        <Checkboxes legend="Events" options={EVENT_TYPES} value={events} onChange={setEvents} />
        <button type="submit" disabled={events.length === 0}>
          Create endpoint
        </button>
      </form>
      {created && <Secret label={`Signing secret for ${created.url}:`} value={created.secret} warning={created.warning} />}
      <ErrorBox error={error || list.error} />
      {list.value && (
        <Table
          columns={["URL", "Events", "Status", "Created", ""]}
          items={list.value.data}
          empty="No endpoints yet."
          row={(ep) => (
            <tr key={ep.id} data-endpoint={ep.url}>
              <td>{ep.url}</td>
              <td>{ep.events.join(", ")}</td>
              <td>
                <Status value={ep.status} />
              </td>
              <td>{when(ep.created_at)}</td>
              <td class="actions">
                <button type="button" onClick={() => setOpen(ep)} aria-label={`Deliveries to ${ep.url}`}>
                  Deliveries
                </button>
                <button
                  type="button"
                  onClick={() => {
                    setEditing(ep);
                    requestAnimationFrame(() => document.getElementById("whk-edit")?.focus());
                  }}
                  aria-label={`Edit events of ${ep.url}`}
                >
                  Edit events
                </button>
                <button type="button" onClick={() => toggle(ep)} aria-label={`${ep.status === "active" ? "Pause" : "Resume"} ${ep.url}`}>
                  {ep.status === "active" ? "Pause" : "Resume"}
                </button>
                <button type="button" class="danger" onClick={() => remove(ep)} aria-label={`Delete ${ep.url}`}>
                  Delete
                </button>
              </td>
            </tr>
          )}
        />
      )}
      {editing && <EditEvents key={editing.id} endpoint={editing} onSaved={list.reload} onClose={() => setEditing(null)} />}
      {open && <Deliveries endpoint={open} />}
    </>
  );
}
