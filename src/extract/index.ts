// Document text extraction: detect the format, run its extractor, and turn every failure into a typed ExtractError.

import type { Hints } from "./detect.ts";
import { describeError, unprocessable } from "./document.ts";
import { label, mimeTypeFor } from "./formats.ts";
import { ExtractError, type ExtractedDocument, type Format } from "./types.ts";

export type { ExtractedDocument } from "./types.ts";
export { extractInWorker } from "./worker-client.ts";
export type { Hints };
export { ExtractError, mimeTypeFor };

type Extractor = (bytes: Uint8Array) => ExtractedDocument | Promise<ExtractedDocument>;

// Format modules load on first use, and they load their libraries lazily too, so server start stays fast.
const EXTRACTORS: Record<Format, () => Promise<Extractor>> = {
  pdf: async () => (await import("./pdf.ts")).extractPdf,
  docx: async () => (await import("./docx.ts")).extractDocx,
  xlsx: async () => (await import("./xlsx.ts")).extractXlsx,
  xls: async () => (await import("./xls.ts")).extractXls,
  pptx: async () => (await import("./pptx.ts")).extractPptx,
  txt: async () => (await import("./plain.ts")).extractTxt,
  md: async () => (await import("./plain.ts")).extractMd,
  csv: async () => (await import("./csv.ts")).extractCsv,
  json: async () => (await import("./json.ts")).extractJson,
  xml: async () => (await import("./xmldoc.ts")).extractXml,
};

/**
 * Extracts text and structure in this thread. Heavy libraries load on first use. Callers on the request path
 * should use extractInWorker, which adds isolation and a time limit.
 */
export async function extract(bytes: Uint8Array, hints: Hints = {}): Promise<ExtractedDocument> {
  // Loaded here, not at start: fflate (for telling OOXML kinds apart) builds its Huffman tables when imported.
  const { detect } = await import("./detect.ts");
  const detection = detect(bytes, hints);
  try {
    const run = await EXTRACTORS[detection.format]();
    return await run(bytes);
  } catch (err) {
    // Content that merely looked like JSON is still a text file.
    if (detection.sniffed && detection.format === "json") return (await EXTRACTORS.txt())(bytes);
    if (err instanceof ExtractError) throw err;
    if (err instanceof RangeError) throw unprocessable(`the ${label(detection.format)} file is too complex to read`);
    throw unprocessable(`the ${label(detection.format)} file could not be read (${describeError(err)})`);
  }
}
