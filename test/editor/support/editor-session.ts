/**
 * One editor session per test file: Node-RED (the one `nodeRedPackage()` selects) with this package linked into a
 * private userDir (through `launchNodeRed`, so the palette and Import ▸ Examples show what a user gets), optionally
 * the dev hub the examples talk to, and Chromium on the editor. Everything the browser and the runtime say is recorded: the browser's
 * uncaught errors and console errors (attributed to the test that was running), every request that would leave
 * 127.0.0.1 (refused), and the runtime's log lines.
 */
import { EventEmitter } from 'node:events';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { PACKAGE_ROOT, launchNodeRed, type RunningNodeRed } from '../../../demo/node-red-launcher';
import { nodeRedPackage } from '../../support/node-red-package';
import { launchChromium } from './chromium';
import { startExampleServices, type ExampleServices } from './example-services';
import { freePort } from './free-port';
import { openEditor } from './editor-ui';

export const SCREENSHOT_DIR = path.join(PACKAGE_ROOT, 'test', 'editor', 'screenshots');
const README_SCREENSHOT_DIR = path.join(PACKAGE_ROOT, 'docs', 'screenshots');

/**
 * Writes a README picture (`docs/screenshots/<name>.png`). Only a run on the devDependency's Node-RED does: the
 * pictures show the editor a `npm install` of this package is developed against, not whichever Node-RED a CI
 * leg selected.
 */
export function saveReadmeScreenshot(name: string, png: Buffer): void {
  if (!nodeRedPackage().isDevDependency) return;
  fs.mkdirSync(README_SCREENSHOT_DIR, { recursive: true });
  fs.writeFileSync(path.join(README_SCREENSHOT_DIR, `${name}.png`), png);
}

export interface BrowserProblem {
  test: string;
  kind: 'uncaught' | 'console' | 'outside request';
  text: string;
}

export interface EditorSession {
  readonly page: Page;
  readonly url: string;
  readonly userDir: string;
  readonly nodeRed: RunningNodeRed;
  /** The dev hub and MQTT broker, when the session was asked for them. */
  readonly services: ExampleServices;
  readonly runtimeLog: string[];
  readonly problems: BrowserProblem[];
  /** Where to save a screenshot named `name` (CI artifact, git-ignored). */
  screenshot(name: string): string;
  /** Resolves with the first runtime log line matching `pattern` at or after index `from` of `runtimeLog`. */
  waitForLog(pattern: RegExp, from: number, ms?: number): Promise<string>;
}

interface SessionState {
  dir: string;
  context: BrowserContext;
  page: Page;
  nodeRed: RunningNodeRed;
  services?: ExampleServices;
}

const LOCAL = /^(http|ws):\/\/127\.0\.0\.1:\d+\//;

/** Registers mocha hooks that start the session before the file's tests and stop it after them. */
export function useEditorSession(label: string, options: { services?: boolean } = {}): EditorSession {
  let state: SessionState | undefined;
  let currentTest = 'starting the editor';
  const runtimeLog: string[] = [];
  const logged = new EventEmitter();
  const problems: BrowserProblem[] = [];
  const started = (): SessionState => {
    if (!state) throw new Error('the editor session did not start (see the before all hook)');
    return state;
  };

  before(async function () {
    this.timeout(90_000);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), `editor-${label}-`));
    const services = options.services ? await startExampleServices() : undefined;
    const selected = nodeRedPackage();
    const userDir = path.join(dir, 'node-red');
    // The editor's tips off (the user setting "Show tips"): their text is random, and on Node-RED 5 their first timer
    // (1 s after the user settings load) can fire before the info sidebar has built the tip box, an uncaught
    // TypeError in the editor's own code whenever the page loads slowly.
    fs.mkdirSync(userDir, { recursive: true });
    fs.writeFileSync(path.join(userDir, '.config.users.json'), JSON.stringify({ _: { editor: { view: { 'view-show-tips': false } } } }));
    const nodeRed = await launchNodeRed({
      redJs: selected.redJs,
      userDir,
      port: await freePort(),
      onLog: (line) => {
        runtimeLog.push(line);
        logged.emit('line', line);
      },
    });
    // The run must be on the selected Node-RED: the suite's page assumptions differ between 4 and 5.
    const announced = runtimeLog.map((l) => /Node-RED version: v(\S+)/.exec(l)?.[1]).find(Boolean);
    if (announced?.replace(/-git$/, '') !== selected.version) {
      await nodeRed.stop();
      await services?.stop();
      throw new Error(`the editor's runtime announced Node-RED ${announced ?? '(no version)'}, not the selected ${selected.version} (${selected.dir})`);
    }
    const context = await launchChromium(path.join(dir, 'chromium-profile'));
    state = { dir, context, nodeRed, services, page: context.pages()[0] ?? (await context.newPage()) };
    await context.route('**/*', (route) => {
      const url = route.request().url();
      if (LOCAL.test(url) || url.startsWith('data:') || url.startsWith('blob:')) return route.continue();
      problems.push({ test: currentTest, kind: 'outside request', text: url });
      return route.abort('blockedbyclient');
    });
    const page = state.page;
    // Every wait in the suite is on editor state that settles in well under a second; a step that takes longer has failed.
    page.setDefaultTimeout(15_000);
    page.on('pageerror', (err) => problems.push({ test: currentTest, kind: 'uncaught', text: err.stack ?? err.message }));
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push({ test: currentTest, kind: 'console', text: message.text() });
    });
    fs.mkdirSync(SCREENSHOT_DIR, { recursive: true });
    await openEditor(page, nodeRed.url);
  });

  beforeEach(function () {
    currentTest = this.currentTest?.fullTitle() ?? 'unknown test';
  });

  // What the editor looked like when a test failed: the first thing to look at in the CI artifacts.
  afterEach(async function () {
    if (this.currentTest?.state !== 'failed' || !state) return;
    const name = `failed-${this.currentTest.title.replace(/[^\w-]+/g, '-').slice(0, 60)}`;
    await state.page.screenshot({ path: path.join(SCREENSHOT_DIR, `${name}.png`) }).catch(() => undefined);
  });

  after(async function () {
    this.timeout(60_000);
    if (!state) return;
    const { context, nodeRed, services, dir } = state;
    state = undefined;
    await context.close().catch(() => undefined);
    await nodeRed.stop();
    await services?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  return {
    get page() {
      return started().page;
    },
    get url() {
      return started().nodeRed.url;
    },
    get userDir() {
      return path.join(started().dir, 'node-red');
    },
    get nodeRed() {
      return started().nodeRed;
    },
    get services() {
      const services = started().services;
      if (!services) throw new Error('this session was started without the example services');
      return services;
    },
    runtimeLog,
    problems,
    screenshot: (name) => path.join(SCREENSHOT_DIR, `${name}.png`),
    waitForLog: (pattern, from, ms = 20_000) =>
      new Promise<string>((resolve, reject) => {
        const seen = runtimeLog.slice(from).find((l) => pattern.test(l));
        if (seen) return resolve(seen);
        const timer = setTimeout(() => {
          logged.off('line', onLine);
          reject(new Error(`the runtime did not log ${pattern}; since then it logged:\n${runtimeLog.slice(from).join('\n')}`));
        }, ms);
        const onLine = (line: string): void => {
          if (!pattern.test(line)) return;
          clearTimeout(timer);
          logged.off('line', onLine);
          resolve(line);
        };
        logged.on('line', onLine);
      }),
  };
}

/** The last test of a file: nothing went wrong in the browser while the file's tests ran. */
export function itLeftNoBrowserErrors(session: EditorSession): void {
  it('left no uncaught error or console error in the browser, and fetched nothing outside 127.0.0.1', () => {
    if (session.problems.length === 0) return;
    const lines = session.problems.map((p) => `  [${p.kind}] during "${p.test}": ${p.text.split('\n').slice(0, 4).join(' | ')}`);
    throw new Error(`the browser reported ${session.problems.length} problem(s):\n${lines.join('\n')}`);
  });
}

/** Runtime log lines at `[error]` level since `from` (an index into `session.runtimeLog`). */
export function runtimeErrors(session: EditorSession, from = 0): string[] {
  return session.runtimeLog.slice(from).filter((line) => /\[error\]/.test(line));
}
