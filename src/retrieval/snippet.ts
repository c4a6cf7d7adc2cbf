// Short excerpts around matched terms, made by FTS5's snippet() and kept to about 200 characters.

const MAX_SNIPPET_CHARS = 240;
const ELLIPSIS = "…";

/** The SQL for a plain-text snippet (no highlight markers: it goes into prompts and JSON as is). */
export const SNIPPET_SQL = (table: string) => `snippet(${table}, 0, '', '', '${ELLIPSIS}', 32)`;

/** Collapses whitespace and bounds the length, cutting at a word boundary. */
export function tidySnippet(raw: string): string {
  const text = raw.replace(/\s+/g, " ").trim();
  if (text.length <= MAX_SNIPPET_CHARS) return text;
  const cut = text.lastIndexOf(" ", MAX_SNIPPET_CHARS);
  return `${text.slice(0, cut > MAX_SNIPPET_CHARS / 2 ? cut : MAX_SNIPPET_CHARS).trimEnd()}${ELLIPSIS}`;
}
