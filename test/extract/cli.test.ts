// `assay extract FILE [--json]`: run as a real process, through the CLI entry as the binary runs it.
import { describe, expect, test } from "bun:test";
import path from "node:path";
import { CORPUS } from "./helpers.ts";

const MAIN = path.resolve(import.meta.dir, "../../src/main.ts");

async function run(args: string[]) {
  const proc = Bun.spawn([process.execPath, MAIN, "extract", ...args], { stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { stdout, stderr, code };
}

describe("extractCli", () => {
  test("prints the text of a document", async () => {
    const { stdout, stderr, code } = await run([path.join(CORPUS, "pptx/tika-testPPT.pptx")]);
    expect({ code, stderr }).toEqual({ code: 0, stderr: "" });
    expect(stdout).toContain("Attachment Test");
  });

  test("--json prints format, mime_type, page_count and sections", async () => {
    const { stdout, code } = await run([path.join(CORPUS, "xls/tika-testEXCEL.xls"), "--json"]);
    expect(code).toBe(0);
    const out = JSON.parse(stdout);
    expect(Object.keys(out)).toEqual(["format", "mime_type", "page_count", "sections"]);
    expect(out).toMatchObject({ format: "xls", mime_type: "application/vnd.ms-excel", page_count: 3 });
    expect(out.sections[0].location).toEqual({ sheet: "Feuil1" });
  });

  test("an unreadable document exits 1 with one line on stderr", async () => {
    const { stdout, stderr, code } = await run([path.join(CORPUS, "bad/tika-testWORD-protected-passtika.docx")]);
    expect(code).toBe(1);
    expect(stdout).toBe("");
    expect(stderr).toBe("extract: unprocessable_document: the document is password-protected (encrypted)\n");
  });

  test("a missing file or missing argument is reported, not thrown", async () => {
    expect((await run(["/nonexistent/file.pdf"])).code).toBe(1);
    const usage = await run([]);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain("usage: assay extract FILE [--json]");
  });
});
