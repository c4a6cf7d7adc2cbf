// Reference documents: upload one or many (presigned flow, with progress), watch them index, delete them.
import { useState } from "preact/hooks";
import { api, type ReferenceDocument } from "../api";
import { describe, ErrorBox, FileDrop, H1, Status, usePoll, when } from "../ui";

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
  const [error, setError] = useState<unknown>(null);

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

  const remove = async (ref: ReferenceDocument) => {
    if (!confirm(`Delete the reference document "${ref.name}"? Workflows that name it keep working only if they do not need it.`)) return;
    try {
      await api.deleteReference(ref.id);
      list.reload();
    } catch (err) {
      setError(err);
    }
  };

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
        <div class="scroll">
          <table>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Status</th>
                <th scope="col">Uploaded</th>
                <th scope="col">
                  <span class="sr">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {list.value.data.map((r) => (
                <tr key={r.id} data-ref={r.name}>
                  <td>
                    {r.name}
                    <div class="hint">{r.id}</div>
                  </td>
                  <td>
                    <Status value={r.status} />
                    {r.failure_reason && <div class="error">{r.failure_reason}</div>}
                  </td>
                  <td>{when(r.created_at)}</td>
                  <td>
                    <button type="button" class="danger" onClick={() => remove(r)} aria-label={`Delete ${r.name}`}>
                      Delete
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          {list.value.data.length === 0 && <p>No reference documents yet.</p>}
        </div>
      )}
    </>
  );
}
