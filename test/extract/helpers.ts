// Test helpers: the test corpus (test/fixtures/corpus) and its manifest, whitespace-collapsed matching, and small synthetic documents.
import path from "node:path";
import { Zip, type ZipInputFile } from "fflate";

import { CORPUS } from "../helpers";

export { CORPUS };

export interface ManifestEntry {
  file: string;
  format: string;
  expected_phrases?: string[];
  expect?: "error";
  notes?: string;
}

export const manifest: ManifestEntry[] = await Bun.file(path.join(CORPUS, "manifest.json")).json();

export async function corpusBytes(file: string): Promise<Uint8Array> {
  return new Uint8Array(await Bun.file(path.join(CORPUS, file)).arrayBuffer());
}

/** The corpus rule: compare with every whitespace run collapsed to one space, case-sensitive. */
export const collapse = (s: string) => s.replace(/\s+/g, " ");

/**
 * A minimal valid PDF: one page per content stream, Helvetica as /F1. Offsets in the xref table are exact, so
 * pdf.js reads it without reconstruction.
 */
export function makePdf(pageContents: string[]): Uint8Array {
  const objects: string[] = [];
  const pageCount = pageContents.length;
  const firstPage = 4;
  const kids = pageContents.map((_, i) => `${firstPage + i * 2} 0 R`).join(" ");
  objects.push("<< /Type /Catalog /Pages 2 0 R >>");
  objects.push(`<< /Type /Pages /Kids [${kids}] /Count ${pageCount} >>`);
  objects.push("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>");
  pageContents.forEach((content, i) => {
    objects.push(
      `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents ${firstPage + i * 2 + 1} 0 R >>`,
    );
    objects.push(`<< /Length ${Buffer.byteLength(content, "latin1")} >>\nstream\n${content}\nendstream`);
  });
  let out = "%PDF-1.4\n";
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(Buffer.byteLength(out, "latin1"));
    out += `${i + 1} 0 obj\n${body}\nendobj\n`;
  });
  const xref = Buffer.byteLength(out, "latin1");
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const o of offsets) out += `${String(o).padStart(10, "0")} 00000 n \n`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return new Uint8Array(Buffer.from(out, "latin1"));
}

export const textPage = (text: string) => `BT /F1 12 Tf 72 720 Td (${text}) Tj ET`;
/** A page that only paints a 1x1 grey inline image: what a scanned page looks like to a text extractor. */
export const imagePage = () => "q 100 0 0 100 72 600 cm BI /W 1 /H 1 /CS /G /BPC 8 ID \x80 EI Q";

/**
 * A ZIP whose entries are given already deflated (raw DEFLATE from Bun.deflateSync) with the sizes we choose to
 * declare: lets a test build a zip bomb of any size in milliseconds.
 */
export function zipWithDeflated(entries: Array<{ name: string; deflated: Uint8Array<ArrayBuffer>; size: number }>): Uint8Array {
  const chunks: Uint8Array[] = [];
  const zip = new Zip((err, chunk) => {
    if (err) throw err;
    chunks.push(chunk);
  });
  for (const e of entries) {
    const file: ZipInputFile = { filename: e.name, size: e.size, crc: 0, compression: 8 };
    zip.add(file);
    file.ondata?.(null, e.deflated, true);
  }
  zip.end();
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}
