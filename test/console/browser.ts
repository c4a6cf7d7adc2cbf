// Debian's headless Chromium for the console's browser tests, driven by playwright-core (never a downloaded browser).
import { existsSync } from "node:fs";
import { chromium } from "playwright-core";

const CHROMIUM = "/usr/bin/chromium";

/** CI installs Debian's chromium (.ci/run) and fails without it; elsewhere a missing browser is a skip. */
export const browserAvailable = existsSync(CHROMIUM) || !!process.env.ASSAY_CI;

/** Flags that keep Chromium off the network (this machine's is closed) and out of first-run work. */
export const launchChromium = () =>
  chromium.launch({
    executablePath: CHROMIUM,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
    ],
  });
