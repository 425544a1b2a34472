/**
 * One web UI session for a test file: a real gateway with a simulated radio on 127.0.0.1 port 0 and Debian's
 * Chromium on a fresh profile, with every console error, warning and page error collected (a CSP violation is a
 * console error), so each test can assert the page stayed clean.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { Gateway, type GatewayOptions } from '../../../gateway/gateway';
import type { SimulatedRadio } from '../../../gateway/radios/simulated/simulated-radio';
import { identityFromSeed } from '../../../gateway/radios/mesh-identity';
import { launchChromium } from '../../editor/support/chromium';
import { testConfig } from '../../gateway/support/config';
import { tempDir } from '../../gateway/support/gateway';

export const RADIO = 'sim0';

/** The address a simulated peer `id` of the radio gets (its identity is seeded by radio and id). */
export function simAddress(id: string): string {
  return identityFromSeed(`clawling-sim:${RADIO}:${id}`).address;
}

export interface UiSession {
  gateway: Gateway;
  radio: SimulatedRadio;
  page: Page;
  problems: string[];
  url(rel: string): string;
  close(): Promise<void>;
}

export async function openUiSession(prefix: string, overrides: Record<string, unknown>, options: GatewayOptions = {}): Promise<UiSession> {
  const dir = tempDir(prefix);
  const config = testConfig(path.join(dir, 'state'), { http: { enabled: true, port: 0 }, ...overrides });
  const gateway = new Gateway(config, options);
  let context: BrowserContext | undefined;
  try {
    await gateway.start();
    context = await launchChromium(path.join(dir, 'chromium-profile'));
  } catch (err) {
    await gateway.stop('test');
    fs.rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  const page = context.pages()[0] ?? (await context.newPage());
  const problems: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error' || m.type() === 'warning') problems.push(`${m.type()}: ${m.text()}`);
  });
  page.on('pageerror', (err) => problems.push(`pageerror: ${err.message}`));
  const ctx = context;
  return {
    gateway,
    radio: gateway.radios[0] as SimulatedRadio,
    page,
    problems,
    url: (rel) => `${gateway.statusUrl}/${rel}`,
    close: async () => {
      await ctx.close();
      await gateway.stop('test');
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
