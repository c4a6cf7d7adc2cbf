// The structured log (pino): one JSON line per request and per notable event on stdout, human-readable when stdout is
// a terminal. Fields are snake_case like the API's. Credentials and document text are never logged: callers pass ids,
// and the redaction below is the safety net for a field that slips through.
import pino, { type Logger } from "pino";

export type { Logger };

export const LOG_LEVELS = ["debug", "info", "warn", "error", "silent"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

// Top-level and one level down (the startup line's config): wildcard paths ("*.token") cost 5 µs on every line.
const SECRET_FIELDS = ["authorization", "token", "password", "secret", "signature", "api_key", "cookie"];
const REDACT = [...SECRET_FIELDS, ...["secret", "adminPassword"].map((f) => `config.${f}`)];

/** `pretty` defaults to whether stdout is a terminal; `destination` (a file descriptor or stream) is for tests. */
export function createLogger(level: LogLevel, opts: { pretty?: boolean; destination?: pino.DestinationStream } = {}): Logger {
  const options: pino.LoggerOptions = {
    level,
    base: undefined,
    timestamp: () => `,"time":"${isoNow()}"`,
    formatters: { level: (label) => ({ level: label }) },
    redact: { paths: REDACT, censor: "[redacted]" },
  };
  if (level === "silent") return pino(options);
  if (opts.destination) return pino(options, opts.destination);
  if (opts.pretty ?? process.stdout.isTTY === true) {
    // Loaded only for a terminal: servers under systemd or Docker never pay for it.
    const pretty: typeof import("pino-pretty") = require("pino-pretty");
    return pino(options, pretty({ sync: true, translateTime: "SYS:HH:MM:ss.l", ignore: "pid,hostname" }));
  }
  return pino(options, batched(pino.destination({ dest: 1, sync: false, maxWrite: 1024 * 1024 })));
}

const BATCH_CHARS = 64 * 1024;

/**
 * Lines are handed to pino's destination (sonic-boom, asynchronous writes) 64 kB at a time, and at least every
 * 250 ms: sonic-boom measures its pending buffer on every write and issues a write per call, which cost a busy
 * server a tenth of its time under Bun when done per line. Order is kept: every line goes through here.
 */
function batched(destination: pino.DestinationStream & { flush(cb?: (err?: Error) => void): void; flushSync(): void }) {
  let parts: string[] = [];
  let size = 0;
  const drain = () => {
    if (size === 0) return;
    destination.write(parts.join(""));
    parts = [];
    size = 0;
  };
  setInterval(drain, 250).unref();
  return {
    write(line: string) {
      parts.push(line);
      size += line.length;
      if (size >= BATCH_CHARS) drain();
    },
    flush(cb?: (err?: Error) => void) {
      drain();
      destination.flush(cb);
    },
    flushSync() {
      drain();
      destination.flushSync();
    },
  };
}

/** A secret in the startup configuration line: whether it is set, never its value. */
export const mask = (value: string | null): string | null => (value ? "[set]" : null);

/**
 * The request log's fast path: one info line serialised by JSON.stringify and handed to the logger's own destination
 * (buffered like every other line, pretty on a terminal). pino's per-field serialiser costs about 4 µs a line under
 * Bun, a fifth of a cheap authenticated GET; this costs about 1 µs. Only for lines of ids, strings and numbers the
 * caller builds itself: nothing here is redacted.
 */
export function infoLine(log: Logger, fields: Record<string, string | number>): void {
  if (!log.isLevelEnabled("info")) return;
  const stream = (log as unknown as Record<symbol, { write(line: string): void }>)[pino.symbols.streamSym];
  stream.write(`{"level":"info","time":"${isoNow()}",${JSON.stringify(fields).slice(1)}\n`);
}

// The time as ISO 8601, formatted once per millisecond (a busy server logs many lines in each).
let lastMs = 0;
let lastIso = "";
function isoNow(): string {
  const now = Date.now();
  if (now !== lastMs) {
    lastMs = now;
    lastIso = new Date(now).toISOString();
  }
  return lastIso;
}
