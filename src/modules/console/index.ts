// Routes: GET / (redirect), GET /console and /console/* — the web console's static files (issue 15).
// The console is a browser app that talks to the public /v1 API only; this module just hands out its files.
// Compiled executable: dist/console is embedded with `bun build --compile --asset` (scripts/build.ts) and appears as
// `console/` beside the bundle. From source: dist/console as `npm run build:console` (or `npm start`) left it.
import { existsSync, readdirSync } from "node:fs";
import path from "node:path";
import { Elysia } from "elysia";

// The console runs no inline script or style and talks to its own origin only; signed upload and download URLs are
// same-origin paths too (the console strips their host), so connect-src 'self' suffices.
const CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join("; ");

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".woff2": "font/woff2",
};

/** The folder holding the built console: embedded in the executable first, then the source checkout's dist/. */
function consoleDir(): string | null {
  const candidates = [path.join(import.meta.dir, "console"), path.resolve(import.meta.dir, "../../../dist/console")];
  return candidates.find((dir) => existsSync(path.join(dir, "index.html"))) ?? null;
}

/** name → path of every built file; only these names are ever served (no path from the request reaches the disk). */
function listFiles(dir: string | null): Map<string, string> {
  const files = new Map<string, string>();
  if (dir) for (const name of readdirSync(dir)) files.set(name, path.join(dir, name));
  return files;
}

const HEADERS = { "content-security-policy": CSP, "x-content-type-options": "nosniff", "referrer-policy": "no-referrer" };

export const consoleRoutes = () => {
  let files: Map<string, string> | null = null;
  // Read lazily: from source, `npm run build:console` may run after the server started.
  const fileMap = () => {
    if (!files?.size) files = listFiles(consoleDir());
    return files;
  };

  const page = () => {
    const index = fileMap().get("index.html");
    if (!index) {
      return new Response("The console is not built: run `npm run build:console` (npm start and npm run build do it).\n", {
        status: 503,
        headers: { "content-type": "text/plain; charset=utf-8", "cache-control": "no-store" },
      });
    }
    // no-cache: the page names the hashed assets of the current build, so it is revalidated every time.
    return new Response(Bun.file(index), { headers: { ...HEADERS, "content-type": TYPES[".html"], "cache-control": "no-cache" } });
  };

  const asset = (name: string) => {
    const file = fileMap().get(name);
    if (!file || name === "index.html") return page(); // a console path (/console/runs/…): the app routes it
    const type = TYPES[path.extname(name)] ?? "application/octet-stream";
    // Hashed names never change content: a year, immutable.
    return new Response(Bun.file(file), { headers: { ...HEADERS, "content-type": type, "cache-control": "public, max-age=31536000, immutable" } });
  };

  const hide = { detail: { hide: true } };
  return new Elysia({ name: "console" })
    .get("/", ({ redirect }) => redirect("/console", 302), hide)
    .get("/console", page, hide)
    .get("/console/*", ({ params }) => asset(params["*"]), hide);
};
