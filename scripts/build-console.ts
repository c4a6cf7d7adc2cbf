// Builds the web console (console/index.html → dist/console/) with Bun's bundler and prints its gzipped size.
// scripts/build.ts runs it before compiling the executable (which embeds dist/console); `npm start` runs it too.
import { readdirSync, rmSync, statSync } from "node:fs";
import path from "node:path";

const root = path.resolve(import.meta.dir, "..");
export const CONSOLE_OUT = path.join(root, "dist/console");
/** The budget for everything the browser downloads. */
const MAX_GZIP_BYTES = 300 * 1024;

export async function buildConsole(): Promise<{ files: number; bytes: number; gzipBytes: number }> {
  rmSync(CONSOLE_OUT, { recursive: true, force: true });
  const result = await Bun.build({
    entrypoints: [path.join(root, "console/index.html")],
    outdir: CONSOLE_OUT,
    target: "browser",
    minify: true,
    // Hashed names: the server may let browsers keep them for a year (only index.html is revalidated).
    naming: { entry: "[name].[ext]", chunk: "[name]-[hash].[ext]", asset: "[name]-[hash].[ext]" },
    publicPath: "/console/",
    sourcemap: "none",
  });
  if (!result.success) throw new AggregateError(result.logs, "console build failed");
  let bytes = 0;
  let gzipBytes = 0;
  const names = readdirSync(CONSOLE_OUT);
  for (const name of names) {
    const data = new Uint8Array(await Bun.file(path.join(CONSOLE_OUT, name)).arrayBuffer());
    bytes += statSync(path.join(CONSOLE_OUT, name)).size;
    gzipBytes += Bun.gzipSync(data, { level: 9 }).length;
  }
  if (gzipBytes > MAX_GZIP_BYTES) throw new Error(`console bundle is ${gzipBytes} bytes gzipped, over the ${MAX_GZIP_BYTES} budget`);
  return { files: names.length, bytes, gzipBytes };
}

if (import.meta.main) {
  const { files, bytes, gzipBytes } = await buildConsole();
  // stderr: `npm start -- <command>` runs this first, and a command's stdout is its own.
  console.error(`built dist/console: ${files} files, ${(bytes / 1024).toFixed(1)} KB, ${(gzipBytes / 1024).toFixed(1)} KB gzipped (budget 300 KB)`);
}
