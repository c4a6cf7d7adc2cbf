// Hostile input: zip bombs, entity expansion, image-only and encrypted PDFs all end as clean, quick errors.
import { describe, expect, test } from "bun:test";
import { zipSync } from "fflate";
import { ExtractError, extract } from "../../src/extract/index.ts";
import { readPackage } from "../../src/extract/zip.ts";
import { CORPUS, imagePage, makePdf, zipWithDeflated } from "./helpers.ts";

const utf8 = (s: string) => new TextEncoder().encode(s);
const CONTENT_TYPES = utf8(`<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>`);

async function failure(bytes: Uint8Array, filename: string): Promise<ExtractError> {
  const err = await extract(bytes, { filename }).catch((e) => e);
  expect(err).toBeInstanceOf(ExtractError);
  return err;
}

describe("zip bombs", () => {
  // 250 MB of zeros deflates to ~2.5 MB in ~0.1 s; the sizes a test declares are then up to it.
  const huge = Bun.deflateSync(new Uint8Array(250 * 1024 * 1024), { level: 1 });

  test("an entry that honestly declares 250 MB is refused before anything is inflated", async () => {
    const bomb = zipWithDeflated([
      { name: "[Content_Types].xml", deflated: Bun.deflateSync(CONTENT_TYPES), size: CONTENT_TYPES.length },
      { name: "word/document.xml", deflated: huge, size: 250 * 1024 * 1024 },
    ]);
    const started = performance.now();
    const err = await failure(bomb, "bomb.docx");
    expect(err.code).toBe("unprocessable_document");
    expect(err.message).toContain("decompresses to more than 200 MB");
    expect(performance.now() - started).toBeLessThan(1000);
  });

  test("an entry that lies about its size is stopped once it passes what it declared", async () => {
    for (const name of ["word/document.xml", "xl/workbook.xml", "ppt/presentation.xml"]) {
      const bomb = zipWithDeflated([
        { name: "[Content_Types].xml", deflated: Bun.deflateSync(CONTENT_TYPES), size: CONTENT_TYPES.length },
        { name, deflated: huge, size: 1000 },
      ]);
      const started = performance.now();
      const err = await failure(bomb, "bomb.zip");
      expect(err.code).toBe("unprocessable_document");
      expect(err.message).toContain("larger than it declares");
      expect(performance.now() - started).toBeLessThan(2000);
    }
  });

  test("actual bytes are counted against the total cap across entries", () => {
    const parts = Object.fromEntries(Array.from({ length: 5 }, (_, i) => [`xl/part${i}.xml`, new Uint8Array(1000)]));
    const zip = zipSync(parts);
    expect(() => readPackage(zip, "xlsx", () => true, { maxTotalBytes: 4500, maxEntries: 100 })).toThrow(/decompresses to more than/);
    expect(Object.keys(readPackage(zip, "xlsx", () => true, { maxTotalBytes: 5000, maxEntries: 100 }))).toHaveLength(5);
    expect(() => readPackage(zip, "xlsx", () => true, { maxTotalBytes: 1e6, maxEntries: 4 })).toThrow(/too many entries/);
  });
});

describe("XML entities", () => {
  const laughs = `<?xml version="1.0"?>
<!DOCTYPE lolz [
 <!ENTITY lol "lol">
 <!ENTITY lol1 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
 <!ENTITY lol2 "&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;">
 <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
 <!ENTITY lol4 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">
 <!ENTITY lol5 "&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;">
 <!ENTITY lol6 "&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;">
 <!ENTITY lol7 "&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;">
 <!ENTITY lol8 "&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;">
 <!ENTITY lol9 "&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;">
 <!ENTITY xxe SYSTEM "file:///etc/passwd">
]>
<lolz><title>Laughs &amp; more</title><body>&lol9; &xxe;</body></lolz>`;

  test("a billion-laughs DTD is not expanded, and external entities are not fetched", async () => {
    const doc = await extract(utf8(laughs), { filename: "lol.xml" });
    expect(doc.text).toBe("title: Laughs & more\nbody: &lol9; &xxe;");
  });

  test("a DOCX part carrying a DTD is refused before any XML parser sees it", async () => {
    const w = "http://schemas.openxmlformats.org/wordprocessingml/2006/main";
    const documentXml = laughs
      .replace("<lolz>", `<w:document xmlns:w="${w}"><w:body><w:p><w:r><w:t>`)
      .replace(/<title>.*<\/lolz>/s, "&lol9;</w:t></w:r></w:p></w:body></w:document>");
    const docx = zipSync({
      "[Content_Types].xml": CONTENT_TYPES,
      "_rels/.rels": utf8(
        `<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>`,
      ),
      "word/document.xml": utf8(documentXml),
    });
    const err = await failure(docx, "lol.docx");
    expect(err.code).toBe("unprocessable_document");
    expect(err.message).toContain("declares a DTD");
  });
});

describe("PDFs that cannot give text", () => {
  test("an image-only PDF asks for OCR, which is not available", async () => {
    const err = await failure(makePdf([imagePage(), imagePage()]), "scan.pdf");
    expect(err.code).toBe("unprocessable_document");
    expect(err.message).toBe("no extractable text (OCR is not available)");
  });

  test("a PDF with a user password is refused as password-protected", async () => {
    const err = await failure(await Bun.file(`${CORPUS}/bad/tika-testUnicodePassword.pdf`).bytes(), "x.pdf");
    expect(err.message).toBe("the PDF is password-protected");
  });

  test("random bytes after a PDF header are a corrupt PDF", async () => {
    const junk = new Uint8Array(4096).map((_, i) => (i * 7919) % 251);
    junk.set(utf8("%PDF-1.7\n"), 0);
    const err = await failure(junk, "x.pdf");
    expect(err.code).toBe("unprocessable_document");
  });
});

describe("damaged packages", () => {
  test("a DOCX truncated at any point fails cleanly", async () => {
    const full = await Bun.file(`${CORPUS}/docx/tika-testWORD.docx`).bytes();
    for (const cut of [100, 1000, Math.floor(full.length / 2), full.length - 10]) {
      const err = await failure(full.subarray(0, cut), "cut.docx");
      expect(err.code).toBe("unprocessable_document");
    }
  });

  test("a ZIP without the main part is not an empty success", async () => {
    const err = await failure(zipSync({ "[Content_Types].xml": CONTENT_TYPES, "word/styles.xml": utf8("<x/>") }), "x.docx");
    expect(err.message).toContain("no main document part");
  });
});

test("a NUL character inside text is dropped, never stored (PostgreSQL's text type refuses it)", async () => {
  const doc = await extract(utf8('{"criterion": "before\\u0000after"}'), { filename: "rubric.json" });
  expect(doc.text).toContain("beforeafter");
  expect(doc.text.includes("\u0000")).toBe(false);
});
