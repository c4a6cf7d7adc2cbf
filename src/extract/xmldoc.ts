// Standalone XML documents: text content of elements (namespaced or not), a section per child of the root element.

import { buildDocument, unprocessable } from "./document.ts";
import { decodeText } from "./text.ts";
import type { ExtractedDocument, Section } from "./types.ts";
import { attrOf, childrenOf, localName, parseXml, tagOf, textLines, type XmlNode } from "./xml.ts";

export function extractXml(bytes: Uint8Array): ExtractedDocument {
  const nodes = parseXml(decodeText(bytes, "XML"), { validate: true });
  const root = nodes.find((n) => {
    const tag = tagOf(n);
    return tag !== null && tag !== "#cdata";
  });
  if (!root) throw unprocessable("invalid XML: no root element");
  const rootTag = tagOf(root) as string;
  const sections: Section[] = [];
  let loose: typeof nodes = [];
  const flushLoose = () => {
    if (loose.length > 0) sections.push({ location: { section: rootTag }, text: textLines(loose).join("\n") });
    loose = [];
  };
  for (const child of childrenOf(root)) {
    const tag = tagOf(child);
    // Text and leaf elements (record fields such as dc:title) are grouped, rather than a section each.
    if (!tag || tag === "#cdata" || !childrenOf(child).some((k) => tagOf(k) && tagOf(k) !== "#cdata")) {
      loose.push(child);
      continue;
    }
    flushLoose();
    sections.push({ location: { section: `${rootTag}/${tag}${nameOf(child)}` }, text: textLines([child]).join("\n") });
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
