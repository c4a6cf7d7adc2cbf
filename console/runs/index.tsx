// Runs: start one from a workflow by dropping input files (presigned upload, then POST …/runs), list with a status
// filter and cursor paging; RunPage shows one run with its evaluation, output download and cancel.
import { useState } from "preact/hooks";
import { api, RUN_STATUSES, type Run } from "../api";
import { RunTable } from "../home";
import { ErrorBox, FileDrop, H1, navigate, Pager, useCursorPages, usePoll } from "../ui";

export { RunPage } from "./run";

function StartRun() {
  const workflows = usePoll(
    () => api.workflows(),
    0,
    () => false,
  );
  const [picked, setPicked] = useState(new URLSearchParams(location.search).get("workflow") ?? "");
  const [progress, setProgress] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const active = (workflows.value?.data ?? []).filter((w) => w.status === "active");
  const workflowId = picked || active[0]?.id || "";

  const start = async (files: File[]) => {
    setError(null);
    try {
      const ids: string[] = [];
      for (const [i, file] of files.entries()) {
        setProgress(`Uploading ${file.name} (${i + 1} of ${files.length})…`);
        const doc = await api.uploadDocument(file, (f) =>
          setProgress(`Uploading ${file.name} (${i + 1} of ${files.length}): ${Math.round(f * 100)}%`),
        );
        ids.push(doc.id);
      }
      setProgress("Starting the run…");
      const run = await api.startRun(workflowId, ids);
      navigate(`/console/runs/${run.id}`);
    } catch (err) {
      setError(err);
      setProgress(null);
    }
  };

  return (
    <section class="panel" aria-labelledby="run-new">
      <h2 id="run-new">Start a run</h2>
      <ErrorBox error={workflows.error} />
      {workflows.value && active.length === 0 && <p>Create an active workflow first.</p>}
      {active.length > 0 && (
        <>
          <label for="run-workflow">Workflow</label>
          <select id="run-workflow" value={workflowId} onChange={(e) => setPicked(e.currentTarget.value)}>
            {active.map((w) => (
              <option key={w.id} value={w.id}>
                {w.name}
              </option>
            ))}
          </select>
          <FileDrop
            id="run-files"
            label="Input documents (each upload becomes one input of the run)"
            multiple
            onFiles={start}
            disabled={!!progress}
          />
          {progress && <p aria-live="polite">{progress}</p>}
          <ErrorBox error={error} />
        </>
      )}
    </section>
  );
}

/** "2026-11-24" → "2026-11-25": the API's created_before is exclusive, the form's "until" includes its day. */
function dayAfter(day: string): string | undefined {
  if (!day) return undefined;
  return new Date(Date.parse(`${day}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
}

export function RunsPage() {
  const [status, setStatus] = useState("");
  const [workflow, setWorkflow] = useState("");
  const [mode, setMode] = useState("");
  const [from, setFrom] = useState("");
  const [to, setTo] = useState("");
  const [limit, setLimit] = useState(20);
  const pages = useCursorPages();
  const cursor = pages.cursor;
  const workflows = usePoll(
    () => api.workflows(),
    0,
    () => false,
  );
  const list = usePoll(
    () => api.runs({ status, workflow_id: workflow, mode, created_after: from || undefined, created_before: dayAfter(to), limit, cursor }),
    2000,
    (page) => page.data.some((r: Run) => r.status === "queued" || r.status === "running"),
    [status, workflow, mode, from, to, limit, cursor],
  );
  // A new filter starts again from the first page.
  const filter =
    <T,>(set: (v: T) => void) =>
    (v: T) => {
      set(v);
      pages.reset();
    };
  const next = list.value?.next_cursor;
  return (
    <>
      <H1>Runs</H1>
      <StartRun />
      <section aria-labelledby="runs-list">
        <h2 id="runs-list">All runs</h2>
        <div class="filters">
          <div>
            <label for="runs-status">Status</label>
            <select id="runs-status" value={status} onChange={(e) => filter(setStatus)(e.currentTarget.value)}>
              <option value="">any</option>
              {RUN_STATUSES.map((s) => (
                <option key={s} value={s}>
                  {s}
                </option>
              ))}
            </select>
          </div>
          <div>
            <label for="runs-workflow">Workflow</label>
            <select id="runs-workflow" value={workflow} onChange={(e) => filter(setWorkflow)(e.currentTarget.value)}>
              <option value="">any</option>
              {workflows.value?.data.map((w) => (
                <option key={w.id} value={w.id}>
                  {w.name}
                </option>
              ))}
            </select>
          </div>
          <div>
            <label for="runs-mode">Mode</label>
            <select id="runs-mode" value={mode} onChange={(e) => filter(setMode)(e.currentTarget.value)}>
              <option value="">live and test</option>
              <option value="live">live</option>
              <option value="test">test</option>
            </select>
          </div>
          <div>
            <label for="runs-from">Created from</label>
            <input id="runs-from" type="date" value={from} onInput={(e) => filter(setFrom)(e.currentTarget.value)} />
          </div>
          <div>
            <label for="runs-to">Created until (that day included)</label>
            <input id="runs-to" type="date" value={to} onInput={(e) => filter(setTo)(e.currentTarget.value)} />
          </div>
          <div>
            <label for="runs-limit">Per page</label>
            <select id="runs-limit" value={limit} onChange={(e) => filter(setLimit)(Number(e.currentTarget.value))}>
              {[5, 20, 50, 100].map((n) => (
                <option key={n} value={n}>
                  {n}
                </option>
              ))}
            </select>
          </div>
        </div>
        <p class="hint">GET /v1/runs filters by status, workflow and mode; it has no date filter.</p>
        <ErrorBox error={list.error || workflows.error} />
        {list.value && <RunTable runs={list.value.data} />}
        <Pager pages={pages} next={next} noun="page" testId="page-number" />
      </section>
    </>
  );
}
