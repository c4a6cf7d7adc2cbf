// Workflows: list; create (product, name, prompt from a template or a goal, references, output format and schema, model
// policy, mode, webhook); edit (name, prompt, schema); pause, resume, archive, restore, delete; start a run from one.
import { useState } from "preact/hooks";
import { api, CATEGORIES, MODEL_POLICIES, type ModelPolicy, OUTPUT_FORMATS, type OutputFormat, type Workflow } from "../api";
import { ErrorBox, H1, Link, Status, Table, useAction, usePoll, when } from "../ui";

/** What the schema box says as you type: empty (no schema), an object schema, or what is wrong with it. */
type SchemaCheck = { ok: true; value: Record<string, unknown> | null; words: string } | { ok: false; words: string };
function checkSchema(text: string): SchemaCheck {
  if (!text.trim()) return { ok: true, value: null, words: "No output schema: the product's own evaluation shape is used." };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return { ok: false, words: `Not valid JSON: ${(err as Error).message}` };
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) return { ok: false, words: "A schema must be a JSON object." };
  const schema = value as Record<string, unknown>;
  if (schema.type !== undefined && schema.type !== "object")
    return { ok: false, words: `The schema must describe an object ("type": "object"), not ${JSON.stringify(schema.type)}.` };
  const props = schema.properties && typeof schema.properties === "object" ? Object.keys(schema.properties) : [];
  const required = Array.isArray(schema.required) ? schema.required.length : 0;
  return {
    ok: true,
    value: schema,
    words: `Valid JSON: an object schema with ${props.length} ${props.length === 1 ? "property" : "properties"}${props.length ? ` (${props.join(", ")})` : ""}, ${required} required. The server checks it in full when you save.`,
  };
}

const SCHEMA_EXAMPLE =
  '{\n  "type": "object",\n  "required": ["grade"],\n  "properties": {\n    "grade": { "type": "string" },\n    "comments": { "type": "string" }\n  }\n}';

function WorkflowForm({ editing, onDone, onClose }: { editing: Workflow | null; onDone: () => void; onClose?: () => void }) {
  const products = usePoll(api.products, 0, () => false);
  const refs = usePoll(api.references, 0, () => false);
  const templates = usePoll(api.promptTemplates, 0, () => false);
  const hooks = usePoll(api.webhooks, 0, () => false);
  const [product, setProduct] = useState(editing?.product_code ?? "");
  const [name, setName] = useState(editing?.name ?? "");
  const [templateId, setTemplateId] = useState(editing?.prompt_template_id ?? "");
  const [prompt, setPrompt] = useState(editing?.user_prompt ?? "");
  const [goal, setGoal] = useState("");
  const [category, setCategory] = useState<string>("general");
  const [generating, setGenerating] = useState(false);
  const [format, setFormat] = useState<OutputFormat>(editing?.output_format ?? "json");
  const [schemaText, setSchemaText] = useState(editing?.output_schema ? JSON.stringify(editing.output_schema, null, 2) : "");
  const [policy, setPolicy] = useState<ModelPolicy>(editing?.default_model_policy ?? "auto");
  const [mode, setMode] = useState<"async" | "sync">(editing?.default_mode ?? "async");
  const [webhook, setWebhook] = useState(editing?.webhook_endpoint_id ?? "");
  const [chosen, setChosen] = useState<string[]>(editing?.reference_document_ids ?? []);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [saved, setSaved] = useState("");
  const productCode = product || products.value?.data.find((p) => p.status !== "deprecated")?.code || "";
  const schema = checkSchema(schemaText);
  // A sample output file (JSON, CSV, XLSX…) the server infers the schema from, when the box is left empty.
  const [sample, setSample] = useState<{ id: string; name: string } | null>(null);
  const [sampleBusy, setSampleBusy] = useState(false);
  const pickSample = async (file: File | undefined) => {
    if (!file) return;
    setError(null);
    setSampleBusy(true);
    try {
      setSample({ id: (await api.uploadDocument(file)).id, name: file.name });
    } catch (err) {
      setError(err);
    } finally {
      setSampleBusy(false);
    }
  };
  // PATCH /v1/workflows/{id} changes the name, status, prompt and output schema only; the rest is fixed at creation.
  const fixed = !!editing;

  const pickTemplate = (id: string) => {
    setTemplateId(id);
    const t = templates.value?.data.find((x) => x.id === id);
    if (!t) return;
    setPrompt(t.user_prompt_seed);
    if (t.recommended_output_format) setFormat(t.recommended_output_format);
  };
  const generate = async () => {
    setGenerating(true);
    setError(null);
    try {
      const g = await api.generatePrompt({ goal, category, output_format: format });
      setPrompt(g.user_prompt);
      setTemplateId("");
      if (g.recommended_output_format && !fixed) setFormat(g.recommended_output_format);
    } catch (err) {
      setError(err);
    } finally {
      setGenerating(false);
    }
  };

  const submit = async (e: Event) => {
    e.preventDefault();
    if (!schema.ok) return;
    setBusy(true);
    setError(null);
    setSaved("");
    try {
      if (editing) {
        await api.updateWorkflow(editing.id, { name, user_prompt: prompt.trim() ? prompt : null, output_schema: schema.value });
        setSaved(`Saved ${name}.`);
      } else {
        await api.createWorkflow({
          product_code: productCode,
          name,
          output_format: format,
          reference_document_ids: chosen,
          default_model_policy: policy,
          default_mode: mode,
          ...(templateId ? { prompt_template_id: templateId } : {}),
          ...(prompt.trim() ? { user_prompt: prompt } : {}),
          ...(schema.value ? { output_schema: schema.value } : sample ? { output_schema_sample_id: sample.id } : {}),
          ...(webhook ? { webhook_endpoint_id: webhook } : {}),
        });
        setSample(null);
        setName("");
        setPrompt("");
        setTemplateId("");
        setSchemaText("");
        setChosen([]);
      }
      onDone();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  const usable = (refs.value?.data ?? []).filter((r) => r.status !== "failed" || chosen.includes(r.id));
  return (
    <form onSubmit={submit} class="panel" aria-labelledby="wf-form">
      <h2 id="wf-form" tabIndex={-1}>
        {editing ? `Edit ${editing.name}` : "New workflow"}
      </h2>
      <ErrorBox error={products.error || refs.error || templates.error || hooks.error} />
      {fixed && <p class="hint">The API changes a workflow's name, prompt and output schema; the other settings are fixed when it is created.</p>}
      <label for="wf-product">Product</label>
      <select id="wf-product" value={productCode} disabled={fixed} onChange={(e) => setProduct(e.currentTarget.value)}>
        {products.value?.data.map((p) => (
          <option key={p.code} value={p.code}>
            {p.name} ({p.code}
            {p.status !== "active" ? `, ${p.status}` : ""})
          </option>
        ))}
      </select>
      <label for="wf-name">Name</label>
      <input id="wf-name" required maxLength={200} value={name} onInput={(e) => setName(e.currentTarget.value)} />
      <fieldset class="stack">
        <legend>Prompt</legend>
        <label for="wf-template">Start from a template</label>
        <select id="wf-template" value={templateId} disabled={fixed} onChange={(e) => pickTemplate(e.currentTarget.value)}>
          <option value="">none</option>
          {templates.value?.data.map((t) => (
            <option key={t.id} value={t.id}>
              {t.title} ({t.category})
            </option>
          ))}
        </select>
        <label for="wf-goal">Or generate one from a goal</label>
        <input
          id="wf-goal"
          maxLength={2000}
          placeholder="Grade Year 10 persuasive essays"
          value={goal}
          onInput={(e) => setGoal(e.currentTarget.value)}
        />
        <label for="wf-category">Category</label>
        <select id="wf-category" value={category} onChange={(e) => setCategory(e.currentTarget.value)}>
          {CATEGORIES.map((c) => (
            <option key={c} value={c}>
              {c}
            </option>
          ))}
        </select>
        <button type="button" disabled={!goal.trim() || generating} onClick={generate}>
          {generating ? "Generating…" : "Generate prompt"}
        </button>
        <label for="wf-prompt">Prompt text</label>
        <textarea
          id="wf-prompt"
          rows={6}
          maxLength={20000}
          placeholder="Grade the essay against the rubric; quote it as evidence."
          value={prompt}
          onInput={(e) => setPrompt(e.currentTarget.value)}
        />
      </fieldset>
      <fieldset disabled={fixed}>
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
      <select id="wf-format" value={format} disabled={fixed} onChange={(e) => setFormat(e.currentTarget.value as OutputFormat)}>
        {OUTPUT_FORMATS.map((f) => (
          <option key={f} value={f}>
            {f}
          </option>
        ))}
      </select>
      <label for="wf-schema">Output schema (JSON Schema of an object; optional)</label>
      <textarea
        id="wf-schema"
        rows={8}
        class="code"
        spellcheck={false}
        placeholder={SCHEMA_EXAMPLE}
        aria-describedby="wf-schema-check"
        aria-invalid={!schema.ok}
        value={schemaText}
        onInput={(e) => setSchemaText(e.currentTarget.value)}
      />
      <p id="wf-schema-check" class={schema.ok ? "hint valid" : "error"} aria-live="polite" data-testid="schema-check">
        {schema.words}
      </p>
      {!editing && (
        <>
          <label for="wf-sample">Or infer the schema from a sample output (JSON, CSV, XLSX…; used when the box is empty)</label>
          <input id="wf-sample" type="file" disabled={sampleBusy} onChange={(e) => pickSample(e.currentTarget.files?.[0])} />
          {sample && (
            <p class="hint" aria-live="polite" data-testid="sample-picked">
              Sample {sample.name} uploaded: the server infers the schema from it when you create the workflow.
            </p>
          )}
        </>
      )}
      <label for="wf-policy">Model policy</label>
      <select id="wf-policy" value={policy} disabled={fixed} onChange={(e) => setPolicy(e.currentTarget.value as ModelPolicy)}>
        {MODEL_POLICIES.map((p) => (
          <option key={p} value={p}>
            {p}
          </option>
        ))}
      </select>
      <label for="wf-mode">Default mode</label>
      <select id="wf-mode" value={mode} disabled={fixed} onChange={(e) => setMode(e.currentTarget.value as "async" | "sync")}>
        <option value="async">async</option>
        <option value="sync">sync</option>
      </select>
      <label for="wf-webhook">Webhook endpoint</label>
      <select id="wf-webhook" value={webhook} disabled={fixed} onChange={(e) => setWebhook(e.currentTarget.value)}>
        <option value="">none</option>
        {hooks.value?.data.map((h) => (
          <option key={h.id} value={h.id}>
            {h.url}
          </option>
        ))}
      </select>
      <ErrorBox error={error} />
      {saved && <p role="status">{saved}</p>}
      <div class="actions">
        <button type="submit" disabled={busy || !productCode || !schema.ok}>
          {busy ? "Saving…" : editing ? "Save changes" : "Create workflow"}
        </button>
        {onClose && (
          <button type="button" class="danger" onClick={onClose}>
            Close
          </button>
        )}
      </div>
    </form>
  );
}

export function WorkflowsPage() {
  const list = usePoll(
    () => api.workflows(),
    0,
    () => false,
  );
  const { error, run } = useAction();
  const act = (fn: () => Promise<unknown>) =>
    run(async () => {
      await fn();
      list.reload();
    });
  const [editing, setEditing] = useState<Workflow | null>(null);
  const archive = (wf: Workflow) => act(() => api.updateWorkflow(wf.id, { status: wf.status === "archived" ? "active" : "archived" }));
  const pause = (wf: Workflow) => act(() => api.updateWorkflow(wf.id, { status: wf.status === "paused" ? "active" : "paused" }));
  const edit = (wf: Workflow) => {
    setEditing(wf);
    requestAnimationFrame(() => document.getElementById("wf-form")?.focus());
  };
  const remove = (wf: Workflow) => confirm(`Delete the workflow "${wf.name}"?`) && act(() => api.deleteWorkflow(wf.id));
  return (
    <>
      <H1>Workflows</H1>
      <ErrorBox error={error || list.error} />
      {list.value && (
        <Table
          columns={["Name", "Product", "Output", "Status", "Created", ""]}
          items={list.value.data}
          empty="No workflows yet."
          row={(wf) => (
            <tr key={wf.id} data-workflow={wf.name}>
              <td>
                {wf.name}
                <div class="hint">
                  {wf.id} · {wf.reference_document_ids.length} references · {wf.default_model_policy}
                  {wf.output_schema ? " · own output schema" : ""}
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
                <button type="button" onClick={() => edit(wf)} aria-label={`Edit ${wf.name}`}>
                  Edit
                </button>
                {wf.status !== "archived" && (
                  <button type="button" onClick={() => pause(wf)} aria-label={`${wf.status === "paused" ? "Resume" : "Pause"} ${wf.name}`}>
                    {wf.status === "paused" ? "Resume" : "Pause"}
                  </button>
                )}
                <button type="button" onClick={() => archive(wf)} aria-label={`${wf.status === "archived" ? "Restore" : "Archive"} ${wf.name}`}>
                  {wf.status === "archived" ? "Restore" : "Archive"}
                </button>
                <button type="button" class="danger" onClick={() => remove(wf)} aria-label={`Delete ${wf.name}`}>
                  Delete
                </button>
              </td>
            </tr>
          )}
        />
      )}
      {editing ? (
        <WorkflowForm key={editing.id} editing={editing} onDone={list.reload} onClose={() => setEditing(null)} />
      ) : (
        <WorkflowForm key="new" editing={null} onDone={list.reload} />
      )}
    </>
  );
}
