// Waiting for a stream that refused a write (write() answered false) to take writes again.
import type { Writable } from "node:stream";

/** Resolves when the stream drains or is gone; the other listener is removed too (left, one piles up per wait). */
export function drained(stream: Writable): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      stream.off("drain", done);
      stream.off("close", done);
      resolve();
    };
    stream.on("drain", done);
    stream.on("close", done);
  });
}
