// Signed object URLs: what is signed cannot be changed, expiry is enforced, and a download URL is not an upload URL.
import { describe, expect, test } from "bun:test";
import { signUrl, verifySignedUrl } from "../../src/storage";

const secret = "s".repeat(48);
const now = Date.parse("2026-11-22T12:00:00Z");
const expiresAt = Math.floor(now / 1000) + 900;

function parts(url: string) {
  const u = new URL(url);
  return { key: u.pathname.replace(/^\/v1\/objects\//, ""), query: u.searchParams };
}

function check(url: string, method = "PUT", at = now) {
  const { key, query } = parts(url);
  return verifySignedUrl(secret, { method, key, query, nowMs: at });
}

describe("signUrl / verifySignedUrl", () => {
  const put = signUrl(secret, "https://assay.example.com/", {
    method: "PUT",
    key: "ws_1/documents/doc_1",
    expiresAt,
    contentType: "application/pdf",
    maxBytes: 1234,
  });

  test("the URL is {publicUrl}/v1/objects/<key>?expires=<unix>&…&sig=…", () => {
    expect(put).toStartWith("https://assay.example.com/v1/objects/ws_1/documents/doc_1?expires=");
    const q = new URL(put).searchParams;
    expect(q.get("expires")).toBe(String(expiresAt));
    expect(q.get("ct")).toBe("application/pdf");
    expect(q.get("max")).toBe("1234");
    expect(q.get("sig")).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  test("an untouched URL verifies and gives back what was signed", () => {
    expect(check(put)).toEqual({ ok: true, expiresAt, contentType: "application/pdf", filename: null, maxBytes: 1234 });
  });

  test("changing any signed part is signature_invalid", () => {
    const tamper = (fn: (u: URL) => void) => {
      const u = new URL(put);
      fn(u);
      return u.toString();
    };
    const cases = [
      tamper((u) => u.searchParams.set("max", "999999")),
      tamper((u) => u.searchParams.set("ct", "text/plain")),
      tamper((u) => u.searchParams.delete("ct")),
      tamper((u) => u.searchParams.set("expires", String(expiresAt + 3600))),
      tamper((u) => u.searchParams.set("fn", "x.pdf")),
      tamper((u) => (u.pathname = "/v1/objects/ws_2/documents/doc_1")),
      tamper((u) =>
        u.searchParams.set(
          "sig",
          u.searchParams.get("sig")!.replace(/^./, (c) => (c === "A" ? "B" : "A")),
        ),
      ),
      tamper((u) => u.searchParams.delete("sig")),
      tamper((u) => u.searchParams.set("sig", "short")),
      tamper((u) => u.searchParams.set("expires", "soon")),
    ];
    for (const url of cases) expect(check(url), url).toEqual({ ok: false, code: "signature_invalid" });
  });

  test("an upload URL cannot be used to download, nor a download URL to upload", () => {
    const get = signUrl(secret, "http://localhost", { method: "GET", key: "k", expiresAt, contentType: "text/csv", filename: "résumé.csv" });
    expect(check(get, "GET")).toMatchObject({ ok: true, filename: "résumé.csv", contentType: "text/csv" });
    expect(check(get, "PUT")).toEqual({ ok: false, code: "signature_invalid" });
    expect(check(put, "GET")).toEqual({ ok: false, code: "signature_invalid" });
  });

  test("another secret's signature is invalid", () => {
    const { key, query } = parts(put);
    expect(verifySignedUrl("t".repeat(48), { method: "PUT", key, query, nowMs: now })).toEqual({ ok: false, code: "signature_invalid" });
  });

  test("at and after its expiry the URL is url_expired; a forged expiry stays signature_invalid", () => {
    expect(check(put, "PUT", expiresAt * 1000 - 1).ok).toBe(true);
    expect(check(put, "PUT", expiresAt * 1000)).toEqual({ ok: false, code: "url_expired" });
    const forged = new URL(put);
    forged.searchParams.set("expires", String(expiresAt + 10));
    expect(check(forged.toString(), "PUT", (expiresAt + 5) * 1000)).toEqual({ ok: false, code: "signature_invalid" });
  });

  test("invalid keys are never signed", () => {
    expect(() => signUrl(secret, "http://localhost", { method: "GET", key: "../x", expiresAt })).toThrow();
  });
});
