// Standalone XML documents, a section per child of the root element. A document (text mixed with markup, or OOXML
// saved as one file) gives its text; data (elements that hold either text or other elements, never both: an LMS's
// rubric export, a catalogue record) gives "path: value" lines as JSON does, attributes included, so that fields keep
// their names and records stay apart.

import { buildDocument, unprocessable } from "./document.ts";
import { flatten } from "./json.ts";
import { decodeText } from "./text.ts";
import type { ExtractedDocument, Section } from "./types.ts";
import { attrOf, childrenOf, decodeEntities, isMixed, localName, parseXml, tagOf, textLines, type XmlNode } from "./xml.ts";

export function extractXml(bytes: Uint8Array): ExtractedDocument {
  const nodes = parseXml(decodeText(bytes, "XML"), { validate: true });
  const root = nodes.find(isElement);
  if (!root) throw unprocessable("invalid XML: no root element");
  const rootTag = tagOf(root) as string;
  const data = !isOffice(root) && !hasMixedContent([root]);
  const sections: Section[] = [];
  let loose: typeof nodes = [];
  const flushLoose = () => {
    if (loose.length > 0) sections.push({ location: { section: rootTag }, text: (data ? dataLines(loose) : textLines(loose)).join("\n") });
    loose = [];
  };
  if (data) loose.push(...attributeNodes(root));
  // Text and leaf elements (record fields such as dc:title) are grouped, rather than a section each.
  const isRecord = (node: XmlNode) => isElement(node) && childrenOf(node).some(isElement);
  // Records that appear once are named without an index ("header.title", not "header[0].title").
  const count = new Map<string, number>();
  for (const child of childrenOf(root).filter(isRecord)) {
    const name = localName(tagOf(child) as string);
    count.set(name, (count.get(name) ?? 0) + 1);
  }
  const seen = new Map<string, number>();
  for (const child of childrenOf(root)) {
    if (!isRecord(child)) {
      loose.push(child);
      continue;
    }
    flushLoose();
    const tag = tagOf(child) as string;
    const name = localName(tag);
    const index = seen.get(name) ?? 0;
    seen.set(name, index + 1);
    const text = data ? flatten((count.get(name) ?? 0) > 1 ? `${name}[${index}]` : name, dataValue(child)) : textLines([child]);
    sections.push({ location: { section: `${rootTag}/${tag}${nameOf(child)}` }, text: text.join("\n") });
  }
  flushLoose();
  return buildDocument("xml", sections, null);
}

/** A name or id attribute, when the element has one, makes the section path point at one element: part[name]. */
function nameOf(node: XmlNode): string {
  const attrs = Object.keys((node[":@"] as Record<string, unknown>) ?? {}).map((k) => k.slice(2));
  const key = attrs.find((a) => localName(a) === "name") ?? attrs.find((a) => localName(a) === "id");
  const value = key ? attrOf(node, key) : undefined;
  return value ? `[${value.slice(0, 120)}]` : "";
}

// Word's and PowerPoint's XML saved as one file (Flat OPC, WordprocessingML 2003) are documents, read by textLines.
const OFFICE_NAMESPACE = /schemas\.openxmlformats\.org|schemas\.microsoft\.com\/office/;

function isOffice(root: XmlNode): boolean {
  const attrs = (root[":@"] as Record<string, unknown>) ?? {};
  return Object.entries(attrs).some(([k, v]) => k.startsWith("@_xmlns") && typeof v === "string" && OFFICE_NAMESPACE.test(v));
}

const textOf = (node: XmlNode): string | null => {
  if ("#text" in node) return decodeEntities(String(node["#text"]));
  if (tagOf(node) === "#cdata")
    return childrenOf(node)
      .map((k) => String(k["#text"] ?? ""))
      .join("");
  return null;
};
const isElement = (node: XmlNode) => {
  const tag = tagOf(node);
  return tag !== null && tag !== "#cdata";
};

/** Whether some element holds both words and elements ("<p>Read <b>this</b> first</p>"): a document's markup. */
function hasMixedContent(nodes: XmlNode[]): boolean {
  const stack = [...nodes];
  while (stack.length > 0) {
    const kids = childrenOf(stack.pop() as XmlNode);
    if (isMixed(kids)) return true;
    stack.push(...kids.filter(isElement));
  }
  return false;
}

/** An element's attributes, as leaf elements of the same names (namespace declarations and schema hints left out). */
function attributeNodes(node: XmlNode): XmlNode[] {
  const attrs = (node[":@"] as Record<string, unknown>) ?? {};
  return Object.keys(attrs)
    .map((k) => k.slice(2))
    .filter((k) => !k.startsWith("xmlns") && !k.startsWith("xsi:") && !k.startsWith("xml:"))
    .map((k) => ({ [k]: [{ "#text": String(attrs[`@_${k}`]) }] }));
}

/**
 * The value of a data element, as JSON would hold it: its text, or an object of its attributes and children by local
 * name (a name that repeats is an array; text beside attributes is "text"). Empty elements hold nothing.
 */
function dataValue(node: XmlNode): unknown {
  const kids = [...attributeNodes(node), ...childrenOf(node)];
  const elements = kids.filter(isElement);
  const text = tidy(kids.map((k) => textOf(k) ?? "").join(""));
  if (elements.length === 0) return text;
  // Values by name in document order; a name seen more than once is an array even when some of its elements are empty.
  const byName = new Map<string, { values: unknown[]; seen: number }>();
  for (const e of elements) {
    const name = localName(tagOf(e) as string);
    const entry = byName.get(name) ?? { values: [], seen: 0 };
    byName.set(name, entry);
    entry.seen++;
    const value = dataValue(e);
    if (value !== "" && !(typeof value === "object" && value !== null && Object.keys(value).length === 0)) entry.values.push(value);
  }
  const out: Record<string, unknown> = {};
  for (const [name, { values, seen }] of byName) {
    if (values.length > 0) out[name] = seen > 1 ? values : values[0];
  }
  if (text !== "") out[out.text === undefined ? "text" : "_text"] = text;
  return out;
}

/** Lines of text as written, without the indentation and blank lines of the XML around them. */
function tidy(text: string): string {
  return text
    .split("\n")
    .map((l) => l.replace(/\s+/g, " ").trim())
    .filter((l) => l !== "")
    .join("\n");
}

/** "path: value" lines of the root's leaf children and attributes. */
function dataLines(nodes: XmlNode[]): string[] {
  const out: string[] = [];
  for (const n of nodes) {
    if (!isElement(n)) continue;
    const value = dataValue(n);
    if (value !== "") out.push(...flatten(localName(tagOf(n) as string), value));
  }
  return out;
}
