// Format detection: magic bytes beat extensions and MIME types; unsupported types are 415, mislabelled files 422.
import { describe, expect, test } from "bun:test";
import { detectFormat } from "../../src/extract/detect.ts";
import { ExtractError, extract, mimeTypeFor } from "../../src/extract/index.ts";
import { corpusBytes, makePdf, textPage } from "./helpers.ts";

const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]);
const utf8 = (s: string) => new TextEncoder().encode(s);

function detectError(bytes: Uint8Array, hints: { filename?: string; mimeType?: string }): ExtractError {
  try {
    detectFormat(bytes, hints);
  } catch (err) {
    if (err instanceof ExtractError) return err;
    throw err;
  }
  throw new Error("expected detectFormat to throw");
}

describe("detectFormat", () => {
  test("magic bytes win over a contradicting extension and MIME type", async () => {
    expect(detectFormat(await corpusBytes("pdf/tika-testPDF.pdf"), { filename: "report.docx", mimeType: "text/plain" })).toEqual({
      format: "pdf",
      mime_type: "application/pdf",
    });
    expect(detectFormat(await corpusBytes("docx/tika-testWORD.docx"), { filename: "report.pdf" }).format).toBe("docx");
    expect(detectFormat(await corpusBytes("xlsx/tika-testEXCEL.xlsx"), { filename: "book.docx" }).format).toBe("xlsx");
    expect(detectFormat(await corpusBytes("pptx/tika-testPPT.pptx"), { mimeType: "application/pdf" }).format).toBe("pptx");
    expect(detectFormat(await corpusBytes("xls/tika-testEXCEL.xls"), { filename: "book.xlsx" }).format).toBe("xls");
  });

  test("OOXML and legacy Excel are recognized without any hint", async () => {
    expect(detectFormat(await corpusBytes("docx/tika-testWORD.docx"), {}).format).toBe("docx");
    expect(detectFormat(await corpusBytes("xlsx/tika-testEXCEL-strict.xlsx"), {}).format).toBe("xlsx");
    expect(detectFormat(await corpusBytes("pptx/tika-testPPT.pptx"), {}).format).toBe("pptx");
    expect(detectFormat(await corpusBytes("xls/tika-testEXCEL-WORKBOOK-in-capitals.xls"), {}).format).toBe("xls");
    expect(detectFormat(await corpusBytes("xls/tika-testEXCEL-4.xls"), {}).format).toBe("xls"); // bare BIFF4 stream
  });

  test("a PNG is unsupported whatever it is called", () => {
    for (const hints of [{ filename: "photo.png" }, { filename: "notes.txt" }, { mimeType: "application/pdf" }, {}]) {
      expect(detectError(PNG, hints).code).toBe("unsupported_media_type");
    }
  });

  test("a legacy .doc is unsupported, but the same bytes named .docx are a broken DOCX", async () => {
    const doc = await corpusBytes("bad/not-a-zip-tika-testWORD-various-doc.docx");
    expect(detectError(doc, { filename: "letter.doc" }).code).toBe("unsupported_media_type");
    expect(detectError(doc, { mimeType: "application/msword" }).code).toBe("unsupported_media_type");
    const err = await extract(doc, { filename: "letter.docx" }).catch((e) => e);
    expect(err.code).toBe("unprocessable_document");
    expect(err.message).toContain("legacy binary Office");
  });

  test("OpenDocument files (what LibreOffice saves) are unsupported with a message that says what to save instead", async () => {
    const fixtures = new URL("../fixtures/opendocument/", import.meta.url);
    for (const [file, says] of [
      ["letter.odt", "OpenDocument text files (.odt) are not supported: save it as DOCX"],
      ["budget.ods", "OpenDocument spreadsheet files (.ods) are not supported: save it as XLSX"],
    ]) {
      const bytes = await Bun.file(new URL(file, fixtures)).bytes();
      for (const hints of [{ filename: file }, {}, { filename: "upload.bin" }]) {
        const err = detectError(bytes, hints);
        expect(err.code).toBe("unsupported_media_type");
        expect(err.message).toStartWith(says);
      }
    }
  });

  test("an encrypted Office package is unprocessable even without a hint", async () => {
    const err = detectError(await corpusBytes("bad/tika-testWORD-protected-passtika.docx"), {});
    expect(err.code).toBe("unprocessable_document");
    expect(err.message).toContain("password-protected");
  });

  test("text content is routed by extension, then MIME type (parameters ignored)", () => {
    const text = utf8("a,b\n1,2\n");
    expect(detectFormat(text, { filename: "data.CSV" }).format).toBe("csv");
    expect(detectFormat(text, { mimeType: "text/csv; charset=utf-8" }).format).toBe("csv");
    expect(detectFormat(text, { filename: "readme.markdown" }).format).toBe("md");
    expect(detectFormat(text, { mimeType: "application/ld+json" }).format).toBe("json");
    expect(detectFormat(text, { filename: "notes", mimeType: "text/plain" }).format).toBe("txt");
  });

  test("without hints, text is sniffed as JSON, XML or plain text", () => {
    expect(detectFormat(utf8('  {"a": 1}'), {}).format).toBe("json");
    expect(detectFormat(utf8('\uFEFF<?xml version="1.0"?><a/>'), {}).format).toBe("xml");
    expect(detectFormat(utf8("hello"), { mimeType: "application/octet-stream" }).format).toBe("txt");
  });

  test("text of an unsupported declared type, and unknown binaries, are unsupported", () => {
    expect(detectError(utf8("<html><body>hi</body></html>"), { filename: "page.html" }).code).toBe("unsupported_media_type");
    expect(detectError(utf8("<!DOCTYPE html><p>hi"), {}).code).toBe("unsupported_media_type");
    expect(detectError(new Uint8Array([1, 2, 0, 0, 5, 6, 7, 8]), {}).code).toBe("unsupported_media_type");
    expect(detectError(new Uint8Array(0), {}).code).toBe("unsupported_media_type");
  });

  test("text that starts like a binary signature, or quotes a PDF header, stays text", () => {
    expect(detectFormat(utf8("ID3 tags hold the song title"), { filename: "notes.txt" }).format).toBe("txt");
    expect(detectFormat(utf8("RIFF files start with a size"), {}).format).toBe("txt");
    expect(detectFormat(utf8("# PDF notes\nEvery file begins with %PDF-1.7\n"), { filename: "pdf.md" }).format).toBe("md");
  });

  test("mimeTypeFor gives the canonical type of each format", () => {
    expect(mimeTypeFor("docx")).toBe("application/vnd.openxmlformats-officedocument.wordprocessingml.document");
    expect(mimeTypeFor("xls")).toBe("application/vnd.ms-excel");
    expect(mimeTypeFor("md")).toBe("text/markdown");
  });
});

describe("mislabelled files are unprocessable, not crashes", () => {
  const cases: Array<[string, Uint8Array, string, RegExp]> = [
    ["plain text named .pdf", utf8("just some words"), "scan.pdf", /not a valid PDF/],
    ["plain text named .docx", utf8("just some words"), "letter.docx", /not a valid DOCX/],
    ["plain text named .xlsx", utf8("just some words"), "book.xlsx", /not a valid XLSX/],
    ["plain text named .xls", utf8("just some words"), "book.xls", /not a valid XLS/],
    ["plain text named .pptx", utf8("just some words"), "deck.pptx", /not a valid PPTX/],
    ["binary named .txt", new Uint8Array([0x41, 0, 0x42, 0, 0x43, 0xff]), "notes.txt", /binary data/],
    ["invalid JSON named .json", utf8('{"a": '), "data.json", /invalid JSON/],
    ["unbalanced XML named .xml", utf8("<a><b></a>"), "data.xml", /invalid XML/],
    ["an empty file named .pdf", new Uint8Array(0), "empty.pdf", /not a valid PDF/],
    ["an empty file named .txt", new Uint8Array(0), "empty.txt", /no text/],
  ];
  for (const [name, bytes, filename, reason] of cases) {
    test(name, async () => {
      const err = await extract(bytes, { filename }).catch((e) => e);
      expect(err).toBeInstanceOf(ExtractError);
      expect(err.code).toBe("unprocessable_document");
      expect(err.message).toMatch(reason);
    });
  }

  test("a PDF named .txt is still read as a PDF", async () => {
    const doc = await extract(makePdf([textPage("Renamed but readable")]), { filename: "notes.txt" });
    expect(doc.format).toBe("pdf");
    expect(doc.text).toBe("Renamed but readable");
  });

  test("text that merely starts like JSON falls back to plain text when nothing declared it", async () => {
    const doc = await extract(utf8("[draft] meeting notes"), {});
    expect(doc.format).toBe("txt");
    expect(doc.text).toBe("[draft] meeting notes");
  });
});
