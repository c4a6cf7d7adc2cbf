// Where a Worker's entry file is: beside its caller as .ts under `bun run`/`bun test`, and inside the compiled binary
// embedded as .js under the entrypoints' common root (the file must be an extra entrypoint of `bun build --compile`,
// see scripts/build.ts, or the worker silently never loads).
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** `callerUrl`: the caller's import.meta.url; `file`: "./worker.ts"; `embedded`: where the binary may hold it. */
export function workerUrl(callerUrl: string, file: string, embedded: string[]): string {
  const beside = new URL(file, callerUrl);
  if (existsSync(fileURLToPath(beside))) return beside.href;
  const root = dirname(fileURLToPath(callerUrl));
  for (const candidate of embedded) {
    const path = join(root, candidate);
    if (existsSync(path)) return path;
  }
  return beside.href; // not embedded: the worker fails to start and its caller reports the failure
}
