// An over-limit (or otherwise refused) body is answered, not reset: the server reads the rest of the body away
// (bounded) before answering, so a client that sends its whole body before reading — as most do — gets the error body.
// A real server on a real port, and a raw client that writes everything first and only then reads.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import net from "node:net";
import path from "node:path";
import { loadConfig } from "../../src/config";
import { type Running, startServer } from "../../src/server";
import { tempDir } from "../helpers";

let server: Running;
let port: number;
let key: string;
let workflow: string;

beforeAll(async () => {
  server = await startServer(
    loadConfig({
      ASSAY_DATA_DIR: tempDir("assay-linger-"),
      ASSAY_PORT: "0",
      ASSAY_ADMIN_EMAIL: "linger@example.com",
      ASSAY_ADMIN_PASSWORD: "linger-password",
    }),
  );
  port = Number(new URL(server.url).port);
  const api = async (path: string, token: string | null, body: unknown) =>
    (await (
      await fetch(`${server.url}/v1${path}`, {
        method: "POST",
        headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
        body: JSON.stringify(body),
      })
    ).json()) as Record<string, string>;
  const session = (await api("/auth/login", null, { email: "linger@example.com", password: "linger-password" })).token;
  key = (await api("/keys", session, { name: "linger" })).token;
  workflow = (await api("/workflows", key, { product_code: "general", name: "linger" })).id;
});

afterAll(() => server?.stop());

/**
 * Python's http.client (a real client that sends the whole body before it reads) makes `tries` requests, each with
 * `Connection: close` as urllib and many others send it: the server then closes right after answering, and without a
 * lingering close the client's unfinished upload meets a reset (EPIPE) instead of the answer.
 */
async function sendThenRead(opts: {
  url: string;
  method: string;
  body: Uint8Array;
  chunked: boolean;
  headers: Record<string, string>;
  tries: number;
}) {
  const file = path.join(tempDir("assay-linger-body-"), "body");
  await Bun.write(file, opts.body);
  const headers = Object.entries({ ...opts.headers, Connection: "close" }).map(([k, v]) => `${k}: ${v}`);
  const script = path.join(import.meta.dir, "send-then-read.py");
  const child = Bun.spawn(["python3", script, opts.url, opts.method, String(opts.tries), opts.chunked ? "1" : "0", file, ...headers], {
    stdout: "pipe",
  });
  const out = await new Response(child.stdout).text();
  await child.exited;
  return out
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as { status?: number; code?: string; error?: string });
}

const multipart = (bytes: number) =>
  Buffer.concat([
    Buffer.from('--B\r\nContent-Disposition: form-data; name="files[]"; filename="essay.txt"\r\nContent-Type: text/plain\r\n\r\n'),
    Buffer.alloc(bytes, 65),
    Buffer.from("\r\n--B--\r\n"),
  ]);

describe.each([
  ["with Content-Length", false],
  ["chunked", true],
])("a refused body %s is answered, not reset (20 tries)", (_name, chunked) => {
  const expectAll = (replies: { status?: number; code?: string; error?: string }[], status: number, code: string) => {
    expect(replies).toHaveLength(20);
    for (const reply of replies) expect(reply).toEqual({ status, code });
  };
  const runs = () => `${server.url}/v1/workflows/${workflow}/runs`;
  const multipartHeaders = (token: string) => ({ Authorization: `Bearer ${token}`, "Content-Type": "multipart/form-data; boundary=B" });

  test("6 MB to the inline run endpoint (4 MB limit): 413", async () => {
    const replies = await sendThenRead({
      url: runs(),
      method: "POST",
      body: multipart(6 * 1024 * 1024),
      chunked,
      headers: multipartHeaders(key),
      tries: 20,
    });
    expectAll(replies, 413, "payload_too_large");
  }, 60_000);

  test("a 2 MB JSON body (1 MB limit): 413", async () => {
    const body = Buffer.from(JSON.stringify({ product_code: "general", name: "x".repeat(2 * 1024 * 1024) }));
    const headers = { Authorization: `Bearer ${key}`, "Content-Type": "application/json" };
    expectAll(await sendThenRead({ url: `${server.url}/v1/workflows`, method: "POST", body, chunked, headers, tries: 20 }), 413, "payload_too_large");
  }, 60_000);

  test("a 6 MB upload with a wrong key: 401", async () => {
    const replies = await sendThenRead({
      url: runs(),
      method: "POST",
      body: multipart(6 * 1024 * 1024),
      chunked,
      headers: multipartHeaders("svc_live_wrong"),
      tries: 20,
    });
    expectAll(replies, 401, "unauthenticated");
  }, 60_000);

  test("a presigned PUT over its declared size: 413", async () => {
    const created = await fetch(`${server.url}/v1/documents`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ filename: "a.txt", mime_type: "text/plain", size_bytes: 1024 }),
    });
    const { upload_url } = (await created.json()) as { upload_url: string };
    const signed = new URL(upload_url); // signed for ASSAY_PUBLIC_URL; sent to this server's real port
    const url = `${server.url}${signed.pathname}${signed.search}`;
    const replies = await sendThenRead({
      url,
      method: "PUT",
      body: Buffer.alloc(6 * 1024 * 1024, 65),
      chunked,
      headers: { "Content-Type": "text/plain" },
      tries: 20,
    });
    expectAll(replies, 413, "payload_too_large");
  }, 60_000);
});

describe("bounded", () => {
  /** Sends a head declaring `length` bytes, then one byte every 200 ms; resolves with what came back and when. */
  const trickle = (length: number) =>
    new Promise<{ text: string; ms: number }>((resolve) => {
      const socket = net.connect(port, "127.0.0.1");
      const started = performance.now();
      let text = "";
      const timer = setInterval(() => socket.write("x"), 200);
      const finish = () => {
        clearInterval(timer);
        socket.destroy();
        resolve({ text, ms: performance.now() - started });
      };
      socket.on("error", finish);
      socket.on("close", finish);
      socket.on("data", (d) => {
        text += d.toString();
        if (text.includes("}}")) finish();
      });
      const head = `POST /v1/workflows/${workflow}/runs HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer wrong\r\nContent-Type: multipart/form-data; boundary=B`;
      socket.write(`${head}\r\nContent-Length: ${length}\r\n\r\n`);
    });

  test("a trickled body is read for at most 5 s, then answered; the server serves others meanwhile", async () => {
    const pending = trickle(10_000_000);
    await Bun.sleep(300);
    const t0 = performance.now();
    expect((await fetch(`${server.url}/v1/health`)).status).toBe(200);
    expect(performance.now() - t0).toBeLessThan(500);
    const { text, ms } = await pending;
    expect(text).toStartWith("HTTP/1.1 401");
    expect(ms).toBeGreaterThan(4_500);
    expect(ms).toBeLessThan(8_000);
  }, 20_000);

  test("a body declaring more than any upload plus the allowance is not read at all: answered at once", async () => {
    const { text, ms } = await trickle(1_000_000_000);
    expect(text).toStartWith("HTTP/1.1 401");
    expect(ms).toBeLessThan(1_000);
  }, 20_000);
});
