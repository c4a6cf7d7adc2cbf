// A real S3-compatible server on loopback for tests: s3rver (objects, multipart uploads, XML errors, response-*
// overrides) behind a small proxy that checks every SigV4 signature with aws4fetch, an implementation independent of
// ours (s3rver accepts any V4 signature). So a wrong secret, a changed presigned URL, a presigned PUT with another
// Content-Type or length, and an expired URL are refused as AWS S3 refuses them: 403 with an XML <Code>.
import { afterAll, beforeAll } from "bun:test";
import { rmSync } from "node:fs";
import { AwsV4Signer } from "aws4fetch";
import S3rver from "s3rver";
import { type Harness, localPath, tempDir } from "./helpers";

export const S3_KEY_ID = "S3RVER";
export const S3_SECRET = "S3RVER";

export interface S3TestServer {
  /** The proxy's origin, what ASSAY_S3_ENDPOINT names. */
  endpoint: string;
  /** The settings that put a harness's files in `bucket` under `prefix`. */
  env(prefix?: string, bucket?: string): Record<string, string>;
  /** Requests the proxy received, as "METHOD path?query" (for the tests that count them). */
  log: string[];
  stop(): Promise<void>;
}

function s3Error(status: number, code: string, message: string): Response {
  const xml = `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${message}</Message></Error>`;
  return new Response(xml, { status, headers: { "content-type": "application/xml" } });
}

const amzMs = (s: string) => {
  const m = /^(\d{4})(\d\d)(\d\d)T(\d\d)(\d\d)(\d\d)Z$/.exec(s);
  return m ? Date.UTC(+m[1], +m[2] - 1, +m[3], +m[4], +m[5], +m[6]) : Number.NaN;
};

/** null when the request is signed right (and not expired), else the refusal S3 would answer. */
async function checkSignature(req: Request): Promise<Response | null> {
  const url = new URL(req.url);
  const q = url.searchParams;
  const auth = req.headers.get("authorization");
  const presigned = q.has("X-Amz-Signature");
  if (!auth && !presigned) return s3Error(403, "AccessDenied", "Access Denied");
  let keyId: string;
  let region: string;
  let signed: string[];
  let given: string;
  let datetime: string;
  if (auth) {
    const m = /^AWS4-HMAC-SHA256 Credential=([^/]+)\/\d{8}\/([^/]+)\/s3\/aws4_request, ?SignedHeaders=([^,]+), ?Signature=([0-9a-f]{64})$/.exec(auth);
    if (!m) return s3Error(400, "AuthorizationHeaderMalformed", "The authorization header is malformed");
    [, keyId, region] = m;
    signed = m[3].split(";");
    given = m[4];
    datetime = req.headers.get("x-amz-date") ?? "";
  } else {
    const cred = /^([^/]+)\/\d{8}\/([^/]+)\/s3\/aws4_request$/.exec(q.get("X-Amz-Credential") ?? "");
    if (!cred) return s3Error(400, "AuthorizationQueryParametersError", "X-Amz-Credential is malformed");
    [, keyId, region] = cred;
    signed = (q.get("X-Amz-SignedHeaders") ?? "").split(";");
    given = q.get("X-Amz-Signature") ?? "";
    datetime = q.get("X-Amz-Date") ?? "";
    const expires = Number(q.get("X-Amz-Expires"));
    if (!(amzMs(datetime) + expires * 1000 > Date.now())) return s3Error(403, "AccessDenied", "Request has expired");
  }
  if (keyId !== S3_KEY_ID) return s3Error(403, "InvalidAccessKeyId", "The AWS Access Key Id you provided does not exist in our records.");
  const headers: Record<string, string> = {};
  for (const name of signed) if (name !== "host") headers[name] = req.headers.get(name) ?? "";
  const unsigned = new URL(url);
  unsigned.searchParams.delete("X-Amz-Signature");
  const signer = new AwsV4Signer({
    method: req.method,
    url: unsigned.toString(),
    headers,
    accessKeyId: keyId,
    secretAccessKey: S3_SECRET,
    service: "s3",
    region,
    datetime,
    signQuery: presigned && !auth,
    allHeaders: true,
  });
  if ((await signer.signature()) !== given) {
    return s3Error(403, "SignatureDoesNotMatch", "The request signature we calculated does not match the signature you provided.");
  }
  return null;
}

/** Starts s3rver (bucket "assay", files in a temp folder) and the verifying proxy, both on 127.0.0.1, ports chosen by the OS. */
export async function startS3(buckets: string[] = ["assay"]): Promise<S3TestServer> {
  const directory = tempDir("assay-s3-");
  const s3rver = new S3rver({ address: "127.0.0.1", port: 0, silent: true, directory, configureBuckets: buckets.map((name) => ({ name })) });
  const { port } = (await s3rver.run()) as { port: number };
  const upstream = `http://127.0.0.1:${port}`;
  const log: string[] = [];
  const proxy = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    maxRequestBodySize: 1024 * 1024 * 1024,
    async fetch(req) {
      const url = new URL(req.url);
      log.push(`${req.method} ${url.pathname}${url.search}`);
      const refused = await checkSignature(req);
      if (refused) return refused;
      const headers = new Headers(req.headers);
      headers.delete("host");
      const res = await fetch(upstream + url.pathname + url.search, {
        method: req.method,
        headers,
        body: req.body,
        redirect: "manual",
        decompress: false,
        duplex: "half",
      } as RequestInit);
      // Buffered: Bun.serve sends a streamed body chunked, dropping the Content-Length every S3 answer carries.
      return new Response(req.method === "HEAD" ? null : await res.arrayBuffer(), { status: res.status, headers: res.headers });
    },
  });
  const endpoint = `http://127.0.0.1:${proxy.port}`;
  return {
    endpoint,
    log,
    env: (prefix = "", bucket = "assay") => ({
      ASSAY_OBJECT_STORE: `s3://${bucket}${prefix ? `/${prefix}` : ""}`,
      ASSAY_S3_ENDPOINT: endpoint,
      ASSAY_S3_REGION: "us-east-1",
      ASSAY_S3_ACCESS_KEY_ID: S3_KEY_ID,
      ASSAY_S3_SECRET_ACCESS_KEY: S3_SECRET,
    }),
    async stop() {
      proxy.stop(true);
      await s3rver.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}

export type Backend = "local" | "s3";
/** The object stores a store-agnostic test file runs against, each in its own describe. */
export const BACKENDS: Backend[] = ["local", "s3"];

/**
 * Call at the top of a describe: for "s3" it starts the S3 server (beforeAll, so before the describe's own hooks) and
 * stops it after. `env()` is what a harness needs on top of its own settings; `put` sends bytes to an upload_url.
 */
export function storeBackend(backend: Backend) {
  let server: S3TestServer | null = null;
  const prefix = `t${Math.random().toString(36).slice(2, 8)}`;
  if (backend === "s3") {
    beforeAll(async () => {
      server = await startS3();
    });
    afterAll(async () => {
      await server?.stop();
    });
  }
  const s3 = () => {
    if (!server) throw new Error("the S3 test server is not started (call storeBackend() at the top of the describe)");
    return server;
  };
  return {
    backend,
    env: (): Record<string, string> => (backend === "s3" ? s3().env(prefix) : {}),
    /** A TestClock's start: the store checks presigned URLs against the real time, so with S3 a test clock starts now. */
    clockStart: (): number | undefined => (backend === "s3" ? Math.floor(Date.now() / 1000) * 1000 : undefined),
    /** Where upload URLs point. */
    urlPrefix: () => (backend === "s3" ? `${s3().endpoint}/assay/${prefix}/` : "http://localhost/v1/objects/"),
    /** PUT to an upload_url: through the app for /v1/objects, over the network to the store for S3. The status. */
    async put(h: Harness, url: string, bytes: Uint8Array, contentType: string): Promise<number> {
      if (backend === "local") return (await h.call("PUT", localPath(url), { raw: bytes, headers: { "content-type": contentType } })).status;
      return (await fetch(url, { method: "PUT", headers: { "content-type": contentType }, body: bytes })).status;
    },
  };
}
