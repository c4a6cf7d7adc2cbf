// LocalObjectStore: objects as files under <ASSAY_DATA_DIR>/objects, written to a temp file then renamed (atomic).
import { copyFileSync, mkdirSync, readdirSync } from "node:fs";
import { mkdir, open, rename, stat, unlink } from "node:fs/promises";
import path from "node:path";
import { base62 } from "../lib/ids";
import { assertValidKey, ObjectCommitRefused, type ObjectStore, ObjectTooLargeError, type StoredObject } from "./object-store";

const TEMP_PREFIX = ".upload-";

/**
 * Copies a store's folder while a server may still write to it (`assay backup`): an upload's temp file is skipped, and
 * a file renamed or deleted between listing and copying is passed over. Stored objects never change once written, so
 * each copied file is whole.
 */
export function copyObjectsFolder(from: string, to: string): void {
  mkdirSync(to, { recursive: true });
  let entries: import("node:fs").Dirent[];
  try {
    entries = readdirSync(from, { withFileTypes: true });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return;
    throw err;
  }
  for (const entry of entries) {
    if (entry.name.startsWith(TEMP_PREFIX)) continue;
    const source = path.join(from, entry.name);
    if (entry.isDirectory()) {
      copyObjectsFolder(source, path.join(to, entry.name));
      continue;
    }
    try {
      copyFileSync(source, path.join(to, entry.name));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
    }
  }
}

export class LocalObjectStore implements ObjectStore {
  constructor(readonly root: string) {}

  private pathOf(key: string): string {
    assertValidKey(key);
    const file = path.resolve(this.root, key);
    // isValidKey already rules this out; checked again because a mistake here would expose the whole disk.
    if (!file.startsWith(path.resolve(this.root) + path.sep)) throw new Error("object key escapes the store");
    return file;
  }

  async put(
    key: string,
    stream: ReadableStream<Uint8Array>,
    opts: { maxBytes: number; commitIf?: () => boolean | Promise<boolean> },
  ): Promise<{ size: number }> {
    const file = this.pathOf(key);
    const dir = path.dirname(file);
    await mkdir(dir, { recursive: true });
    // Same folder as the target, so the final rename is atomic: readers see the old object or the new one, never half.
    const temp = path.join(dir, `${TEMP_PREFIX}${base62(16)}`);
    const handle = await open(temp, "wx", 0o600);
    const reader = stream.getReader();
    let size = 0;
    let ok = false;
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        size += value.byteLength;
        if (size > opts.maxBytes) throw new ObjectTooLargeError(opts.maxBytes);
        await handle.write(value);
      }
      await handle.sync();
      ok = true;
    } finally {
      // Released, not cancelled: a refused request body is read away by the error handler (lingering close).
      reader.releaseLock();
      await handle.close();
      if (!ok) await unlink(temp).catch(() => {});
    }
    // Asked right before the rename, which is atomic: what is on disk after it is what commitIf allowed.
    if (opts.commitIf && !(await opts.commitIf())) {
      await unlink(temp).catch(() => {});
      throw new ObjectCommitRefused(key);
    }
    await rename(temp, file);
    return { size };
  }

  async get(key: string): Promise<StoredObject | null> {
    // stat first: Bun.file() of a folder (a key prefix) must not count as an object.
    if (!(await this.stat(key))) return null;
    return Bun.file(this.pathOf(key));
  }

  async stat(key: string): Promise<{ size: number } | null> {
    try {
      const s = await stat(this.pathOf(key));
      return s.isFile() ? { size: s.size } : null;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT" || (err as NodeJS.ErrnoException).code === "ENOTDIR") return null;
      throw err;
    }
  }

  async delete(key: string): Promise<void> {
    await unlink(this.pathOf(key)).catch((err: NodeJS.ErrnoException) => {
      if (err.code !== "ENOENT") throw err;
    });
  }
}
