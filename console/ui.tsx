// Small pieces every page shares: navigation, an error box, status badges, dates, polling, file drop.
import type { ComponentChildren } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";
import { ApiError } from "./api";

// A tiny history router: paths under /console, no library.
const listeners = new Set<() => void>();
export function navigate(href: string) {
  history.pushState(null, "", href);
  for (const fn of listeners) fn();
}
export function usePath(): string {
  const [path, setPath] = useState(location.pathname);
  useEffect(() => {
    const update = () => setPath(location.pathname);
    listeners.add(update);
    addEventListener("popstate", update);
    return () => {
      listeners.delete(update);
      removeEventListener("popstate", update);
    };
  }, []);
  return path;
}

export function Link(props: { href: string; children: ComponentChildren; class?: string; "aria-current"?: "page" }) {
  const onClick = (e: MouseEvent) => {
    if (e.ctrlKey || e.metaKey || e.shiftKey || e.button !== 0) return;
    e.preventDefault();
    navigate(props.href);
  };
  return (
    <a href={props.href} class={props.class} aria-current={props["aria-current"]} onClick={onClick}>
      {props.children}
    </a>
  );
}

export const describe = (err: unknown) => (err instanceof ApiError ? err.describe() : String((err as Error)?.message ?? err));

export function ErrorBox({ error }: { error: unknown }) {
  if (!error) return null;
  return (
    <p class="error" role="alert">
      {describe(error)}
    </p>
  );
}

export function Status({ value }: { value: string }) {
  return <span class={`badge badge-${value}`}>{value.replace("_", " ")}</span>;
}

/** A place in a document in words: "page 3", "sheet “Scores”", "slide 2, section “notes”", "heading “Method”". */
export const where = (loc: Record<string, string | number>) =>
  Object.entries(loc)
    .map(([k, v]) => (typeof v === "number" ? `${k} ${v}` : `${k} “${v}”`))
    .join(", ");

export const when = (iso: string | null | undefined) => (iso ? new Date(iso).toLocaleString() : "—");
export const credits = (n: number | null | undefined) => (n == null ? "—" : n.toLocaleString(undefined, { maximumFractionDigits: 2 }));

/** Loads on mount and again every `everyMs` while `keepPolling(value)` says so. */
export function usePoll<T>(load: () => Promise<T>, everyMs: number, keepPolling: (value: T) => boolean, deps: unknown[] = []) {
  const [value, setValue] = useState<T | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [tick, setTick] = useState(0);
  const loadRef = useRef(load);
  loadRef.current = load;
  useEffect(() => {
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const run = async () => {
      try {
        const v = await loadRef.current();
        if (stopped) return;
        setValue(v);
        setError(null);
        if (keepPolling(v)) timer = setTimeout(run, everyMs);
      } catch (err) {
        if (stopped) return;
        setError(err);
        // A polled view keeps trying (slower) after a failure: a restarting server should not freeze the page.
        if (everyMs) timer = setTimeout(run, everyMs * 3);
      }
    };
    run();
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, [tick, ...deps]);
  return { value, error, reload: () => setTick((t) => t + 1) };
}

/** A file input that also takes files dropped on it; keyboard users use the input itself. */
export function FileDrop(props: {
  id: string;
  label: string;
  multiple?: boolean;
  accept?: string;
  onFiles: (files: File[]) => void;
  disabled?: boolean;
}) {
  const [over, setOver] = useState(false);
  return (
    // The drop zone only adds dragging to a labelled file input inside it, which keyboard users operate directly.
    // biome-ignore lint/a11y/noStaticElementInteractions: see above
    <div
      class={`drop${over ? " over" : ""}`}
      onDragOver={(e) => {
        e.preventDefault();
        setOver(true);
      }}
      onDragLeave={() => setOver(false)}
      onDrop={(e) => {
        e.preventDefault();
        setOver(false);
        const files = [...(e.dataTransfer?.files ?? [])];
        if (files.length && !props.disabled) props.onFiles(props.multiple ? files : files.slice(0, 1));
      }}
    >
      <label for={props.id}>{props.label}</label>
      <input
        id={props.id}
        type="file"
        multiple={props.multiple}
        accept={props.accept}
        disabled={props.disabled}
        onChange={(e) => {
          const input = e.currentTarget;
          const files = [...(input.files ?? [])];
          if (files.length) props.onFiles(files);
          input.value = "";
        }}
      />
      <span class="hint">or drop files here</span>
    </div>
  );
}

/** A secret shown once (a key's token, a webhook secret) with a copy button. */
export function Secret({ label, value, warning }: { label: string; value: string; warning?: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <div class="secret" role="status">
      <p>
        <strong>{label}</strong> {warning ?? "Copy it now: it is shown only once."}
      </p>
      <code data-secret>{value}</code>
      <button
        type="button"
        onClick={async () => {
          await navigator.clipboard?.writeText(value).catch(() => {});
          setCopied(true);
        }}
      >
        {copied ? "Copied" : "Copy"}
      </button>
    </div>
  );
}

/** A page's heading; focusable so the router can move focus to it on navigation. */
export const H1 = ({ children }: { children: ComponentChildren }) => <h1 tabIndex={-1}>{children}</h1>;

/** Cursor paging: this page's cursor and the cursors of the pages before it (Previous pops one). */
export function useCursorPages() {
  const [history, setHistory] = useState<(string | null)[]>([]);
  const [cursor, setCursor] = useState<string | null>(null);
  return {
    cursor,
    page: history.length + 1,
    /** Back to the first page (a new filter, a new newest item). */
    reset() {
      setHistory([]);
      setCursor(null);
    },
    previous() {
      setCursor(history[history.length - 1]);
      setHistory(history.slice(0, -1));
    },
    next(nextCursor: string) {
      setHistory([...history, cursor]);
      setCursor(nextCursor);
    },
  };
}

/** Previous / page n / Next under a paged list; `noun` names the buttons ("Next page", "Next users"). */
export function Pager(props: { pages: ReturnType<typeof useCursorPages>; next: string | null | undefined; noun: string; testId: string }) {
  const { pages, next, noun } = props;
  return (
    <div class="pager">
      <button type="button" disabled={pages.page === 1} onClick={pages.previous}>
        Previous {noun}
      </button>
      <span class="hint" aria-live="polite" data-testid={props.testId}>
        page {pages.page}
      </span>
      <button type="button" disabled={!next} onClick={() => next && pages.next(next)}>
        Next {noun}
      </button>
    </div>
  );
}

/** A fieldset of checkboxes choosing a subset of `options` (scopes, event types). */
export function Checkboxes(props: { legend: string; options: readonly string[]; value: string[]; onChange: (value: string[]) => void }) {
  const { value, onChange } = props;
  return (
    <fieldset>
      <legend>{props.legend}</legend>
      {props.options.map((option) => (
        <label key={option} class="check">
          <input
            type="checkbox"
            checked={value.includes(option)}
            onChange={(e) => onChange(e.currentTarget.checked ? [...value, option] : value.filter((x) => x !== option))}
          />{" "}
          {option}
        </label>
      ))}
    </fieldset>
  );
}

/**
 * Runs what a button or form does: clears the last error, shows the next one, and is busy meanwhile. Every page's
 * actions go through one, so a failed action always says why and a retried one clears the old message.
 */
export function useAction() {
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const run = async (fn: () => Promise<unknown>) => {
    setError(null);
    setBusy(true);
    try {
      await fn();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  return { error, busy, run };
}

/**
 * A list as a table: one heading per column ("" for the actions column, named for screen readers), one row per item,
 * and the `empty` line instead when there is none.
 */
export function Table<T>(props: { label?: string; columns: string[]; items: T[]; empty: string; row: (item: T) => ComponentChildren }) {
  if (props.items.length === 0) return <p>{props.empty}</p>;
  return (
    <div class="scroll">
      <table aria-label={props.label}>
        <thead>
          <tr>
            {props.columns.map((c) => (
              <th scope="col" key={c}>
                {c || <span class="sr">Actions</span>}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>{props.items.map(props.row)}</tbody>
      </table>
    </div>
  );
}
