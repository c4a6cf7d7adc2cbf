// Worker entry for extractInWorker: extracts one document per message and replies with the result or a typed error.
import { heapSize } from "bun:jsc";
import { extract } from "./index.ts";
import { pdfiumHeapBytes } from "./pdf.ts";
import { ExtractError } from "./types.ts";
import type { WorkerReply, WorkerRequest } from "./worker-client.ts";

declare const self: Worker;

self.onmessage = async (event: MessageEvent<WorkerRequest>) => {
  let reply: WorkerReply;
  try {
    reply = { ok: true, doc: await extract(event.data.bytes, event.data.hints) };
  } catch (err) {
    reply =
      err instanceof ExtractError
        ? { ok: false, code: err.code, message: err.message }
        : { ok: false, code: "unprocessable_document", message: "the document could not be read" };
  }
  // What this worker keeps between jobs, so the pool can retire one a huge document has bloated.
  reply.heapBytes = heapSize() + pdfiumHeapBytes();
  self.postMessage(reply);
};
