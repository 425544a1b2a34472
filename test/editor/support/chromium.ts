/**
 * Debian's Chromium driven by playwright-core, as the design notes (NODE-RED.md, "Editor in a real browser") prescribe: headless, no sandbox (CI runs as
 * root), nothing that phones home, and a fresh profile per session so that no state leaks between runs.
 */
import fs from 'node:fs';
import { chromium, type BrowserContext } from 'playwright-core';

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Small enough that the PNGs stay small, wide enough that an edit dialog and the sidebar fit beside the workspace. */
export const VIEWPORT = { width: 1280, height: 800 };

export async function launchChromium(profileDir: string): Promise<BrowserContext> {
  if (!fs.existsSync(CHROMIUM_PATH)) {
    throw new Error(`Chromium not found at ${CHROMIUM_PATH}: install Debian's chromium package (apt-get install chromium) or set CHROMIUM_PATH`);
  }
  // playwright refuses --user-data-dir in args; a persistent context is how it takes a profile folder.
  return chromium.launchPersistentContext(profileDir, {
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: ARGS,
    viewport: VIEWPORT,
    deviceScaleFactor: 1,
    locale: 'en-US',
    timezoneId: 'UTC',
  });
}
