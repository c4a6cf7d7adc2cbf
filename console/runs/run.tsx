// One run: status (polled while queued or running), timing, credits, the evaluation, the output file, cancel.
import { useEffect, useRef, useState } from "preact/hooks";
import { api, type Criterion, type DocumentText, type Location, type Run } from "../api";
import { credits, ErrorBox, H1, Link, Status, usePoll, when, where } from "../ui";

const seconds = (a: string | null, b: string | null) => (a && b ? `${((Date.parse(b) - Date.parse(a)) / 1000).toFixed(1)} s` : "—");

type Quote = Criterion["evidence"][number];

const sameLocation = (a: Location, b: Location) => {
  const ka = Object.keys(a);
  return ka.length === Object.keys(b).length && ka.every((k) => a[k] === b[k]);
};

/**
 * The section of the document's text that holds the quote: the one at the quote's location (the server derives a
 * quote's location from the section that contains it), else any section containing it, else the section at that place.
 */
function findQuote(text: DocumentText, quote: Quote) {
  const { sections } = text;
  const section =
    sections.find((s) => sameLocation(s.location, quote.location) && s.text.includes(quote.quote)) ??
    sections.find((s) => s.text.includes(quote.quote)) ??
    sections.find((s) => sameLocation(s.location, quote.location));
  if (!section) return null;
  const at = section.text.indexOf(quote.quote);
  return { section, at };
}

/**
 * A quote in its document: the document's name, type and pages (GET /v1/documents/{id}), and the text of the page,
 * sheet, slide or part the quote comes from (GET /v1/documents/{id}/text) with the quote highlighted and scrolled to.
 */
function QuoteInContext({ quote, onClose }: { quote: Quote; onClose: () => void }) {
  const doc = usePoll(
    () => api.document(quote.document_id),
    0,
    () => false,
    [quote.document_id],
  );
  const text = usePoll(
    () => api.documentText(quote.document_id),
    0,
    () => false,
    [quote.document_id],
  );
  const panel = useRef<HTMLElement>(null);
  const box = useRef<HTMLElement>(null);
  const markRef = useRef<HTMLElement>(null);
  const d = doc.value;
  const found = text.value ? findQuote(text.value, quote) : null;
  const place = Object.keys(quote.location).length ? where(quote.location) : "the whole document (it has no pages)";
  useEffect(() => {
    // Scroll the passage box to the highlighted quote (centred), and the panel itself into the window.
    const b = box.current;
    const m = markRef.current;
    if (b && m) b.scrollTop = Math.max(0, m.offsetTop - b.clientHeight / 2 + m.offsetHeight / 2);
    panel.current?.scrollIntoView?.({ block: "nearest" });
  }, [text.value]);
  return (
    <section ref={panel} class="context" aria-label="Quote in context" data-testid="quote-context">
      <h4>
        In {d?.filename ?? quote.document_id} — {place}
      </h4>
      <ErrorBox error={doc.error || text.error} />
      {d && (
        <p class="hint">
          {d.id} · {d.mime_type ?? "unknown type"}
          {d.page_count != null ? ` · ${d.page_count} ${d.page_count === 1 ? "page" : "pages"} (or sheets, slides)` : ""}
          {d.size_bytes != null ? ` · ${d.size_bytes.toLocaleString()} bytes` : ""}
        </p>
      )}
      {text.value && !found && <p class="hint">This place is not in the document's text; the quote reads:</p>}
      {text.value && found && found.at < 0 && (
        <p class="hint">The quote spans more than one part of the document: the part at its place is shown, then the quote.</p>
      )}
      {text.error != null && <p class="hint">The document's text could not be loaded; the quote reads:</p>}
      {(text.value || text.error != null) && (
        // A scrollable region keyboard users can focus and scroll with the arrow keys.
        <section
          ref={box}
          class="passage"
          // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling box must be focusable to be scrolled by keyboard
          tabIndex={0}
          aria-label={`Text of ${found ? where(found.section.location) || "the document" : "the quote"}`}
          data-testid="passage"
        >
          {found && found.at >= 0 ? (
            <>
              {found.section.text.slice(0, found.at)}
              <mark ref={markRef}>{quote.quote}</mark>
              {found.section.text.slice(found.at + quote.quote.length)}
            </>
          ) : (
            <>
              {found?.section.text}
              {found && " "}
              <mark ref={markRef}>{quote.quote}</mark>
            </>
          )}
        </section>
      )}
      <button type="button" onClick={onClose}>
        Close
      </button>
    </section>
  );
}

function CriterionView({ c }: { c: Criterion }) {
  const [open, setOpen] = useState<number | null>(null);
  return (
    <article class="criterion">
      <h3>
        {c.title}{" "}
        <span class="score">
          {c.score} / {c.max_score}
        </span>
      </h3>
      <p>{c.rationale}</p>
      {c.evidence.length > 0 && (
        <ul class="evidence" aria-label={`Evidence for ${c.title}`}>
          {c.evidence.map((e, i) => (
            <li key={`${e.document_id}:${e.quote}`}>
              <button
                type="button"
                class="quote"
                aria-expanded={open === i}
                aria-label={`Show in context: ${e.quote}`}
                onClick={() => setOpen(open === i ? null : i)}
              >
                <q>{e.quote}</q>
              </button>
              <span class="hint">
                {e.document_id}
                {Object.keys(e.location).length ? ` · ${where(e.location)}` : ""}
              </span>
              {open === i && <QuoteInContext quote={e} onClose={() => setOpen(null)} />}
            </li>
          ))}
        </ul>
      )}
    </article>
  );
}

function Evaluation({ run }: { run: Run }) {
  const out = run.output;
  if (!out) return null;
  // A workflow with its own output schema returns its own shape: show it as JSON.
  if (typeof out.score !== "number" || !Array.isArray(out.criteria)) {
    return (
      <section aria-labelledby="run-output">
        <h2 id="run-output">Output</h2>
        <pre>{JSON.stringify(out, null, 2)}</pre>
      </section>
    );
  }
  return (
    <section aria-labelledby="run-eval">
      <h2 id="run-eval">Evaluation</h2>
      <p class="verdict">
        Score <strong data-testid="score">{out.score}</strong> / 100 · verdict <Status value={String(out.verdict)} />
      </p>
      <p>{out.summary}</p>
      {out.criteria.map((c) => (
        <CriterionView key={c.id} c={c} />
      ))}
    </section>
  );
}

export function RunPage({ runId }: { runId: string }) {
  const run = usePoll(
    () => api.run(runId),
    1000,
    (r) => r.status === "queued" || r.status === "running",
    [runId],
  );
  const [error, setError] = useState<unknown>(null);
  const r = run.value;
  const download = async () => {
    setError(null);
    try {
      const file = await api.runOutput(runId);
      // A same-origin navigation to the signed URL: the server answers with the file as an attachment.
      const url = new URL(file.url);
      location.assign(url.pathname + url.search);
    } catch (err) {
      setError(err);
    }
  };
  const cancel = async () => {
    setError(null);
    try {
      await api.cancelRun(runId);
      run.reload();
    } catch (err) {
      setError(err);
    }
  };
  return (
    <>
      <p>
        <Link href="/console/runs">← Runs</Link>
      </p>
      <H1>Run {runId}</H1>
      <ErrorBox error={error || run.error} />
      {r && (
        <>
          <dl class="facts">
            <dt>Status</dt>
            <dd data-testid="run-status">
              <Status value={r.status} />
              {!r.livemode && <span class="tag">test</span>}
            </dd>
            <dt>Workflow</dt>
            <dd>{r.workflow_id}</dd>
            <dt>Created</dt>
            <dd>{when(r.created_at)}</dd>
            <dt>Waited</dt>
            <dd>{seconds(r.created_at, r.started_at)}</dd>
            <dt>Ran</dt>
            <dd>{seconds(r.started_at, r.finished_at)}</dd>
            <dt>Credits</dt>
            <dd>
              {credits(r.charged_credits)} charged · {credits(r.quoted_credits)} quoted
            </dd>
            <dt>Model</dt>
            <dd>{r.usage.model ?? "—"}</dd>
            <dt>Inputs</dt>
            <dd>{r.input_documents.join(", ")}</dd>
          </dl>
          {r.error && (
            <p class="error" role="alert">
              {r.error.message ?? "The run failed"} {r.error.code ? `[${r.error.code}]` : ""}
            </p>
          )}
          <div class="actions">
            {r.status === "queued" && (
              <button type="button" class="danger" onClick={cancel}>
                Cancel run
              </button>
            )}
            {r.output_file && (
              <button type="button" onClick={download}>
                Download output ({r.output_format})
              </button>
            )}
          </div>
          <Evaluation run={r} />
        </>
      )}
    </>
  );
}
