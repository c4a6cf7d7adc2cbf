// `assay push-objects`: copies a data folder's objects/ into the configured S3 store, key for key (the file path under
// objects/ is the key), so a server can switch to ASSAY_OBJECT_STORE without losing a stored file.
import { readdirSync } from "node:fs";
import path from "node:path";
import { LocalObjectStore } from "./local";
import { isValidKey, type ObjectStore } from "./object-store";

/** Every key under `root` (files only; the store's own temporary ".upload-*" files and anything not a key are left out). */
function localKeys(root: string): string[] {
  const out: string[] = [];
  const walk = (dir: string, prefix: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const key = prefix + entry.name;
      if (entry.isDirectory()) walk(path.join(dir, entry.name), `${key}/`);
      else if (entry.isFile() && isValidKey(key)) out.push(key);
    }
  };
  walk(root, "");
  return out.sort();
}

/**
 * Copies each object of the local store at `root` missing from `target` (or there with another size), streamed.
 * Safe to run again: what is already there is skipped, so a second run right before switching copies only what changed.
 */
export async function pushObjects(
  root: string,
  target: ObjectStore,
  opts: { dryRun?: boolean; onCopy?: (key: string) => void } = {},
): Promise<{ copied: number; skipped: number; bytes: number }> {
  const local = new LocalObjectStore(root);
  let copied = 0;
  let skipped = 0;
  let bytes = 0;
  for (const key of localKeys(root)) {
    const source = await local.get(key);
    if (!source) continue; // removed meanwhile
    const there = await target.stat(key);
    if (there && there.size === source.size) {
      skipped++;
      continue;
    }
    if (!opts.dryRun) await target.put(key, source.stream(), { maxBytes: source.size });
    opts.onCopy?.(key);
    copied++;
    bytes += source.size;
  }
  return { copied, skipped, bytes };
}
