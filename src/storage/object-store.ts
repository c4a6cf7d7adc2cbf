// The ObjectStore interface every storage backend implements (local folder today, S3-compatible later) and its typed errors.

/** The upload cap of the product: 50 MB per file (spec §8). */
export const MAX_OBJECT_BYTES = 52_428_800;

export interface ObjectStore {
  /**
   * Streams `stream` into `key`, replacing any object there only once the whole body has arrived, and only if
   * `commitIf` (asked at that moment) still allows it; else nothing changes and ObjectCommitRefused is thrown.
   */
  put(key: string, stream: ReadableStream<Uint8Array>, opts: { maxBytes: number; commitIf?: () => boolean }): Promise<{ size: number }>;
  /** The object as a Blob (size, stream(), bytes()), or null if there is none. */
  get(key: string): Promise<Blob | null>;
  stat(key: string): Promise<{ size: number } | null>;
  /** Removes the object; a missing object is not an error. */
  delete(key: string): Promise<void>;
}

/** The whole body arrived, but `commitIf` said no (the upload's document was completed meanwhile); nothing was stored. */
export class ObjectCommitRefused extends Error {
  constructor(key: string) {
    super(`the upload to ${key} was not committed`);
    this.name = "ObjectCommitRefused";
  }
}

/** The body passed maxBytes while streaming; nothing was stored. */
export class ObjectTooLargeError extends Error {
  constructor(readonly maxBytes: number) {
    super(`the body is larger than ${maxBytes} bytes`);
    this.name = "ObjectTooLargeError";
  }
}

/** A key that could escape the store's folder or is otherwise malformed. */
export class InvalidKeyError extends Error {
  constructor(key: string) {
    super(`invalid object key "${key.slice(0, 100)}"`);
    this.name = "InvalidKeyError";
  }
}

const KEY = /^[A-Za-z0-9_./-]{1,512}$/;

/**
 * Keys are '/'-separated segments of [A-Za-z0-9_.-]. No absolute paths, no empty, "." or ".." segments, and no
 * segment starting with "." (that namespace holds the store's own temporary files), so a key can never name
 * anything outside the store's folder.
 */
export function isValidKey(key: string): boolean {
  if (!KEY.test(key) || key.includes("..")) return false;
  return key.split("/").every((segment) => segment.length > 0 && !segment.startsWith("."));
}

export function assertValidKey(key: string): void {
  if (!isValidKey(key)) throw new InvalidKeyError(key);
}

/** A one-chunk stream over bytes already in memory, for put(). */
export function bytesStream(bytes: Uint8Array): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      if (bytes.length) controller.enqueue(bytes);
      controller.close();
    },
  });
}
