// Decoding text files: BOM-aware UTF-8/UTF-16, falling back to windows-1252 (a superset of Latin-1's printable range).

import { looksBinary } from "./detect.ts";
import { unprocessable } from "./document.ts";

export function decodeText(bytes: Uint8Array, what: string): string {
  if (looksBinary(bytes)) throw unprocessable(`the file was declared as ${what} but contains binary data`);
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return new TextDecoder("utf-8").decode(bytes.subarray(3));
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return new TextDecoder("utf-16le").decode(bytes.subarray(2));
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return new TextDecoder("utf-16be").decode(bytes.subarray(2));
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    // Not valid UTF-8: legacy Western files are almost always Latin-1 or its windows-1252 superset.
    return new TextDecoder("windows-1252").decode(bytes);
  }
}

/** Normalizes line endings so sections and lines split the same way on every platform. */
export function normalizeNewlines(text: string): string {
  return text.replace(/\r\n?/g, "\n");
}
