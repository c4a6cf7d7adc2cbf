// Safe XML parsing (no entity expansion, no DTDs) and a text walker that understands OOXML paragraphs, runs and tables.
import { XMLParser, XMLValidator } from "fast-xml-parser";
import { rowLine, unprocessable } from "./document.ts";

/** A node of fast-xml-parser's preserveOrder output: `{ tag: children, ":@": attrs }` or `{ "#text": s }`. */
export type XmlNode = Record<string, unknown>;

const DANGEROUS_NAMES = new Set(["__proto__", "constructor", "prototype"]);

const parser = new XMLParser({
  preserveOrder: true,
  ignoreAttributes: false,
  attributeNamePrefix: "@_",
  // Entities are left as written and decoded by decodeEntities below: only the five predefined ones and
  // character references, so a "billion laughs" DTD can never expand.
  processEntities: false,
  htmlEntities: false,
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: false,
  ignoreDeclaration: true,
  ignorePiTags: true,
  cdataPropName: "#cdata",
  maxNestedTags: 1024,
  // The parser refuses these names outright; renaming them keeps odd but harmless documents readable.
  transformTagName: (name: string) => (DANGEROUS_NAMES.has(name) ? `_${name}` : name),
  transformAttributeName: (name: string) => (DANGEROUS_NAMES.has(name) ? `_${name}` : name),
});

/**
 * Blanks out the DOCTYPE declaration (with its internal subset) before parsing: we never need it, and without it
 * no entity or external reference can be declared. Newlines are kept so error line numbers stay right.
 */
function stripDoctype(xml: string): string {
  const start = xml.search(/<!DOCTYPE/i);
  if (start < 0) return xml;
  const firstElement = xml.search(/<[A-Za-z_]/);
  if (firstElement >= 0 && firstElement < start) return xml; // only the prolog may hold a DOCTYPE
  let i = start + 9;
  let depth = 0;
  let quote = "";
  for (; i < xml.length; i++) {
    const ch = xml[i];
    if (quote) {
      if (ch === quote) quote = "";
    } else if (ch === '"' || ch === "'") quote = ch;
    else if (ch === "[") depth++;
    else if (ch === "]") depth--;
    else if (ch === ">" && depth <= 0) break;
  }
  const removed = xml.slice(start, i + 1).replace(/[^\n]/g, "");
  return xml.slice(0, start) + removed + xml.slice(i + 1);
}

export function parseXml(xml: string, opts: { validate?: boolean; what?: string } = {}): XmlNode[] {
  const clean = stripDoctype(xml);
  if (opts.validate) {
    const verdict = XMLValidator.validate(clean);
    if (verdict !== true) {
      throw unprocessable(`invalid ${opts.what ?? "XML"}: ${verdict.err.msg} (line ${verdict.err.line})`);
    }
  }
  try {
    return parser.parse(clean) as XmlNode[];
  } catch (err) {
    throw unprocessable(`invalid ${opts.what ?? "XML"}: ${err instanceof Error ? err.message.split("\n")[0] : "parse error"}`);
  }
}

const PREDEFINED: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" };

export function decodeEntities(s: string): string {
  if (!s.includes("&")) return s;
  return s.replace(/&(?:#(\d{1,7})|#x([0-9a-fA-F]{1,6})|(amp|lt|gt|quot|apos));/g, (whole, dec, hex, name) => {
    if (name) return PREDEFINED[name];
    const cp = dec ? Number.parseInt(dec, 10) : Number.parseInt(hex, 16);
    return cp > 0 && cp <= 0x10ffff ? String.fromCodePoint(cp) : whole;
  });
}

export function tagOf(node: XmlNode): string | null {
  for (const k in node) if (k !== ":@" && k !== "#text") return k;
  return null;
}

export function localName(tag: string): string {
  const i = tag.indexOf(":");
  return i < 0 ? tag : tag.slice(i + 1);
}

export function childrenOf(node: XmlNode): XmlNode[] {
  const tag = tagOf(node);
  const kids = tag ? node[tag] : undefined;
  return Array.isArray(kids) ? (kids as XmlNode[]) : [];
}

export function attrOf(node: XmlNode, name: string): string | undefined {
  const attrs = node[":@"] as Record<string, unknown> | undefined;
  const v = attrs?.[`@_${name}`];
  return typeof v === "string" ? decodeEntities(v) : undefined;
}

/** Depth-first search for elements with the given local name (not descending into matches). */
export function findAll(nodes: XmlNode[], local: string, out: XmlNode[] = []): XmlNode[] {
  for (const n of nodes) {
    const tag = tagOf(n);
    if (!tag) continue;
    if (localName(tag) === local) out.push(n);
    else findAll(childrenOf(n), local, out);
  }
  return out;
}

// Elements whose content is never document text: the fallback copy of mc:AlternateContent (duplicates the
// Choice), field instructions and data, deleted revisions, embedded binaries, property blocks (w:tabs lives in
// pPr) and drawing positions (wp:posOffset numbers inside a paragraph that anchors a text box).
const SKIP = new Set([
  "Fallback",
  "instrText",
  "delInstrText",
  "delText",
  "fldData",
  "binaryData",
  "pPr",
  "rPr",
  "positionH",
  "positionV",
  "sizeRelH",
  "sizeRelV",
]);

/** Long unbroken base64 runs (embedded images in Flat OPC and similar) are data, not text. */
function isBlob(text: string): boolean {
  if (text.length < 256) return false;
  const compact = text.replace(/\s+/g, "");
  return compact.length >= 256 && /^[A-Za-z0-9+/]+=*$/.test(compact) && !/ /.test(text.trim());
}

interface Collector {
  lines: string[];
  /** The paragraph being assembled, or null outside any paragraph. */
  cur: string | null;
}

function pushLine(c: Collector, line: string) {
  if (line.trim().length > 0) c.lines.push(line.replace(/[ \t]+$/g, "").replace(/^[ \t]+/, ""));
}

function addText(c: Collector, text: string, verbatim: boolean) {
  if (!verbatim && text.trim().length === 0) {
    // Indentation between elements is layout; a plain space between inline elements is a word break.
    if (c.cur !== null && !text.includes("\n") && text.length > 0) c.cur += " ";
    return;
  }
  if (isBlob(text)) return;
  if (c.cur !== null) c.cur += verbatim ? text : text.replace(/\s+/g, " ");
  else pushLine(c, text.trim());
}

function walk(nodes: XmlNode[], c: Collector, inT: boolean) {
  for (const node of nodes) {
    if ("#text" in node) {
      addText(c, decodeEntities(String(node["#text"])), inT);
      continue;
    }
    const tag = tagOf(node);
    if (!tag) continue;
    if (tag === "#cdata") {
      for (const k of childrenOf(node)) if ("#text" in k) addText(c, String(k["#text"]), inT);
      continue;
    }
    const local = localName(tag);
    if (SKIP.has(local)) continue;
    const kids = childrenOf(node);
    switch (local) {
      case "p":
        paragraph(kids, c);
        break;
      case "tbl":
        if (c.cur !== null) {
          pushLine(c, c.cur);
          c.cur = "";
        }
        for (const row of findAll(kids, "tr")) c.lines.push(...tableRow(row));
        break;
      case "tab":
        if (c.cur !== null) c.cur += "\t";
        break;
      case "br":
      case "cr":
        if (c.cur !== null) c.cur += "\n";
        break;
      case "noBreakHyphen":
        if (c.cur !== null) c.cur += "-";
        break;
      default:
        // Words beside markup ("The <em>moon</em> pulls") are one line, as a paragraph is (XHTML, DocBook, TEI).
        if (c.cur === null && isMixed(kids)) paragraph(kids, c);
        else walk(kids, c, local === "t");
    }
  }
}

function paragraph(kids: XmlNode[], c: Collector) {
  // A paragraph may contain another (text box inside a run): finish the outer text so far first.
  const outer = c.cur;
  if (outer !== null) pushLine(c, outer);
  c.cur = "";
  walk(kids, c, false);
  pushLine(c, c.cur);
  c.cur = outer === null ? null : "";
}

/** Whether some of an element's children are words and some are elements: a document's markup, not data. */
export function isMixed(kids: XmlNode[]): boolean {
  let words = false;
  let elements = false;
  for (const k of kids) {
    if ("#text" in k) words ||= String(k["#text"]).trim() !== "";
    else if (tagOf(k) === "#cdata") words = true;
    else if (tagOf(k)) elements = true;
  }
  return words && elements;
}

/** One table row as a " | "-separated line; a cell's own paragraphs (or nested tables) are joined with spaces. */
function tableRow(row: XmlNode): string[] {
  const cells = findAll(childrenOf(row), "tc").map((cell) => {
    const sub: Collector = { lines: [], cur: null };
    walk(childrenOf(cell), sub, false);
    return sub.lines.join(" ").replace(/\s+/g, " ").trim();
  });
  const line = rowLine(cells);
  return line ? [line] : [];
}

/** Text lines of parsed XML: one per paragraph or table row, or per text node outside paragraphs. */
export function textLines(nodes: XmlNode[]): string[] {
  const c: Collector = { lines: [], cur: null };
  walk(nodes, c, false);
  return c.lines;
}

/** All descendant text concatenated as written (spreadsheet strings, rich-text runs), skipping non-text elements. */
export function concatText(nodes: XmlNode[]): string {
  let out = "";
  for (const node of nodes) {
    if ("#text" in node) {
      out += decodeEntities(String(node["#text"]));
      continue;
    }
    const tag = tagOf(node);
    if (tag === "#cdata") {
      for (const k of childrenOf(node)) if ("#text" in k) out += String(k["#text"]);
    } else if (tag && !SKIP.has(localName(tag))) out += concatText(childrenOf(node));
  }
  return out;
}
