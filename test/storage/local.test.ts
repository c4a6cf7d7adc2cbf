// The local object store: round trips, atomic replacement, the byte cap while streaming, and keys that cannot escape.
import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { bytesStream, copyObjectsFolder, InvalidKeyError, LocalObjectStore, ObjectTooLargeError, objectStore } from "../../src/storage";
import { tempDir, testConfig } from "../helpers";

const enc = new TextEncoder();

/** A stream that yields `chunks` pieces of `size` bytes each, as a slow client would send them. */
function chunked(chunks: number, size: number, byte = 0x61): ReadableStream<Uint8Array> {
  let sent = 0;
  return new ReadableStream({
    pull(controller) {
      if (sent++ === chunks) controller.close();
      else controller.enqueue(new Uint8Array(size).fill(byte));
    },
  });
}

describe("LocalObjectStore", () => {
  test("put, stat, get and delete round-trip under <root>/<key>", async () => {
    const root = tempDir();
    const store = new LocalObjectStore(root);
    expect(await store.put("ws_1/documents/doc_1", bytesStream(enc.encode("hello world")), { maxBytes: 100 })).toEqual({ size: 11 });
    expect(await store.stat("ws_1/documents/doc_1")).toEqual({ size: 11 });
    expect(existsSync(path.join(root, "ws_1/documents/doc_1"))).toBe(true);
    expect(await (await store.get("ws_1/documents/doc_1"))!.text()).toBe("hello world");
    await store.delete("ws_1/documents/doc_1");
    expect(await store.stat("ws_1/documents/doc_1")).toBeNull();
    expect(await store.get("ws_1/documents/doc_1")).toBeNull();
    await store.delete("ws_1/documents/doc_1"); // deleting what is gone is fine
  });

  test("a folder (a key's prefix) is not an object", async () => {
    const store = new LocalObjectStore(tempDir());
    await store.put("a/b", bytesStream(enc.encode("x")), { maxBytes: 10 });
    expect(await store.stat("a")).toBeNull();
    expect(await store.get("a")).toBeNull();
  });

  test("a body over maxBytes is refused mid-stream: typed error, nothing stored, no temp file left, the old object intact", async () => {
    const root = tempDir();
    const store = new LocalObjectStore(root);
    await store.put("k", bytesStream(enc.encode("old")), { maxBytes: 10 });
    const err = await store.put("k", chunked(10, 1000), { maxBytes: 2500 }).catch((e) => e);
    expect(err).toBeInstanceOf(ObjectTooLargeError);
    expect((err as ObjectTooLargeError).maxBytes).toBe(2500);
    expect(await (await store.get("k"))!.text()).toBe("old");
    expect(readdirSync(root)).toEqual(["k"]);
  });

  test("exactly maxBytes is accepted, and a put replaces the previous object", async () => {
    const store = new LocalObjectStore(tempDir());
    await store.put("k", bytesStream(enc.encode("first version")), { maxBytes: 100 });
    expect(await store.put("k", chunked(5, 100), { maxBytes: 500 })).toEqual({ size: 500 });
    expect((await store.get("k"))!.size).toBe(500);
  });

  test("keys that could leave the folder or collide with temp files are refused", async () => {
    const root = tempDir();
    writeFileSync(path.join(root, "..", "secret.txt"), "do not read");
    const store = new LocalObjectStore(root);
    for (const key of [
      "../secret.txt",
      "/etc/passwd",
      "a/../../secret.txt",
      "a//b",
      "a/",
      ".upload-x",
      "a/.hidden",
      "a b",
      "a\\b",
      "",
      "x".repeat(513),
      "é",
    ]) {
      await expect(store.stat(key), key).rejects.toThrow(InvalidKeyError);
      await expect(store.get(key), key).rejects.toThrow(InvalidKeyError);
      await expect(store.delete(key), key).rejects.toThrow(InvalidKeyError);
      await expect(store.put(key, bytesStream(enc.encode("x")), { maxBytes: 10 }), key).rejects.toThrow(InvalidKeyError);
    }
  });

  test("copyObjectsFolder copies stored objects but not an upload still being written (assay backup while serving)", async () => {
    const root = tempDir();
    const store = new LocalObjectStore(root);
    await store.put("docs/a", bytesStream(enc.encode("kept")), { maxBytes: 10 });
    let finish!: () => void;
    const pending = new ReadableStream<Uint8Array>({
      async pull(controller) {
        controller.enqueue(enc.encode("half"));
        await new Promise<void>((resolve) => {
          finish = resolve;
        });
        controller.close();
      },
    });
    const writing = store.put("docs/b", pending, { maxBytes: 100 });
    while (!readdirSync(path.join(root, "docs")).some((name) => name.startsWith(".upload-"))) await Bun.sleep(1);
    const out = path.join(tempDir(), "objects");
    copyObjectsFolder(root, out);
    finish();
    await writing;
    expect(readdirSync(path.join(out, "docs"))).toEqual(["a"]);
    expect(await Bun.file(path.join(out, "docs", "a")).text()).toBe("kept");
    copyObjectsFolder(path.join(root, "nothing-here"), path.join(tempDir(), "empty")); // no objects yet: no error
  });

  test("objectStore(ctx) is one store per data dir, rooted at <dataDir>/objects", async () => {
    const config = await testConfig();
    const a = objectStore({ config }) as LocalObjectStore;
    expect(objectStore({ config })).toBe(a);
    expect(a.root).toBe(path.join(config.dataDir, "objects"));
    expect(objectStore({ config: await testConfig() })).not.toBe(a);
  });
});
