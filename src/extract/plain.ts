// TXT and Markdown: decoded text; Markdown is split into one section per heading (code fences respected).

import { buildDocument } from "./document.ts";
import { decodeText, normalizeNewlines } from "./text.ts";
import type { ExtractedDocument, Section } from "./types.ts";

export function extractTxt(bytes: Uint8Array): ExtractedDocument {
  const text = normalizeNewlines(decodeText(bytes, "text"));
  return buildDocument("txt", [{ location: {}, text }], null);
}

const ATX = /^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/;
const SETEXT = /^ {0,3}(=+|-+)[ \t]*$/;
const FENCE = /^ {0,3}(`{3,}|~{3,})/;

/** Markdown stays as written (evidence quotes must match the file); headings only decide where sections start. */
export function extractMd(bytes: Uint8Array): ExtractedDocument {
  const lines = normalizeNewlines(decodeText(bytes, "Markdown")).split("\n");
  const sections: Section[] = [];
  let current: { heading?: string; lines: string[] } = { lines: [] };
  const startSection = (heading: string, first: string[]) => {
    sections.push(toSection(current));
    current = { heading, lines: first };
  };
  let fence: string | null = null;
  // Whether the previous line began a paragraph (came after a blank line, heading, fence or the start):
  // only then can an underline make it a setext heading.
  let prevStartsParagraph = false;
  let atBoundary = true;
  for (const line of lines) {
    const f = FENCE.exec(line);
    if (fence) {
      if (f && f[1][0] === fence[0] && f[1].length >= fence.length) {
        fence = null;
        atBoundary = true;
      }
      current.lines.push(line);
      prevStartsParagraph = false;
      continue;
    }
    if (f) {
      fence = f[1];
      current.lines.push(line);
      prevStartsParagraph = false;
      continue;
    }
    const atx = ATX.exec(line);
    if (atx) {
      startSection((atx[2] ?? "").trim(), [line]);
      prevStartsParagraph = false;
      atBoundary = true;
      continue;
    }
    const prev = current.lines[current.lines.length - 1];
    if (SETEXT.test(line) && prevStartsParagraph && prev !== undefined) {
      current.lines.pop();
      startSection(prev.trim(), [prev, line]);
      prevStartsParagraph = false;
      atBoundary = true;
      continue;
    }
    current.lines.push(line);
    const blank = line.trim() === "";
    prevStartsParagraph = !blank && atBoundary;
    atBoundary = blank;
  }
  sections.push(toSection(current));
  return buildDocument("md", sections, null);
}

function toSection(s: { heading?: string; lines: string[] }): Section {
  return { location: s.heading ? { heading: s.heading } : {}, text: s.lines.join("\n") };
}
