// PPTX: slide text (shapes, groups, tables, SmartArt) in presentation order, plus speaker notes and comments per slide.

import { buildDocument, unprocessable } from "./document.ts";
import type { ExtractedDocument, Section } from "./types.ts";
import { attrOf, childrenOf, findAll, localName, parseXml, tagOf, textLines, type XmlNode } from "./xml.ts";
import { byTrailingNumber, isType, mainPart, type Parts, partText, readPackage, readRels } from "./zip.ts";

/** The r:id-style attribute of an element, whatever prefix the relationships namespace got. */
function relId(node: XmlNode): string | undefined {
  const attrs = node[":@"] as Record<string, unknown> | undefined;
  for (const key in attrs ?? {}) {
    if (key.includes(":") && localName(key) === "id") return attrOf(node, key.slice(2));
  }
  return undefined;
}

function slideOrder(parts: Parts, presPath: string): string[] {
  const rels = readRels(parts, presPath);
  const ordered: string[] = [];
  for (const sldId of findAll(parseXml(partText(parts, presPath) ?? ""), "sldId")) {
    const rel = rels.get(relId(sldId) ?? "");
    if (rel && !rel.external && parts[rel.target]) ordered.push(rel.target);
  }
  if (ordered.length > 0) return ordered;
  // No usable slide list: take the slide parts in numeric order rather than lose the text.
  return Object.keys(parts)
    .filter((n) => /^ppt\/slides\/slide\d+\.xml$/.test(n))
    .sort(byTrailingNumber);
}

function placeholderType(shape: XmlNode): string | undefined {
  const ph = findAll(childrenOf(shape), "ph")[0];
  return ph ? (attrOf(ph, "type") ?? "body") : undefined;
}

/** Top-level shapes of a slide's shape tree (groups are walked as a whole by textLines). */
function shapes(nodes: XmlNode[]): XmlNode[] {
  const tree = findAll(nodes, "spTree")[0];
  return tree ? childrenOf(tree).filter((n) => tagOf(n) !== null) : [];
}

function slideTitle(tree: XmlNode[]): string | undefined {
  for (const shape of tree) {
    const type = localName(tagOf(shape) ?? "") === "sp" ? placeholderType(shape) : undefined;
    if (type === "title" || type === "ctrTitle") {
      const title = textLines([shape]).join(" ").replace(/\s+/g, " ").trim();
      if (title) return title;
    }
  }
  return undefined;
}

// Slide numbers and dates are generated, not written; footers are kept because authors type them.
const SLIDE_CHROME = new Set(["sldNum", "dt"]);
// Notes pages repeat the slide image, number, date, header and footer as placeholders; only the notes body matters.
const NOTES_CHROME = new Set(["sldImg", "sldNum", "dt", "hdr", "ftr"]);

export function extractPptx(bytes: Uint8Array): ExtractedDocument {
  const parts = readPackage(bytes, "pptx", (n) => n.endsWith(".xml") || n.endsWith(".rels"));
  const presPath = mainPart(parts, "ppt/presentation.xml");
  if (!parts[presPath]) throw unprocessable("the file is not a valid PPTX file (no presentation part)");
  const slides = slideOrder(parts, presPath);
  const sections: Section[] = [];
  slides.forEach((slidePath, i) => {
    const slide = i + 1;
    const tree = shapes(parseXml(partText(parts, slidePath) ?? "")).filter((s) => !SLIDE_CHROME.has(placeholderType(s) ?? ""));
    const lines = textLines(tree);
    const rels = [...readRels(parts, slidePath).values()].filter((r) => !r.external && parts[r.target]);
    for (const rel of rels.filter((r) => isType(r.type, "diagramData"))) {
      lines.push(...textLines(parseXml(partText(parts, rel.target) ?? "")));
    }
    const heading = slideTitle(tree);
    sections.push({ location: heading ? { slide, heading } : { slide }, text: lines.join("\n") });

    for (const rel of rels.filter((r) => isType(r.type, "notesSlide"))) {
      const notesTree = shapes(parseXml(partText(parts, rel.target) ?? "")).filter((s) => !NOTES_CHROME.has(placeholderType(s) ?? ""));
      sections.push({ location: { slide, section: "notes" }, text: textLines(notesTree).join("\n") });
    }
    for (const rel of rels.filter((r) => isType(r.type, "comments") || isType(r.type, "comment"))) {
      sections.push({ location: { slide, section: "comments" }, text: textLines(parseXml(partText(parts, rel.target) ?? "")).join("\n") });
    }
  });
  return buildDocument("pptx", sections, slides.length);
}
