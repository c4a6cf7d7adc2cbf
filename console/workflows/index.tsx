// Workflows: list, create (product, name, prompt, references, output format), archive, delete; start a run from one.
import { useState } from "preact/hooks";
import { api, OUTPUT_FORMATS, type OutputFormat, type Workflow } from "../api";
import { ErrorBox, H1, Link, Status, usePoll, when } from "../ui";

function CreateWorkflow({ onCreated }: { onCreated: () => void }) {
  const products = usePoll(api.products, 0, () => false);
  const refs = usePoll(api.references, 0, () => false);
  const [product, setProduct] = useState("");
  const [name, setName] = useState("");
  const [prompt, setPrompt] = useState("");
  const [format, setFormat] = useState<OutputFormat>("json");
  const [chosen, setChosen] = useState<string[]>([]);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const productCode = product || products.value?.data.find((p) => p.status !== "deprecated")?.code || "";

  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await api.createWorkflow({
        product_code: productCode,
        name,
        output_format: format,
        reference_document_ids: chosen,
        ...(prompt.trim() ? { user_prompt: prompt } : {}),
      });
      setName("");
      setPrompt("");
      setChosen([]);
      onCreated();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  const usable = (refs.value?.data ?? []).filter((r) => r.status !== "failed");
  return (
    <form onSubmit={submit} class="panel" aria-labelledby="wf-new">
      <h2 id="wf-new">New workflow</h2>
      <ErrorBox error={products.error || refs.error} />
      <label for="wf-product">Product</label>
      <select id="wf-product" value={productCode} onChange={(e) => setProduct(e.currentTarget.value)}>
        {products.value?.data.map((p) => (
          <option key={p.code} value={p.code}>
            {p.name} ({p.code}
            {p.status !== "active" ? `, ${p.status}` : ""})
          </option>
        ))}
      </select>
      <label for="wf-name">Name</label>
      <input id="wf-name" required maxLength={200} value={name} onInput={(e) => setName(e.currentTarget.value)} />
      <label for="wf-prompt">Prompt</label>
      <textarea
        id="wf-prompt"
        rows={4}
        placeholder="Grade the essay against the rubric; quote it as evidence."
        value={prompt}
        onInput={(e) => setPrompt(e.currentTarget.value)}
      />
      <fieldset>
        <legend>Reference documents</legend>
        {usable.length === 0 && (
          <p class="hint">
            None yet: <Link href="/console/references">upload one</Link>.
          </p>
        )}
        {usable.map((r) => (
          <label key={r.id} class="check">
            <input
              type="checkbox"
              checked={chosen.includes(r.id)}
              onChange={(e) => setChosen(e.currentTarget.checked ? [...chosen, r.id] : chosen.filter((x) => x !== r.id))}
            />{" "}
            {r.name} <span class="hint">({r.status})</span>
          </label>
        ))}
      </fieldset>
      <label for="wf-format">Output format</label>
      <select id="wf-format" value={format} onChange={(e) => setFormat(e.currentTarget.value as OutputFormat)}>
        {OUTPUT_FORMATS.map((f) => (
          <option key={f} value={f}>
            {f}
          </option>
        ))}
      </select>
      <ErrorBox error={error} />
      <button type="submit" disabled={busy || !productCode}>
        {busy ? "Creating…" : "Create workflow"}
      </button>
    </form>
  );
}

export function WorkflowsPage() {
  const list = usePoll(
    () => api.workflows(),
    0,
    () => false,
  );
  const [error, setError] = useState<unknown>(null);
  const act = async (fn: () => Promise<unknown>) => {
    setError(null);
    try {
      await fn();
      list.reload();
    } catch (err) {
      setError(err);
    }
  };
  const archive = (wf: Workflow) => act(() => api.updateWorkflow(wf.id, { status: wf.status === "archived" ? "active" : "archived" }));
  const remove = (wf: Workflow) => confirm(`Delete the workflow "${wf.name}"?`) && act(() => api.deleteWorkflow(wf.id));
  return (
    <>
      <H1>Workflows</H1>
      <ErrorBox error={error || list.error} />
      {list.value && list.value.data.length === 0 && <p>No workflows yet.</p>}
      {list.value && list.value.data.length > 0 && (
        <div class="scroll">
          <table>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Product</th>
                <th scope="col">Output</th>
                <th scope="col">Status</th>
                <th scope="col">Created</th>
                <th scope="col">
                  <span class="sr">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {list.value.data.map((wf) => (
                <tr key={wf.id} data-workflow={wf.name}>
                  <td>
                    {wf.name}
                    <div class="hint">
                      {wf.id} · {wf.reference_document_ids.length} references
                    </div>
                  </td>
                  <td>{wf.product_code}</td>
                  <td>{wf.output_format}</td>
                  <td>
                    <Status value={wf.status} />
                  </td>
                  <td>{when(wf.created_at)}</td>
                  <td class="actions">
                    {wf.status === "active" && <Link href={`/console/runs?workflow=${wf.id}`}>Start a run</Link>}
                    <button type="button" onClick={() => archive(wf)} aria-label={`${wf.status === "archived" ? "Restore" : "Archive"} ${wf.name}`}>
                      {wf.status === "archived" ? "Restore" : "Archive"}
                    </button>
                    <button type="button" class="danger" onClick={() => remove(wf)} aria-label={`Delete ${wf.name}`}>
                      Delete
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <CreateWorkflow onCreated={list.reload} />
    </>
  );
}
