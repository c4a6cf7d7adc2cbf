// JSON: parsed (which decodes \uXXXX escapes) and flattened to readable "path: value" lines, a section per top-level entry.

import { buildDocument, unprocessable } from "./document.ts";
import { decodeText } from "./text.ts";
import type { ExtractedDocument, Section } from "./types.ts";

export function extractJson(bytes: Uint8Array): ExtractedDocument {
  const text = decodeText(bytes, "JSON");
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw unprocessable(`invalid JSON (${err instanceof Error ? err.message : "parse error"})`);
  }
  const sections: Section[] = [];
  if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) sections.push(section(`[${i}]`, item));
  } else if (isObject(value)) {
    for (const key of Object.keys(value)) sections.push(section(key, value[key]));
  } else {
    sections.push({ location: {}, text: scalar(value) });
  }
  return buildDocument("json", sections, null);
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function scalar(v: unknown): string {
  return typeof v === "string" ? v : JSON.stringify(v);
}

function section(path: string, value: unknown): Section {
  return { location: { section: path }, text: flatten(path, value).join("\n") };
}

/** Depth-first "path: value" lines; an explicit stack, so deeply nested input cannot overflow the call stack. */
export function flatten(rootPath: string, root: unknown): string[] {
  const lines: string[] = [];
  const stack: Array<[string, unknown]> = [[rootPath, root]];
  while (stack.length > 0) {
    const [path, v] = stack.pop() as [string, unknown];
    if (Array.isArray(v)) {
      if (v.length === 0) lines.push(`${path}: []`);
      for (let i = v.length - 1; i >= 0; i--) stack.push([`${path}[${i}]`, v[i]]);
    } else if (isObject(v)) {
      const keys = Object.keys(v);
      if (keys.length === 0) lines.push(`${path}: {}`);
      for (let i = keys.length - 1; i >= 0; i--) stack.push([path ? `${path}.${keys[i]}` : keys[i], v[keys[i]]]);
    } else {
      lines.push(`${path}: ${scalar(v)}`);
    }
  }
  return lines;
}
