// A refused body is answered, not reset (lingering close, src/http/body.ts): a real server on a real port, real clients
// that send the whole body (curl, Python's http.client, a raw node:net socket), and the bounds that keep it safe.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import net from "node:net";
import path from "node:path";
import { loadConfig } from "../../src/config";
import { drained } from "../../src/lib/drained";
import { type Running, startServer } from "../../src/server";
import { tempDir } from "../helpers";

let server: Running;
let port: number;
let key: string;
let workflow: string;
const files = tempDir("assay-linger-body-");

beforeAll(async () => {
  server = await startServer(
    loadConfig({
      ASSAY_LOG_LEVEL: "silent",
      ASSAY_DATA_DIR: tempDir("assay-linger-"),
      ASSAY_PORT: "0",
      ASSAY_ADMIN_EMAIL: "linger@example.com",
      ASSAY_ADMIN_PASSWORD: "linger-password",
    }),
  );
  port = Number(new URL(server.url).port);
  const session = (await api("/auth/login", null, { email: "linger@example.com", password: "linger-password" })).token;
  key = (await api("/keys", session, { name: "linger" })).token;
  workflow = (await api("/workflows", key, { product_code: "general", name: "linger" })).id;
});

afterAll(() => server?.stop());

async function api(p: string, token: string | null, body: unknown) {
  const res = await fetch(`${server.url}/v1${p}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  });
  return (await res.json()) as Record<string, string>;
}

const MB = 1024 * 1024;
const multipart = (field: string, bytes: number, head = "") =>
  Buffer.concat([
    Buffer.from(`--B\r\nContent-Disposition: form-data; name="${field}"; filename="essay.txt"\r\nContent-Type: text/plain\r\n${head}\r\n`),
    Buffer.alloc(bytes, 65),
    Buffer.from("\r\n--B--\r\n"),
  ]);

async function bodyFile(name: string, body: Uint8Array) {
  const file = path.join(files, name);
  await Bun.write(file, body);
  return file;
}

interface Reply {
  status?: number;
  code?: string;
  error?: string;
}

interface Case {
  method: string;
  url: () => string | Promise<string>;
  headers: () => Record<string, string>;
  body: () => Promise<string>; // a file holding it
  status: number;
  code: string;
  tries: number;
}

/** curl as it comes (it sends Expect: 100-continue for big bodies), with `Connection: close`. */
async function curl(c: Case, url: string, file: string, chunked: boolean): Promise<Reply[]> {
  const headers = { ...c.headers(), Connection: "close", ...(chunked ? { "Transfer-Encoding": "chunked" } : {}) };
  const args = ["curl", "-sS", "--max-time", "30", "-X", c.method, "--data-binary", `@${file}`, "-o", "-", "-w", "\n%{http_code}"];
  for (const [k, v] of Object.entries(headers)) args.push("-H", `${k}: ${v}`);
  const replies: Reply[] = [];
  for (let i = 0; i < c.tries; i++) {
    const child = Bun.spawn([...args, url], { stdout: "pipe", stderr: "pipe" });
    const [out, err, exit] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
    if (exit !== 0) {
      replies.push({ error: err.trim() || `curl exit ${exit}` });
      continue;
    }
    const cut = out.lastIndexOf("\n");
    replies.push({ status: Number(out.slice(cut + 1)), code: codeOf(out.slice(0, cut)) });
  }
  return replies;
}

/**
 * Python's http.client: sends the whole body before it reads anything (as most clients do), with `Connection: close`
 * (as urllib sends it). Without a lingering close its unfinished upload meets a reset every time.
 */
async function python(c: Case, url: string, file: string, chunked: boolean): Promise<Reply[]> {
  const headers = Object.entries({ ...c.headers(), Connection: "close" }).map(([k, v]) => `${k}: ${v}`);
  const script = path.join(import.meta.dir, "send-then-read.py");
  const child = Bun.spawn(["python3", script, url, c.method, String(c.tries), chunked ? "1" : "0", file, ...headers], { stdout: "pipe" });
  const out = await new Response(child.stdout).text();
  await child.exited;
  return out
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as Reply);
}

/** A raw socket that writes the head, then the body 64 KB at a time as fast as the socket takes it; any error fails. */
async function raw(c: Case, url: string, file: string, chunked: boolean): Promise<Reply[]> {
  const body = new Uint8Array(await Bun.file(file).arrayBuffer());
  const target = new URL(url);
  const replies: Reply[] = [];
  for (let i = 0; i < c.tries; i++) {
    const socket = net.connect(port, "127.0.0.1");
    let text = "";
    let error = "";
    socket.on("data", (d) => {
      text += d.toString("latin1");
    });
    socket.on("error", (e: NodeJS.ErrnoException) => {
      error ||= e.code ?? e.message;
    });
    const closed = new Promise<void>((resolve) => socket.on("close", () => resolve()));
    const write = async (data: string | Uint8Array) => {
      if (!socket.write(data)) await drained(socket);
    };
    const head = {
      Host: "localhost",
      ...c.headers(),
      Connection: "close",
      ...(chunked ? { "Transfer-Encoding": "chunked" } : { "Content-Length": body.length }),
    };
    await write(
      `${c.method} ${target.pathname}${target.search} HTTP/1.1\r\n${Object.entries(head)
        .map(([k, v]) => `${k}: ${v}\r\n`)
        .join("")}\r\n`,
    );
    for (let at = 0; at < body.length && !socket.destroyed; at += 64 * 1024) {
      const part = body.subarray(at, at + 64 * 1024);
      await write(chunked ? Buffer.concat([Buffer.from(`${part.length.toString(16)}\r\n`), part, Buffer.from("\r\n")]) : part);
    }
    if (chunked && !socket.destroyed) socket.write("0\r\n\r\n");
    await closed;
    const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1]);
    replies.push(error ? { error } : { status, code: codeOf(text.slice(text.indexOf("\r\n\r\n") + 4)) });
  }
  return replies;
}

function codeOf(text: string): string | undefined {
  try {
    return (JSON.parse(text) as { error: { code: string } }).error.code;
  } catch {
    return undefined;
  }
}

const runsUrl = () => `${server.url}/v1/workflows/${workflow}/runs`;
const multipartHeaders = (token: string) => ({ Authorization: `Bearer ${token}`, "Content-Type": "multipart/form-data; boundary=B" });

/** A signed upload URL for 1 KB, sent to this server's real port (it is signed for ASSAY_PUBLIC_URL). */
async function signedPut() {
  const created = await api("/documents", key, { filename: "a.txt", mime_type: "text/plain", size_bytes: 1024 });
  const signed = new URL(created.upload_url);
  return `${server.url}${signed.pathname}${signed.search}`;
}

const cases: Record<string, Case> = {
  "6 MB to the inline run endpoint (4 MB limit): 413": {
    method: "POST",
    url: runsUrl,
    headers: () => multipartHeaders(key),
    body: () => bodyFile("runs", multipart("files[]", 6 * MB)),
    status: 413,
    code: "payload_too_large",
    tries: 20,
  },
  "a 2 MB JSON body (1 MB limit): 413": {
    method: "POST",
    url: () => `${server.url}/v1/workflows`,
    headers: () => ({ Authorization: `Bearer ${key}`, "Content-Type": "application/json" }),
    body: () => bodyFile("json", Buffer.from(JSON.stringify({ product_code: "general", name: "x".repeat(2 * MB) }))),
    status: 413,
    code: "payload_too_large",
    tries: 20,
  },
  "a 6 MB PUT to a signed upload URL for 1 KB: 413": {
    method: "PUT",
    url: signedPut,
    headers: () => ({ "Content-Type": "text/plain" }),
    body: () => bodyFile("put", Buffer.alloc(6 * MB, 65)),
    status: 413,
    code: "payload_too_large",
    tries: 20,
  },
  "a 6 MB upload with a wrong key: 401": {
    method: "POST",
    url: runsUrl,
    headers: () => multipartHeaders("svc_live_wrong"),
    body: () => bodyFile("runs", multipart("files[]", 6 * MB)),
    status: 401,
    code: "unauthenticated",
    tries: 20,
  },
  "a reference upload whose part header breaks the multipart parser: 400": {
    method: "POST",
    url: () => `${server.url}/v1/reference-documents`,
    headers: () => multipartHeaders(key),
    body: () => bodyFile("broken", multipart("file", 6 * MB, `X-Junk: ${"j".repeat(100 * 1024)}\r\n`)),
    status: 400,
    code: "validation_error",
    tries: 20,
  },
  "a 60 MB reference upload (50 MB limit): 413": {
    method: "POST",
    url: () => `${server.url}/v1/reference-documents`,
    headers: () => multipartHeaders(key),
    body: () => bodyFile("reference", multipart("file", 60 * MB)),
    status: 413,
    code: "payload_too_large",
    tries: 3,
  },
};

const clients = [
  ["curl", curl, Bun.which("curl")],
  ["Python's http.client", python, Bun.which("python3")],
  ["a raw socket", raw, "built in"],
] as const;

describe.each(Object.keys(cases))("%s", (name) => {
  describe.each([
    ["with Content-Length", false],
    ["chunked", true],
  ])("%s: answered every time, never reset", (_how, chunked) => {
    for (const [client, send, present] of clients) {
      test.skipIf(!present)(
        client,
        async () => {
          const c = cases[name];
          const replies = await send(c, await c.url(), await c.body(), chunked);
          expect(replies).toEqual(Array.from({ length: c.tries }, () => ({ status: c.status, code: c.code })));
        },
        60_000,
      );
    }
  });
});

type Sender = (socket: net.Socket, closed: () => boolean, received: () => string) => Promise<void>;

/** A raw request: the head, then `body` (called once the head is out); resolves when the server closes the socket. */
function exchange(head: string, body: Sender, giveUpMs = 15_000) {
  return new Promise<{ text: string; answeredMs: number; closedMs: number; closedByServer: boolean }>((resolve) => {
    const socket = net.connect(port, "127.0.0.1");
    const started = performance.now();
    let text = "";
    let answeredMs = -1;
    let closed = false;
    socket.on("data", (d) => {
      if (answeredMs < 0) answeredMs = performance.now() - started;
      text += d.toString("latin1");
    });
    socket.on("error", () => {});
    const giveUp = setTimeout(() => socket.destroy(), giveUpMs);
    socket.on("close", () => {
      closed = true;
      clearTimeout(giveUp);
      const closedMs = performance.now() - started;
      resolve({ text, answeredMs, closedMs, closedByServer: closedMs < giveUpMs - 100 });
    });
    socket.write(
      head,
      () =>
        void body(
          socket,
          () => closed,
          () => text,
        ),
    );
  });
}

const headOf = (target: string, headers: Record<string, string | number>) =>
  `POST ${target} HTTP/1.1\r\nHost: localhost\r\n${Object.entries(headers)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join("")}\r\n`;

/** One byte (or one one-byte chunk) every 100 ms until the server closes. */
const trickle =
  (chunked: boolean): Sender =>
  async (socket, closed) => {
    while (!closed()) {
      socket.write(chunked ? "1\r\nx\r\n" : "x");
      await Bun.sleep(100);
    }
  };

/** Chunks as fast as the socket takes them (its backpressure respected), until the server closes or `limit` went out. */
const flood =
  (limit: number, sent: { bytes: number }): Sender =>
  async (socket, closed) => {
    const block = Buffer.alloc(256 * 1024, 65);
    const framed = Buffer.concat([Buffer.from(`${block.length.toString(16)}\r\n`), block, Buffer.from("\r\n")]);
    while (!closed() && sent.bytes < limit) {
      sent.bytes += block.length;
      if (!socket.write(framed)) await drained(socket);
    }
    if (!closed()) socket.destroy();
  };

const statusOf = (text: string) => Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1]);
const closesConnection = (text: string) => /\r\nconnection: close\r\n/i.test(text.slice(0, text.indexOf("\r\n\r\n") + 2));

describe("bounded: nobody holds a connection or makes the server read without end", () => {
  test("a trickled body is read for 5 s, then answered and the connection closed; others are served meanwhile", async () => {
    const declared = exchange(headOf(`/v1/workflows/${workflow}/runs`, { ...multipartHeaders(key), "Content-Length": 10 * MB }), trickle(false));
    // Chunked: past the 1 MB JSON limit first (the refusal), then a byte at a time.
    const jsonHead = headOf("/v1/workflows", { Authorization: `Bearer ${key}`, "Content-Type": "application/json", "Transfer-Encoding": "chunked" });
    const chunked = exchange(jsonHead, async (socket, closed, received) => {
      socket.write(`${(2 * MB).toString(16)}\r\n${"x".repeat(2 * MB)}\r\n`);
      await trickle(true)(socket, closed, received);
    });
    await Bun.sleep(300);
    const t0 = performance.now();
    expect((await fetch(`${server.url}/v1/health`)).status).toBe(200);
    expect(performance.now() - t0).toBeLessThan(500);
    for (const reply of await Promise.all([declared, chunked])) {
      expect(statusOf(reply.text)).toBe(413);
      expect(closesConnection(reply.text)).toBe(true);
      expect(reply.answeredMs).toBeGreaterThan(4_500);
      expect(reply.answeredMs).toBeLessThan(7_000);
      expect(reply.closedByServer).toBe(true);
      expect(reply.closedMs - reply.answeredMs).toBeLessThan(1_000);
    }
  }, 20_000);

  test("a body declaring more than the largest upload plus 64 MB is not read at all: answered and closed at once", async () => {
    const reply = await exchange(
      headOf(`/v1/workflows/${workflow}/runs`, { ...multipartHeaders(key), "Content-Length": 1_000_000_000 }),
      trickle(false),
    );
    expect(statusOf(reply.text)).toBe(413);
    expect(closesConnection(reply.text)).toBe(true);
    expect(reply.closedByServer).toBe(true);
    expect(reply.closedMs).toBeLessThan(1_000);
  }, 20_000);

  test.each([
    ["JSON body (1 MB limit)", "/v1/workflows", "application/json", 1 * MB],
    ["multipart reference upload (50 MB limit)", "/v1/reference-documents", "multipart/form-data; boundary=B", 50 * MB],
  ])(
    "an endless %s is cut off after its limit plus at most 64 MB",
    async (_name, target, type, limit) => {
      const sent = { bytes: 0 };
      const head = headOf(target, { Authorization: `Bearer ${key}`, "Content-Type": type, "Transfer-Encoding": "chunked" });
      const preamble = '--B\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\nContent-Type: text/plain\r\n\r\n';
      const reply = await exchange(head, async (socket, closed, received) => {
        socket.write(`${preamble.length.toString(16)}\r\n${preamble}\r\n`);
        await flood(500 * MB, sent)(socket, closed, received);
      });
      // An endless body cannot be sure to see the answer: the close may reach the client while it is still sending,
      // and its kernel then drops what arrived (seen once in CI). What must hold is the bound: answered when seen,
      // closed by the server, and read no further than the limit plus the lingering allowance.
      if (reply.text) {
        expect(statusOf(reply.text)).toBe(413);
        expect(closesConnection(reply.text)).toBe(true);
      }
      expect(reply.closedByServer).toBe(true);
      // What the server read, plus what the two sockets' buffers held when it closed.
      expect(sent.bytes).toBeLessThan(limit + 64 * MB + 32 * MB);
    },
    30_000,
  );

  test("a refused body read to its end keeps the connection: the next request on it is served", async () => {
    const body = multipart("files[]", 6 * MB);
    const head = headOf(`/v1/workflows/${workflow}/runs`, { ...multipartHeaders(key), "Content-Length": body.length });
    const reply = await exchange(head, async (socket, _closed, received) => {
      socket.write(body);
      while (!received().includes("}}")) await Bun.sleep(10); // the 413 in full (not pipelined: Bun closes on that)
      socket.write("GET /v1/health HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n");
    });
    const answers = [...reply.text.matchAll(/HTTP\/1\.1 (\d{3})/g)].map((m) => Number(m[1]));
    expect(answers).toEqual([413, 200]);
    expect(closesConnection(reply.text)).toBe(false);
  });

  test("the server is healthy afterwards", async () => {
    expect((await fetch(`${server.url}/v1/health`)).status).toBe(200);
    expect((await api("/workflows", key, { product_code: "general", name: "after" })).id).toStartWith("wf_");
  });
});
