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
  return pino(options, stdoutSink());
}

/**
 * Lines go to stdout through Bun's native buffered writer (a FileSink), 64 kB at a time and at least every 250 ms.
 * It costs a request line about 0.3 µs where pino's own destination (sonic-boom, with our batching in front) cost 0.6:
 * under Bun, sonic-boom measures its pending buffer on every write and issues a write per call. Order is kept:
 * pino's lines and the request lines all go through here. Pipes, files and /dev/null are all written without blocking
 * the server on a slow reader; the writer does not keep the process alive.
 */
function stdoutSink() {
  const sink = Bun.stdout.writer({ highWaterMark: 64 * 1024 });
  sink.unref();
  // A reader that went away (EPIPE: the pipe's other end closed) takes the log with it, not the server: the writer
  // throws, and from then on lines are dropped instead of thrown at whatever request or timer wrote them.
  let gone = false;
  const guarded = <T>(write: () => T): T | undefined => {
    if (gone) return undefined;
    try {
      return write();
    } catch {
      gone = true;
      return undefined;
    }
  };
  setInterval(() => guarded(() => sink.flush()), 250).unref();
  // A process that exits (a CLI command, a second signal) writes what it has: synchronous to files and /dev/null, and
  // to a pipe with room in it.
  process.on("exit", () => guarded(() => sink.flush()));
  return {
    write(line: string) {
      guarded(() => sink.write(line));
    },
    flush(cb?: (err?: Error) => void) {
      Promise.resolve(guarded(() => sink.flush())).then(
        () => cb?.(),
        () => {
          gone = true;
          cb?.();
        },
      );
    },
    flushSync() {
      guarded(() => sink.flush());
    },
  };
}

/** A secret in the startup configuration line: whether it is set, never its value. */
export const mask = (value: string | null): string | null => (value ? "[set]" : null);

const streamOf = (log: Logger) => (log as unknown as Record<symbol, { write(line: string): void }>)[pino.symbols.streamSym];

/** The fields of a request's log line; ids are [A-Za-z0-9_] by construction, so only the route needs quoting. */
export interface RequestFields {
  requestId: string;
  method: string;
  route: string;
  status: number;
  durationMs: number;
  keyId?: string;
  userId?: string;
  workspaceId?: string;
}

/**
 * The one line per request, written straight to pino's stream as a string: it runs on every request, where pino's
 * own serialisation (and building an object to stringify) was most of the log's cost. Same JSON shape as pino's lines.
 */
export function requestLine(log: Logger, f: RequestFields): void {
  if (!log.isLevelEnabled("info")) return;
  let line = `{"level":"info","time":"${isoNow()}","request_id":"${f.requestId}","method":"${f.method}","route":${JSON.stringify(f.route)},"status":${f.status},"duration_ms":${f.durationMs}`;
  if (f.keyId !== undefined) line += `,"key_id":"${f.keyId}"`;
  if (f.userId !== undefined) line += `,"user_id":"${f.userId}","workspace_id":"${f.workspaceId}"`;
  streamOf(log).write(`${line}}\n`);
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
