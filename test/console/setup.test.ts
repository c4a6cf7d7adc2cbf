// First run in the browser: a server with no user prints a one-time setup link (stderr, for the person at the
// terminal); opened in Chromium, the setup page creates the first admin and signs in; the link then works no more.
import { afterAll, expect, test } from "bun:test";
import path from "node:path";
import type { Browser } from "playwright-core";
import { freePort, tempDir } from "../helpers";
import { browserAvailable, launchChromium } from "./browser";

const root = path.resolve(import.meta.dir, "../..");

let server: ReturnType<typeof Bun.spawn> | null = null;
let browser: Browser | null = null;

afterAll(async () => {
  await browser?.close();
  server?.kill();
});

test.skipIf(!browserAvailable)(
  "the printed setup link creates the first admin in the console, once",
  async () => {
    const build = Bun.spawnSync([process.execPath, "run", "scripts/build-console.ts"], { cwd: root, stdout: "pipe", stderr: "pipe" });
    expect(build.exitCode).toBe(0);
    const port = freePort();
    const base = `http://127.0.0.1:${port}`;
    server = Bun.spawn([process.execPath, "src/main.ts", "serve", "--port", String(port), "--data-dir", tempDir("assay-setup-")], {
      cwd: root,
      env: { ...process.env, ASSAY_PUBLIC_URL: base, ASSAY_LOG_LEVEL: "warn", ASSAY_ADMIN_EMAIL: "", ASSAY_ADMIN_PASSWORD: "" },
      stdout: "ignore",
      stderr: "pipe",
    });
    const reader = (server.stderr as ReadableStream<Uint8Array>).getReader();
    let err = "";
    const deadline = Date.now() + 15_000;
    while (!/\/console\/setup\?token=\S+\n/.test(err) && Date.now() < deadline) {
      const { value, done } = await reader.read();
      if (done) break;
      err += new TextDecoder().decode(value);
    }
    const link = /(http:\/\/\S+\/console\/setup\?token=\S+)\n/.exec(err)?.[1];
    expect(link).toStartWith(`${base}/console/setup?token=setup_`);

    browser = await launchChromium();
    const page = await browser.newPage();
    const fill = async () => {
      await page.getByLabel("Email").fill("first@example.com");
      await page.getByLabel("Password", { exact: true }).fill("a long enough passphrase");
      await page.getByLabel("Password again").fill("a long enough passphrase");
      await page.getByRole("button", { name: "Create administrator" }).click();
    };
    await page.goto(link as string);
    await fill();
    // Signed in as the new admin: the console's own navigation appears, with the admin page.
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Admin", exact: true }).waitFor();

    const login = await fetch(`${base}/v1/auth/login`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: "first@example.com", password: "a long enough passphrase" }),
    });
    expect(((await login.json()) as { user: { role: string } }).user.role).toBe("admin");

    // The same link again, in a fresh page: setup is closed, and the page says so with the request id.
    const again = await browser.newPage();
    await again.goto(link as string);
    await again.getByLabel("Email").fill("second@example.com");
    await again.getByLabel("Password", { exact: true }).fill("another long passphrase");
    await again.getByLabel("Password again").fill("another long passphrase");
    await again.getByRole("button", { name: "Create administrator" }).click();
    await again.getByRole("alert").waitFor();
    expect(await again.getByRole("alert").textContent()).toMatch(/setup_closed, HTTP 403\] — request id req_\w+/);
  },
  60_000,
);
