// PDF: per-page text with unpdf (pdf.js); one section per page. Password-protected and image-only PDFs are rejected.

import { hasPdfHeader } from "./detect.ts";
import { buildDocument, describeError, unprocessable } from "./document.ts";
import type { ExtractedDocument, Section } from "./types.ts";

interface TextItemLike {
  str?: string;
  hasEOL?: boolean;
}

/** Pages read at most: a 5,000-page bundle is a real document; 100,000 empty pages are an attack on memory. */
export const MAX_PDF_PAGES = 5_000;

/**
 * Page objects written out in the file (`/Type /Page`, not `/Pages`), counted on the raw bytes before pdf.js parses
 * anything: pdf.js spends hundreds of MB just opening a file of 100,000 pages. Pages inside compressed object
 * streams are not seen here; pdf.js's own count below still holds the limit for those.
 */
function plainPageObjects(bytes: Uint8Array): number {
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("latin1");
  return text.match(/\/Type\s*\/Page(?![a-zA-Z])/g)?.length ?? 0;
}

export async function extractPdf(bytes: Uint8Array): Promise<ExtractedDocument> {
  if (!hasPdfHeader(bytes)) throw unprocessable("the file is not a valid PDF (no PDF header)");
  const written = plainPageObjects(bytes);
  if (written > MAX_PDF_PAGES) {
    throw unprocessable(`the PDF has ${written} pages; at most ${MAX_PDF_PAGES} are read (split it into smaller files)`);
  }
  const { getDocumentProxy } = await import("unpdf");
  let pdf: Awaited<ReturnType<typeof getDocumentProxy>>;
  try {
    // pdf.js may take ownership of the buffer it is given, so it gets a copy. An empty user password is tried
    // automatically, which is what opens "encrypted but openable" files.
    pdf = await getDocumentProxy(bytes.slice(), {
      verbosity: 0,
      isEvalSupported: false, // no code generation from font data
      disableFontFace: true,
      useSystemFonts: false,
      stopAtErrors: false,
    });
  } catch (err) {
    const name = err instanceof Error ? err.name : "";
    if (name === "PasswordException") throw unprocessable("the PDF is password-protected");
    if (name === "InvalidPDFException") throw unprocessable("the PDF file is corrupt or truncated");
    throw unprocessable(`the PDF file could not be read (${describeError(err)})`);
  }
  try {
    // Refused before a single page is read: pdf.js would otherwise hold every page's objects while it goes.
    if (pdf.numPages > MAX_PDF_PAGES) {
      throw unprocessable(`the PDF has ${pdf.numPages} pages; at most ${MAX_PDF_PAGES} are read (split it into smaller files)`);
    }
    const sections: Section[] = [];
    let failed = 0;
    for (let n = 1; n <= pdf.numPages; n++) {
      try {
        const page = await pdf.getPage(n);
        const content = await page.getTextContent();
        let text = "";
        for (const item of content.items as TextItemLike[]) {
          if (typeof item.str !== "string") continue; // marked-content markers carry no text
          text += item.str + (item.hasEOL ? "\n" : "");
        }
        page.cleanup();
        sections.push({ location: { page: n }, text });
      } catch {
        // One damaged page object should not cost the reader the rest of the document.
        failed++;
      }
    }
    if (pdf.numPages > 0 && failed === pdf.numPages) throw unprocessable("the PDF file is corrupt: no page could be read");
    return buildDocument("pdf", sections, pdf.numPages);
  } finally {
    await pdf.destroy().catch(() => {});
  }
}
