// Reading OOXML packages (ZIP) with hard caps on entries and decompressed size, so a zip bomb fails fast.
import { Unzip, UnzipInflate, unzipSync, zipSync } from "fflate";
import { isOle2, isZip, ole2StreamNames } from "./detect.ts";
import { describeError, unprocessable } from "./document.ts";
import { label } from "./formats.ts";
import type { Format } from "./types.ts";
import { ExtractError } from "./types.ts";
import { attrOf, findAll, parseXml } from "./xml.ts";

const ZIP_LIMITS = {
  /** Total decompressed bytes we are willing to inflate for one document. */
  maxTotalBytes: 200 * 1024 * 1024,
  maxEntries: 10_000,
};

export type Parts = Record<string, Uint8Array>;

/** Why an OOXML-named file is not a ZIP package: encrypted, legacy binary Office, or just not a package. */
function notAPackage(bytes: Uint8Array, format: Format): ExtractError {
  if (isOle2(bytes)) {
    if (ole2StreamNames(bytes).has("encryptedpackage")) {
      return unprocessable("the document is password-protected (encrypted)");
    }
    return unprocessable(`the file is a legacy binary Office (OLE2) document, not a valid ${label(format)} file`);
  }
  return unprocessable(`the file is not a valid ${label(format)} file (not a ZIP package)`);
}

/**
 * Inflates the package's entries (those `keep` accepts) within ZIP_LIMITS, in two passes. First the central
 * directory is listed through fflate's unzip filter (nothing inflated) and the declared sizes are checked. Then
 * the entries are inflated by fflate's streaming Unzip in small slices while the real output is counted, so an
 * entry that lies about its size is stopped as soon as it passes its declared size or the total cap.
 */
export function readPackage(bytes: Uint8Array, format: Format, keep: (name: string) => boolean = () => true, limits = ZIP_LIMITS): Parts {
  if (!isZip(bytes)) throw notAPackage(bytes, format);
  const declaredSizes = new Map<string, number>();
  try {
    let entries = 0;
    let declared = 0;
    unzipSync(bytes, {
      filter: (f) => {
        if (++entries > limits.maxEntries) {
          throw unprocessable(`the ${label(format)} package has too many entries (limit ${limits.maxEntries})`);
        }
        if (keep(f.name) && !f.name.endsWith("/") && !declaredSizes.has(f.name)) {
          declared += f.originalSize;
          if (declared > limits.maxTotalBytes) throw tooLarge(format, limits);
          declaredSizes.set(f.name, f.originalSize);
        }
        return false;
      },
    });
  } catch (err) {
    if (err instanceof ExtractError) throw err;
    throw corrupt(format, err);
  }
  return inflateCounted(bytes, format, declaredSizes, limits);
}

// Small slices bound what one push can inflate (DEFLATE expands at most ~1032x) before the counter sees it.
const SLICE = 16 * 1024;

function inflateCounted(bytes: Uint8Array, format: Format, declaredSizes: Map<string, number>, limits: typeof ZIP_LIMITS): Parts {
  // No prototype: an entry named "__proto__" or "constructor" is just a name here.
  const parts: Parts = Object.create(null);
  let total = 0;
  const unzip = new Unzip();
  unzip.register(UnzipInflate);
  unzip.onfile = (file) => {
    const limit = declaredSizes.get(file.name);
    // Only entries the central directory lists (once) are read: that is the package other readers see.
    if (limit === undefined || Object.hasOwn(parts, file.name)) return;
    const chunks: Uint8Array[] = [];
    let size = 0;
    file.ondata = (err, chunk, final) => {
      if (err) throw err instanceof ExtractError ? err : corrupt(format, err);
      size += chunk.length;
      total += chunk.length;
      if (size > limit) throw unprocessable(`the ${label(format)} file is corrupt (an entry is larger than it declares)`);
      if (total > limits.maxTotalBytes) throw tooLarge(format, limits);
      chunks.push(chunk);
      if (final) {
        parts[file.name] = concat(chunks, size);
        if (hasDoctype(file.name, parts[file.name])) {
          throw unprocessable(`the ${label(format)} file is invalid (an XML part declares a DTD, which packages must not)`);
        }
      }
    };
    file.start();
  };
  try {
    for (let at = 0; at < bytes.length; at += SLICE) {
      unzip.push(bytes.subarray(at, at + SLICE), at + SLICE >= bytes.length);
    }
  } catch (err) {
    if (err instanceof ExtractError) throw err;
    throw corrupt(format, err);
  }
  return parts;
}

/**
 * OPC (ECMA-376 Part 2) forbids DTDs in package parts. Refusing them keeps entity declarations away from
 * the libraries that parse parts with their own XML parsers (mammoth, exceljs). Only the prolog, before the
 * root element, can hold one; a prolog too long to inspect is refused as well.
 */
function hasDoctype(name: string, data: Uint8Array): boolean {
  if (!/\.(xml|rels|vml)$/i.test(name)) return false;
  const encoding = data[0] === 0xff && data[1] === 0xfe ? "utf-16le" : data[0] === 0xfe && data[1] === 0xff ? "utf-16be" : "latin1";
  const window = 64 * 1024;
  const head = new TextDecoder(encoding).decode(data.subarray(0, window * (encoding === "latin1" ? 1 : 2)));
  const root = head.search(/<[A-Za-z_]/);
  if (root < 0) return data.length > window * (encoding === "latin1" ? 1 : 2) || /<!DOCTYPE/i.test(head);
  return /<!DOCTYPE/i.test(head.slice(0, root));
}

function concat(chunks: Uint8Array[], size: number): Uint8Array {
  if (chunks.length === 1) return chunks[0];
  const out = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}

function corrupt(format: Format, err: unknown): ExtractError {
  return unprocessable(`the ${label(format)} file is corrupt or truncated (${describeError(err)})`);
}

function tooLarge(format: Format, limits: typeof ZIP_LIMITS): ExtractError {
  const mb = Math.round(limits.maxTotalBytes / (1024 * 1024));
  return unprocessable(`the ${label(format)} package decompresses to more than ${mb} MB`);
}

/**
 * Re-packs checked parts as an uncompressed ZIP for libraries that open the package themselves (mammoth, exceljs):
 * they then never see the original archive, so they cannot be fed anything our limits did not allow.
 */
export function repack(parts: Parts): Uint8Array {
  return zipSync(parts, { level: 0 });
}

export function partText(parts: Parts, name: string): string | undefined {
  const data = parts[name];
  return data ? new TextDecoder("utf-8").decode(data) : undefined;
}

export interface Relationship {
  target: string;
  type: string;
  external: boolean;
}

function resolvePartPath(fromPart: string, target: string): string {
  if (target.startsWith("/")) return target.slice(1);
  const base = fromPart.split("/").slice(0, -1);
  for (const seg of target.split("/")) {
    if (seg === "..") base.pop();
    else if (seg !== "." && seg !== "") base.push(seg);
  }
  return base.join("/");
}

function relsPathFor(part: string): string {
  const dir = part.split("/").slice(0, -1).join("/");
  const file = part.split("/").pop();
  return `${dir ? `${dir}/` : ""}_rels/${file}.rels`;
}

/** Numeric order for names like header2.xml / slide10.xml, so 10 sorts after 9. */
export function byTrailingNumber(a: string, b: string): number {
  const n = (s: string) => Number(/(\d+)\.xml$/.exec(s)?.[1] ?? 0);
  return n(a) - n(b) || a.localeCompare(b);
}

/** The relationships of a part (its _rels/*.rels file), keyed by id, with internal targets resolved. */
export function readRels(parts: Parts, part: string): Map<string, Relationship> {
  const rels = new Map<string, Relationship>();
  const xml = partText(parts, relsPathFor(part));
  if (!xml) return rels;
  for (const rel of findAll(parseXml(xml), "Relationship")) {
    const id = attrOf(rel, "Id");
    const target = attrOf(rel, "Target");
    if (!id || !target) continue;
    const external = attrOf(rel, "TargetMode") === "External";
    rels.set(id, {
      target: external ? target : resolvePartPath(part, target),
      type: attrOf(rel, "Type") ?? "",
      external,
    });
  }
  return rels;
}

/** Relationship types differ between Transitional and Strict OOXML only in their prefix. */
export function isType(type: string, suffix: string): boolean {
  return type.endsWith(`/${suffix}`);
}

/** The package's main part, from _rels/.rels (falls back to the conventional name). */
export function mainPart(parts: Parts, conventional: string): string {
  for (const rel of readRels(parts, "").values()) {
    if (isType(rel.type, "officeDocument") && !rel.external && parts[rel.target]) return rel.target;
  }
  return conventional;
}
