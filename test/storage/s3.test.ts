// The S3 object store against a real S3-compatible server on loopback (test/s3-server.ts): the ObjectStore contract
// shared with the local store, multipart uploads, presigned URLs, and the failure paths (credentials, bucket, network).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { AwsV4Signer } from "aws4fetch";
import { ConfigError, loadConfig, type S3Config } from "../../src/config";
import {
  bytesStream,
  LocalObjectStore,
  ObjectCommitRefused,
  type ObjectStore,
  ObjectStoreError,
  ObjectTooLargeError,
  objectStore,
  probeObjectStore,
  S3ObjectStore,
} from "../../src/storage";
import { pushObjects } from "../../src/storage/push";
import { presign, signedHeaders } from "../../src/storage/sigv4";
import { tempDir, testConfig } from "../helpers";
import { S3_KEY_ID, S3_SECRET, type S3TestServer, startS3 } from "../s3-server";

const enc = new TextEncoder();
const MiB = 1024 * 1024;

function chunked(chunks: number, size: number, byte = 0x61): ReadableStream<Uint8Array> {
  let sent = 0;
  return new ReadableStream({
    pull(controller) {
      if (sent++ === chunks) controller.close();
      else controller.enqueue(new Uint8Array(size).fill(byte));
    },
  });
}

let s3: S3TestServer;
beforeAll(async () => {
  s3 = await startS3(["assay"]);
});
afterAll(async () => {
  await s3.stop();
});

function s3Config(over: Partial<S3Config> = {}): S3Config {
  return {
    bucket: "assay",
    prefix: `t${Math.random().toString(36).slice(2, 8)}/`,
    endpoint: s3.endpoint,
    region: "us-east-1",
    accessKeyId: S3_KEY_ID,
    secretAccessKey: S3_SECRET,
    sessionToken: null,
    forcePathStyle: true,
    ...over,
  };
}

describe("SigV4", () => {
  test("a presigned GET matches AWS's published example (examplebucket/test.txt, 2013-05-24)", () => {
    const creds = {
      accessKeyId: "AKIAIOSFODNN7EXAMPLE",
      secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
      sessionToken: null,
      region: "us-east-1",
    };
    const url = presign(creds, "GET", new URL("https://examplebucket.s3.amazonaws.com/test.txt"), {
      nowMs: Date.parse("2013-05-24T00:00:00Z"),
      expiresS: 86400,
    });
    expect(new URL(url).searchParams.get("X-Amz-Signature")).toBe("aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404");
  });

  test("signed headers agree with aws4fetch's signer (query, signed content-type, session token)", async () => {
    const creds = { accessKeyId: "AKID", secretAccessKey: "secret/with+chars", sessionToken: "tok", region: "eu-west-3" };
    const url = new URL("https://bucket.s3.eu-west-3.amazonaws.com/ws_1/documents/doc_1?partNumber=2&uploadId=a%2Bb%2Fc");
    const now = Date.parse("2026-11-25T10:11:12Z");
    const ours = signedHeaders(creds, "PUT", url, { "content-type": "application/pdf" }, now);
    const theirs = new AwsV4Signer({
      method: "PUT",
      url: url.toString(),
      headers: { "content-type": "application/pdf", "x-amz-content-sha256": "UNSIGNED-PAYLOAD" },
      accessKeyId: "AKID",
      secretAccessKey: "secret/with+chars",
      sessionToken: "tok",
      service: "s3",
      region: "eu-west-3",
      datetime: "20261125T101112Z",
      allHeaders: true,
    });
    expect(ours.authorization).toBe(await theirs.authHeader());
  });
});

// The same contract for both backends: what test/storage/local.test.ts asks of the local store, asked of each.
const backends: [string, () => ObjectStore][] = [
  ["local", () => new LocalObjectStore(tempDir())],
  ["s3", () => new S3ObjectStore(s3Config())],
];
for (const [name, make] of backends) {
  describe(`ObjectStore contract: ${name}`, () => {
    test("put, stat, get and delete round-trip", async () => {
      const store = make();
      expect(await store.put("ws_1/documents/doc_1", bytesStream(enc.encode("hello world")), { maxBytes: 100 })).toEqual({ size: 11 });
      expect((await store.stat("ws_1/documents/doc_1"))?.size).toBe(11);
      const got = (await store.get("ws_1/documents/doc_1"))!;
      expect(got.size).toBe(11);
      expect(await got.text()).toBe("hello world");
      await store.delete("ws_1/documents/doc_1");
      expect(await store.stat("ws_1/documents/doc_1")).toBeNull();
      expect(await store.get("ws_1/documents/doc_1")).toBeNull();
      await store.delete("ws_1/documents/doc_1");
    });

    test("a body over maxBytes is refused mid-stream: typed error, the old object intact", async () => {
      const store = make();
      await store.put("k", bytesStream(enc.encode("old")), { maxBytes: 10 });
      const err = await store.put("k", chunked(10, 1000), { maxBytes: 2500 }).catch((e) => e);
      expect(err).toBeInstanceOf(ObjectTooLargeError);
      expect(await (await store.get("k"))!.text()).toBe("old");
    });

    test("a refused commit stores nothing: ObjectCommitRefused, the old object intact", async () => {
      const store = make();
      await store.put("k", bytesStream(enc.encode("old")), { maxBytes: 10 });
      let asked = 0;
      const err = await store
        .put("k", bytesStream(enc.encode("new")), {
          maxBytes: 10,
          commitIf: () => {
            asked++;
            return false;
          },
        })
        .catch((e) => e);
      expect(err).toBeInstanceOf(ObjectCommitRefused);
      expect(asked).toBe(1);
      expect(await (await store.get("k"))!.text()).toBe("old");
    });

    test("exactly maxBytes is accepted, a put replaces the previous object, get streams", async () => {
      const store = make();
      await store.put("k", bytesStream(enc.encode("first version")), { maxBytes: 100 });
      expect(await store.put("k", chunked(5, 100), { maxBytes: 500 })).toEqual({ size: 500 });
      const got = (await store.get("k"))!;
      expect(got.size).toBe(500);
      let n = 0;
      for await (const chunk of got.stream()) n += chunk.byteLength;
      expect(n).toBe(500);
    });

    test("invalid keys are refused before any request", async () => {
      const store = make();
      for (const key of ["../x", "/etc/passwd", "a//b", ".upload-x", "a b", ""]) {
        await expect(store.stat(key), key).rejects.toThrow("invalid object key");
        await expect(store.put(key, bytesStream(enc.encode("x")), { maxBytes: 10 }), key).rejects.toThrow("invalid object key");
      }
    });
  });
}

describe("S3ObjectStore", () => {
  test("a large body goes up in parts (CreateMultipartUpload, UploadPart ×3, Complete) and reads back whole", async () => {
    const cfg = s3Config();
    const store = new S3ObjectStore(cfg, { partBytes: 5 * MiB });
    const before = s3.log.length;
    expect(await store.put("big", chunked(11, MiB, 0x62), { maxBytes: 50 * MiB })).toEqual({ size: 11 * MiB });
    const calls = s3.log.slice(before);
    expect(calls.filter((c) => c.startsWith("POST") && c.includes("uploads"))).toHaveLength(1);
    expect(calls.filter((c) => c.startsWith("PUT") && c.includes("partNumber="))).toHaveLength(3);
    expect(calls.filter((c) => c.startsWith("POST") && c.includes("uploadId="))).toHaveLength(1);
    const bytes = new Uint8Array(await (await store.get("big"))!.arrayBuffer());
    expect(bytes.length).toBe(11 * MiB);
    expect(bytes.every((b) => b === 0x62)).toBe(true);
  });

  test("over the cap after parts were sent: the multipart upload is aborted, nothing is visible", async () => {
    const store = new S3ObjectStore(s3Config(), { partBytes: 5 * MiB });
    const before = s3.log.length;
    const err = await store.put("over", chunked(12, MiB), { maxBytes: 11 * MiB }).catch((e) => e);
    expect(err).toBeInstanceOf(ObjectTooLargeError);
    expect(await store.stat("over")).toBeNull();
    expect(s3.log.slice(before).filter((c) => c.startsWith("DELETE") && c.includes("uploadId="))).toHaveLength(1);
  });

  test("a refused commit after parts were sent: commitIf asked once, before Complete; aborted, nothing visible", async () => {
    const store = new S3ObjectStore(s3Config(), { partBytes: 5 * MiB });
    const before = s3.log.length;
    let askedAt = -1;
    const err = await store
      .put("refused", chunked(6, MiB), {
        maxBytes: 50 * MiB,
        commitIf: () => {
          askedAt = s3.log.length;
          return false;
        },
      })
      .catch((e) => e);
    expect(err).toBeInstanceOf(ObjectCommitRefused);
    const calls = s3.log.slice(before);
    // Both parts were uploaded before the question, and no Complete was sent after it.
    expect(s3.log.slice(before, askedAt).filter((c) => c.includes("partNumber="))).toHaveLength(2);
    expect(calls.filter((c) => c.startsWith("POST") && c.includes("uploadId="))).toHaveLength(0);
    expect(await store.stat("refused")).toBeNull();
  });

  test("wrong credentials: every operation fails with 403 and S3's code, naming no secret", async () => {
    for (const over of [{ secretAccessKey: "not-the-secret" }, { accessKeyId: "NOBODY" }]) {
      const store = new S3ObjectStore(s3Config(over));
      const put = await store.put("k", bytesStream(enc.encode("x")), { maxBytes: 10 }).catch((e) => e);
      expect(put).toBeInstanceOf(ObjectStoreError);
      expect(put.httpStatus).toBe(403);
      expect(put.code).toBe(over.accessKeyId ? "InvalidAccessKeyId" : "SignatureDoesNotMatch");
      expect(put.message).not.toContain("not-the-secret");
      await expect(store.get("k")).rejects.toBeInstanceOf(ObjectStoreError);
      await expect(store.stat("k")).rejects.toBeInstanceOf(ObjectStoreError);
      await expect(store.delete("k")).rejects.toBeInstanceOf(ObjectStoreError);
    }
  });

  test("a missing bucket: put and get fail with NoSuchBucket (not 'no such object')", async () => {
    const store = new S3ObjectStore(s3Config({ bucket: "no-such-bucket" }));
    const put = await store.put("k", bytesStream(enc.encode("x")), { maxBytes: 10 }).catch((e) => e);
    expect(put).toMatchObject({ name: "ObjectStoreError", httpStatus: 404, code: "NoSuchBucket" });
    await expect(store.get("k")).rejects.toMatchObject({ code: "NoSuchBucket" });
  });

  test("the store unreachable: ObjectStoreError with no status, quickly", async () => {
    const closed = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response() });
    const endpoint = `http://127.0.0.1:${closed.port}`;
    closed.stop(true);
    const store = new S3ObjectStore(s3Config({ endpoint }));
    const put = await store.put("k", bytesStream(enc.encode("x")), { maxBytes: 10 }).catch((e) => e);
    expect(put).toBeInstanceOf(ObjectStoreError);
    expect(put.httpStatus).toBeNull();
    await expect(store.stat("k")).rejects.toBeInstanceOf(ObjectStoreError);
  });

  test("presigned PUT: the signed Content-Type and length are enforced by the store; nothing is stored when refused", async () => {
    const store = new S3ObjectStore(s3Config());
    const body = enc.encode("col\n1\n");
    const url = store.presignUpload("ws_1/documents/doc_p", { contentType: "text/csv", size: body.length, nowMs: Date.now(), expiresS: 900 });
    const wrongType = await fetch(url, { method: "PUT", headers: { "content-type": "text/plain" }, body });
    expect(wrongType.status).toBe(403);
    expect(await wrongType.text()).toContain("SignatureDoesNotMatch");
    const wrongLength = await fetch(url, { method: "PUT", headers: { "content-type": "text/csv" }, body: enc.encode("col\n1\n2\n") });
    expect(wrongLength.status).toBe(403);
    expect(await store.stat("ws_1/documents/doc_p")).toBeNull();
    const tampered = url.replace("doc_p", "doc_q");
    expect((await fetch(tampered, { method: "PUT", headers: { "content-type": "text/csv" }, body })).status).toBe(403);
    const ok = await fetch(url, { method: "PUT", headers: { "content-type": "text/csv" }, body });
    expect(ok.status).toBe(200);
    expect(await store.stat("ws_1/documents/doc_p")).toEqual({ size: body.length, contentType: "text/csv" });
    const expired = store.presignUpload("ws_1/documents/doc_e", { contentType: "text/csv", nowMs: Date.now() - 3600_000, expiresS: 900 });
    expect((await fetch(expired, { method: "PUT", headers: { "content-type": "text/csv" }, body })).status).toBe(403);
  });

  test("presigned GET: served by the store with the signed type and file name; verifyDownload knows its own links only", async () => {
    const store = new S3ObjectStore(s3Config());
    await store.put("ws_1/runs/run_1/output.md", bytesStream(enc.encode("# hi")), { maxBytes: 100 });
    const disposition = `attachment; filename="R_sum_ (final).md"; filename*=UTF-8''R%C3%A9sum%C3%A9%20%28final%29.md`;
    const url = store.presignDownload("ws_1/runs/run_1/output.md", { contentType: "text/markdown", disposition, nowMs: Date.now(), expiresS: 3600 });
    const res = await fetch(url);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/markdown");
    expect(res.headers.get("content-disposition")).toBe(disposition);
    expect(await res.text()).toBe("# hi");
    expect(store.verifyDownload(url)).toEqual({ key: "ws_1/runs/run_1/output.md", contentType: "text/markdown", disposition });
    expect(store.verifyDownload(url.replace("text%2Fmarkdown", "text%2Fhtml"))).toBeNull();
    expect(new S3ObjectStore(s3Config({ secretAccessKey: "other" })).verifyDownload(url)).toBeNull();
  });

  test("probeObjectStore: a bad bucket, bad credentials or no server stop the start with one line naming the setting", async () => {
    const dataDir = tempDir();
    await probeObjectStore({ dataDir, s3: s3Config() });
    const reason = (over: Partial<S3Config>) =>
      probeObjectStore({ dataDir, s3: s3Config(over) }).then(
        () => "",
        (e) => (e instanceof ConfigError ? e.message : `not a ConfigError: ${e}`),
      );
    expect(await reason({ bucket: "missing-bucket" })).toStartWith('ASSAY_OBJECT_STORE: there is no bucket "missing-bucket"');
    expect(await reason({ secretAccessKey: "wrong" })).toStartWith("ASSAY_S3_ACCESS_KEY_ID / ASSAY_S3_SECRET_ACCESS_KEY:");
    expect(await reason({ endpoint: "http://127.0.0.1:9" })).toStartWith("ASSAY_S3_ENDPOINT: cannot reach http://127.0.0.1:9");
  });
});

describe("moving a data folder's objects/ into a bucket", () => {
  test("pushObjects copies every key (not the temp files), streamed; a second run skips what is there", async () => {
    const root = tempDir();
    const local = new LocalObjectStore(root);
    await local.put("ws_1/documents/doc_1", bytesStream(enc.encode("original")), { maxBytes: 100 });
    await local.put("ws_1/runs/run_1/output.md", bytesStream(enc.encode("# out")), { maxBytes: 100 });
    writeFileSync(path.join(root, "ws_1", ".upload-abc"), "half an upload");
    const target = new S3ObjectStore(s3Config());
    expect(await pushObjects(root, target, { dryRun: true })).toEqual({ copied: 2, skipped: 0, bytes: 13 });
    expect(await target.stat("ws_1/documents/doc_1")).toBeNull();
    const copied: string[] = [];
    expect(await pushObjects(root, target, { onCopy: (k) => copied.push(k) })).toEqual({ copied: 2, skipped: 0, bytes: 13 });
    expect(copied).toEqual(["ws_1/documents/doc_1", "ws_1/runs/run_1/output.md"]);
    expect(await (await target.get("ws_1/runs/run_1/output.md"))!.text()).toBe("# out");
    await local.put("ws_1/documents/doc_2", bytesStream(enc.encode("new")), { maxBytes: 100 });
    expect(await pushObjects(root, target)).toEqual({ copied: 1, skipped: 2, bytes: 3 });
  });

  test("assay push-objects copies a data folder's objects/ into the bucket and says how many", async () => {
    const dataDir = tempDir();
    const local = new LocalObjectStore(path.join(dataDir, "objects"));
    await local.put("ws_9/documents/doc_9", bytesStream(enc.encode("kept")), { maxBytes: 100 });
    const cfg = s3Config();
    const env = {
      ...process.env,
      ASSAY_DATA_DIR: dataDir,
      ASSAY_OBJECT_STORE: `s3://${cfg.bucket}/${cfg.prefix}`,
      ASSAY_S3_ENDPOINT: s3.endpoint,
      ASSAY_S3_ACCESS_KEY_ID: S3_KEY_ID,
      ASSAY_S3_SECRET_ACCESS_KEY: S3_SECRET,
    };
    const child = Bun.spawn([process.execPath, "src/main.ts", "push-objects"], {
      cwd: path.resolve(import.meta.dir, "../.."),
      env,
      stdout: "pipe",
      stderr: "pipe",
    });
    const [code, out] = await Promise.all([child.exited, new Response(child.stdout).text()]);
    expect(code).toBe(0);
    expect(out).toContain("copied ws_9/documents/doc_9");
    expect(out).toContain(`1 copied (4 bytes), 0 already in s3://assay/${cfg.prefix}`);
    expect(await (await new S3ObjectStore(cfg).get("ws_9/documents/doc_9"))!.text()).toBe("kept");
  }, 60_000);
});

describe("configuration", () => {
  const base = { ASSAY_DATA_DIR: tempDir() };
  test("unset: the local folder store, as before", async () => {
    const config = await testConfig();
    expect(config.s3).toBeNull();
    expect(objectStore({ config })).toBeInstanceOf(LocalObjectStore);
  });

  test("s3://bucket/prefix with ASSAY_S3_*; AWS_* are honoured; path style follows the endpoint", () => {
    const c = loadConfig({
      ...base,
      ASSAY_OBJECT_STORE: "s3://my-bucket/some/prefix/",
      ASSAY_S3_ENDPOINT: "http://minio.internal:9000/",
      ASSAY_S3_ACCESS_KEY_ID: "id",
      ASSAY_S3_SECRET_ACCESS_KEY: "secret",
    }).s3!;
    expect(c).toMatchObject({
      bucket: "my-bucket",
      prefix: "some/prefix/",
      endpoint: "http://minio.internal:9000",
      region: "us-east-1",
      forcePathStyle: true,
    });
    const aws = loadConfig({
      ...base,
      ASSAY_OBJECT_STORE: "s3://b-1",
      AWS_ACCESS_KEY_ID: "A",
      AWS_SECRET_ACCESS_KEY: "S",
      AWS_SESSION_TOKEN: "T",
      AWS_REGION: "eu-central-1",
    }).s3!;
    expect(aws).toMatchObject({
      prefix: "",
      endpoint: "https://s3.eu-central-1.amazonaws.com",
      region: "eu-central-1",
      sessionToken: "T",
      forcePathStyle: false,
    });
    expect(new S3ObjectStore(aws).baseUrl).toBe("https://b-1.s3.eu-central-1.amazonaws.com/");
    const forced = loadConfig({
      ...base,
      ASSAY_OBJECT_STORE: "s3://b-1/p",
      AWS_ACCESS_KEY_ID: "A",
      AWS_SECRET_ACCESS_KEY: "S",
      ASSAY_S3_FORCE_PATH_STYLE: "1",
    });
    expect(new S3ObjectStore(forced.s3!).baseUrl).toBe("https://s3.us-east-1.amazonaws.com/b-1/p/");
  });

  test("bad values stop the start with one line naming the variable", () => {
    const creds = { ASSAY_S3_ACCESS_KEY_ID: "a", ASSAY_S3_SECRET_ACCESS_KEY: "s" };
    for (const [env, starts] of [
      [{ ASSAY_OBJECT_STORE: "gs://bucket" }, "ASSAY_OBJECT_STORE:"],
      [{ ASSAY_OBJECT_STORE: "s3://Bad_Bucket" }, "ASSAY_OBJECT_STORE:"],
      [{ ASSAY_OBJECT_STORE: "s3://bucket/a b" }, "ASSAY_OBJECT_STORE:"],
      [{ ASSAY_OBJECT_STORE: "s3://bucket", ASSAY_S3_ENDPOINT: "ftp://x" }, "ASSAY_S3_ENDPOINT:"],
      [{ ASSAY_OBJECT_STORE: "s3://bucket", ASSAY_S3_REGION: "Mars 1" }, "ASSAY_S3_REGION:"],
      [{ ASSAY_OBJECT_STORE: "s3://bucket", ASSAY_S3_FORCE_PATH_STYLE: "yes" }, "ASSAY_S3_FORCE_PATH_STYLE:"],
      [{ ASSAY_OBJECT_STORE: "s3://bucket", ASSAY_S3_ACCESS_KEY_ID: undefined }, "ASSAY_S3_ACCESS_KEY_ID:"],
      [{ ASSAY_OBJECT_STORE: "s3://bucket", ASSAY_S3_SECRET_ACCESS_KEY: undefined }, "ASSAY_S3_SECRET_ACCESS_KEY:"],
      [{ ASSAY_S3_ENDPOINT: "http://x:9000" }, "ASSAY_S3_ENDPOINT: set ASSAY_OBJECT_STORE"],
    ] as [Record<string, string | undefined>, string][]) {
      const err = (() => {
        try {
          loadConfig({ ...base, ...creds, ...env });
          return null;
        } catch (e) {
          return e as Error;
        }
      })();
      expect(err, JSON.stringify(env)).toBeInstanceOf(ConfigError);
      expect(err!.message, JSON.stringify(env)).toStartWith(starts);
      expect(err!.message).not.toContain("\n");
    }
  });
});
