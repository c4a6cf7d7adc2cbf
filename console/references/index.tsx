// Reference documents: upload one or many (presigned flow, with progress), watch them index, delete them.
import { useEffect, useRef, useState } from "preact/hooks";
import { api, type ReferenceDocument } from "../api";
import { describe, ErrorBox, FileDrop, H1, Status, Table, useAction, usePoll, when, where } from "../ui";

/** A reference document's extracted text (GET /v1/reference-documents/{id}/text), part by part: page, sheet, slide. */
function ReferenceText({ doc, onClose }: { doc: ReferenceDocument; onClose: () => void }) {
  const text = usePoll(
    () => api.referenceText(doc.id),
    0,
    () => false,
    [doc.id],
  );
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    heading.current?.focus();
    heading.current?.scrollIntoView?.({ block: "nearest" });
  }, [doc.id]);
  const t = text.value;
  return (
    <section class="panel doc-text" aria-labelledby="ref-text-title" data-testid="reference-text">
      <h2 id="ref-text-title" tabIndex={-1} ref={heading}>
        Text of {doc.name}
      </h2>
      <ErrorBox error={text.error} />
      {t && (
        <p class="hint">
          {t.format.toUpperCase()}
          {t.page_count != null ? ` · ${t.page_count} ${t.page_count === 1 ? "page" : "pages"} (or sheets, slides)` : ""} · {t.sections.length}{" "}
          {t.sections.length === 1 ? "part" : "parts"}
        </p>
      )}
      {t?.sections.map((s, i) => {
        const place = where(s.location) || (t.sections.length === 1 ? "The whole document" : `Part ${i + 1}`);
        return (
          <div key={i}>
            <h3>{place.charAt(0).toUpperCase() + place.slice(1)}</h3>
            <div class="passage">{s.text}</div>
          </div>
        );
      })}
      {t && t.sections.length === 0 && <p>No text was extracted from this document.</p>}
      <button type="button" onClick={onClose}>
        Close text
      </button>
    </section>
  );
}

interface Uploading {
  name: string;
  progress: number;
  error?: string;
}

export function ReferencesPage() {
  const list = usePoll(
    () => api.references(),
    1500,
    (page) => page.data.some((r) => r.status === "processing"),
  );
  const [uploads, setUploads] = useState<Uploading[]>([]);
  const { error, run } = useAction();
  const [viewing, setViewing] = useState<ReferenceDocument | null>(null);

  const upload = async (files: File[]) => {
    const start = uploads.length;
    setUploads((u) => [...u, ...files.map((f) => ({ name: f.name, progress: 0 }))]);
    const update = (i: number, change: Partial<Uploading>) => setUploads((u) => u.map((x, j) => (j === start + i ? { ...x, ...change } : x)));
    await Promise.all(
      files.map(async (file, i) => {
        try {
          await api.uploadReference(file, file.name.replace(/\.[^.]+$/, "").slice(0, 200) || file.name, (p) => update(i, { progress: p }));
          update(i, { progress: 1 });
        } catch (err) {
          update(i, { error: describe(err) });
        }
      }),
    );
    setUploads((u) => u.filter((x) => x.error));
    list.reload();
  };

  const remove = (ref: ReferenceDocument) =>
    confirm(`Delete the reference document "${ref.name}"? Workflows that name it keep working only if they do not need it.`) &&
    run(async () => {
      await api.deleteReference(ref.id);
      list.reload();
    });

  return (
    <>
      <H1>Reference documents</H1>
      <p>Rubrics and criteria your workflows grade against. PDF, DOCX, XLSX, XLS, PPTX, TXT, MD, CSV, JSON or XML, up to 50 MB each.</p>
      <FileDrop id="ref-files" label="Upload reference documents" multiple onFiles={upload} />
      {uploads.length > 0 && (
        <ul class="uploads" aria-label="Uploads">
          {uploads.map((u) => (
            <li key={u.name}>
              {u.name} <progress max={1} value={u.progress} aria-label={`Upload of ${u.name}`} />
              {u.error && <span class="error"> {u.error}</span>}
            </li>
          ))}
        </ul>
      )}
      <ErrorBox error={error || list.error} />
      {list.value && (
        <Table
          columns={["Name", "Status", "Uploaded", ""]}
          items={list.value.data}
          empty="No reference documents yet."
          row={(r) => (
            <tr key={r.id} data-ref={r.name} data-id={r.id}>
              <td>
                {r.name}
                <div class="hint">{r.id}</div>
              </td>
              <td>
                <Status value={r.status} />
                {r.failure_reason && <div class="error">{r.failure_reason}</div>}
              </td>
              <td>{when(r.created_at)}</td>
              <td class="actions">
                {r.status === "ready" && (
                  <button
                    type="button"
                    aria-expanded={viewing?.id === r.id}
                    aria-controls={viewing?.id === r.id ? "ref-text" : undefined}
                    onClick={() => setViewing(viewing?.id === r.id ? null : r)}
                    aria-label={`View text of ${r.name}`}
                  >
                    View text
                  </button>
                )}{" "}
                <button type="button" class="danger" onClick={() => remove(r)} aria-label={`Delete ${r.name}`}>
                  Delete
                </button>
              </td>
            </tr>
          )}
        />
      )}
      {viewing && (
        <div id="ref-text">
          <ReferenceText
            doc={viewing}
            onClose={() => {
              // Focus goes back to the row's "View text" button.
              const back = document.querySelector<HTMLButtonElement>(`tr[data-id="${viewing.id}"] button[aria-expanded]`);
              setViewing(null);
              back?.focus();
            }}
          />
        </div>
      )}
    </>
  );
}
