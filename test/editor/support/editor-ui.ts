/**
 * What a user does in the Node-RED editor, as Playwright steps, each waiting on the editor's own state (the loader,
 * the edit tray's slide-in, RED.nodes) rather than on time.
 */
import type { Locator, Page } from 'playwright-core';
import type { EditorWindow } from './page-types';

const TIMEOUT_MS = 15_000;

export function exactText(text: string): RegExp {
  return new RegExp(`^\\s*${text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\s*$`);
}

/** Loads the editor and resolves once the loader is gone and the flows are in the workspace. */
export async function openEditor(page: Page, url: string): Promise<void> {
  await page.goto(`${url}/`);
  await page.waitForFunction(
    () => {
      const w = globalThis as unknown as EditorWindow;
      const loader = w.document.getElementById('red-ui-loading-progress');
      return !!loader && w.getComputedStyle(loader).display === 'none' && !!w.document.querySelector('.red-ui-palette-node') && !!w.RED.workspaces.active();
    },
    undefined,
    { timeout: 30_000 },
  );
}

export function paletteNode(page: Page, type: string): Locator {
  return page.locator(`.red-ui-palette-node[data-palette-type="${type}"]`).first();
}

export async function nodeIdsOfType(page: Page, type: string): Promise<string[]> {
  return page.evaluate((t) => {
    const ids: string[] = [];
    (globalThis as unknown as EditorWindow).RED.nodes.eachNode((n) => {
      if (n.type === t) ids.push(n.id);
    });
    return ids;
  }, type);
}

/** Drags a node from the palette onto the workspace, as a user adds one; resolves with its id. */
export async function dragFromPalette(page: Page, type: string, at: { x: number; y: number }): Promise<string> {
  const before = await nodeIdsOfType(page, type);
  const source = paletteNode(page, type);
  await source.scrollIntoViewIfNeeded();
  await source.dragTo(page.locator('#red-ui-workspace-chart'), { targetPosition: at });
  const handle = await page.waitForFunction(
    ({ t, known }) => {
      let found = '';
      (globalThis as unknown as EditorWindow).RED.nodes.eachNode((n) => {
        if (n.type === t && !known.includes(n.id)) found = n.id;
      });
      return found || null;
    },
    { t: type, known: before },
    { timeout: TIMEOUT_MS },
  );
  return (await handle.jsonValue()) as string;
}

/**
 * Makes the node's flow the visible one. Not by clicking its tab: the tab bar takes two clicks within 400 ms on any
 * two tabs for a double-click and opens the flow's properties, so tests that switch flows quickly would trip it.
 * Which flow is shown is not what these tests examine.
 */
export async function showFlowOf(page: Page, nodeId: string): Promise<void> {
  const z = await page.evaluate((id) => (globalThis as unknown as EditorWindow).RED.nodes.node(id)?.z ?? '', nodeId);
  if (!z) throw new Error(`node ${nodeId} is not in any flow`);
  await page.evaluate((id) => (globalThis as unknown as EditorWindow).RED.workspaces.show(id), z);
  await page.waitForFunction((id) => (globalThis as unknown as EditorWindow).RED.workspaces.active() === id, z, { timeout: TIMEOUT_MS });
  await workspaceNode(page, nodeId).waitFor({ state: 'visible', timeout: TIMEOUT_MS });
}

export function workspaceNode(page: Page, nodeId: string): Locator {
  return page.locator(`[id="${nodeId}"] .red-ui-flow-node`).first();
}

/**
 * Waits until the edit tray holding `selector` has slid in and been raised above the sidebar (the editor does both
 * on timers after it builds the form, so the form being present is not enough for a faithful screenshot).
 */
export async function waitTrayReady(page: Page, selector: string): Promise<Locator> {
  await page.locator(selector).first().waitFor({ state: 'visible', timeout: TIMEOUT_MS });
  await page.waitForFunction(
    (sel) => {
      const w = globalThis as unknown as EditorWindow;
      const tray = w.document.querySelector(sel)?.closest('.red-ui-tray');
      const stack = w.document.getElementById('red-ui-editor-stack');
      return !!tray && !!stack && w.getComputedStyle(tray).right === '0px' && w.getComputedStyle(stack).zIndex === '13';
    },
    selector,
    { timeout: TIMEOUT_MS },
  );
  return page.locator('.red-ui-tray', { has: page.locator(selector) }).last();
}

export async function waitAllTraysClosed(page: Page): Promise<void> {
  await page.waitForFunction(() => (globalThis as unknown as EditorWindow).document.querySelectorAll('#red-ui-editor-stack .red-ui-tray').length === 0, undefined, {
    timeout: TIMEOUT_MS,
  });
}

/** Double-clicks the node in its flow and resolves with the edit tray once it is in place. */
export async function openNodeDialog(page: Page, nodeId: string): Promise<Locator> {
  await showFlowOf(page, nodeId);
  await workspaceNode(page, nodeId).dblclick();
  return waitTrayReady(page, '#node-dialog-ok');
}

/** Clicks Done and waits until the tray is gone. */
export async function clickDone(page: Page): Promise<void> {
  await page.locator('#node-dialog-ok').click();
  await waitAllTraysClosed(page);
}

/** Cancels whatever edit trays are open, innermost first. */
export async function closeAllTrays(page: Page): Promise<void> {
  for (let i = 0; i < 5; i++) {
    const open = await page.locator('#red-ui-editor-stack .red-ui-tray').count();
    if (open === 0) return;
    const cancel = page.locator('#node-config-dialog-cancel, #node-dialog-cancel').filter({ visible: true }).last();
    if ((await cancel.count()) === 0) await page.keyboard.press('Escape');
    else await cancel.click();
    await page.waitForFunction((n) => (globalThis as unknown as EditorWindow).document.querySelectorAll('#red-ui-editor-stack .red-ui-tray').length < n, open, { timeout: TIMEOUT_MS }).catch(() => undefined);
  }
}

export async function clickCancel(page: Page): Promise<void> {
  await page.locator('#node-dialog-cancel').click();
  await waitAllTraysClosed(page);
}

/**
 * Clicks Deploy and resolves once the editor reports the flows deployed. If the editor asks for confirmation
 * (invalid or unknown nodes), that is a failure: a user would be stopped there.
 */
export async function clickDeploy(page: Page): Promise<void> {
  await page.locator('#red-ui-header-button-deploy').click();
  const handle = await page.waitForFunction(
    () => {
      const w = globalThis as unknown as EditorWindow;
      if (!w.RED.nodes.dirty()) return 'deployed';
      const asking = Array.from(w.document.querySelectorAll('.red-ui-notification')).find((n) => n.querySelector('button') && n.getClientRects().length > 0);
      return asking ? `the editor asked before deploying: ${asking.innerText.replace(/\s+/g, ' ').trim()}` : null;
    },
    undefined,
    { timeout: 30_000 },
  );
  const outcome = (await handle.jsonValue()) as string;
  if (outcome !== 'deployed') throw new Error(outcome);
}

/** Resolves once every listed node's status (as the editor shows it) matches `pattern`. */
export async function waitForStatuses(page: Page, nodeIds: string[], pattern: RegExp, timeout = 20_000): Promise<void> {
  try {
    await page.waitForFunction(
      ({ ids, source }) => {
        const { RED } = globalThis as unknown as EditorWindow;
        const re = new RegExp(source);
        return ids.every((id) => {
          const text = RED.nodes.node(id)?.status?.text;
          return typeof text === 'string' && re.test(RED._(text));
        });
      },
      { ids: nodeIds, source: pattern.source },
      { timeout },
    );
  } catch (err) {
    const shown = await page.evaluate((ids) => {
      const { RED } = globalThis as unknown as EditorWindow;
      return ids.map((id) => `${id}: ${JSON.stringify(RED.nodes.node(id)?.status ?? null)}`);
    }, nodeIds);
    throw new Error(`statuses did not reach ${pattern}: ${shown.join('; ')}`, { cause: err });
  }
}

/** Opens Menu ▸ Import on its Examples tab and resolves with the tab once the examples tree is shown. */
export async function openImportExamples(page: Page, packageName: string): Promise<Locator> {
  await page.locator('#red-ui-header-button-sidemenu').click();
  await page.locator('#menu-item-import').click();
  await page.locator('#red-ui-clipboard-dialog-import-tabs a[href="#red-ui-clipboard-dialog-import-tab-examples"]').click();
  const tab = page.locator('#red-ui-clipboard-dialog-import-tab-examples');
  await tab.locator('.red-ui-treeList-label-text', { hasText: exactText(packageName) }).waitFor({ state: 'visible', timeout: TIMEOUT_MS });
  return tab;
}

/** The example names listed under the package's folder (expanding it first). */
export async function listedExamples(page: Page, tab: Locator, packageName: string): Promise<string[]> {
  const folder = tab.locator('li', { has: page.locator('.red-ui-treeList-label-text', { hasText: exactText(packageName) }) }).last();
  const children = folder.locator('ol .red-ui-treeList-label-text');
  if ((await children.count()) === 0 || !(await children.first().isVisible())) {
    await tab.locator('.red-ui-treeList-label-text', { hasText: exactText(packageName) }).click();
    await children.first().waitFor({ state: 'visible', timeout: TIMEOUT_MS });
  }
  return (await children.allInnerTexts()).map((t) => t.trim());
}

export async function closeImportDialog(page: Page): Promise<void> {
  await page.locator('#red-ui-clipboard-dialog-cancel').click();
  await page.locator('#red-ui-clipboard-dialog-import-tabs').waitFor({ state: 'hidden', timeout: TIMEOUT_MS });
}

/** Import ▸ Examples ▸ package ▸ name ▸ Import; resolves once every node of `ids` is in the editor. */
export async function importExample(page: Page, packageName: string, name: string, ids: string[]): Promise<void> {
  const tab = await openImportExamples(page, packageName);
  const listed = await listedExamples(page, tab, packageName);
  if (!listed.includes(name)) throw new Error(`Import ▸ Examples ▸ ${packageName} does not list ${name} (it lists ${listed.join(', ')})`);
  await tab.locator('.red-ui-treeList-label-text', { hasText: exactText(name) }).click();
  const ok = page.locator('#red-ui-clipboard-dialog-ok');
  await ok.click();
  await page.locator('#red-ui-clipboard-dialog-import-tabs').waitFor({ state: 'hidden', timeout: TIMEOUT_MS });
  await page.waitForFunction((want) => want.every((id) => !!(globalThis as unknown as EditorWindow).RED.nodes.node(id)), ids, { timeout: TIMEOUT_MS });
}

/**
 * Shows the sidebar tab with the given id (`help`, `debug`, `config`, `info`) by clicking its button, and resolves
 * with the area its content is shown in. Two layouts: Node-RED 4 has one sidebar with a tab strip
 * (`#red-ui-tab-<id>-link-button`) over one `#red-ui-sidebar-content`; Node-RED 5 has a bar of buttons
 * (`.red-ui-sidebar-tab-bar button[data-tab-id]`) for sidebars split into sections, each section with a banner
 * naming its tab over its own `.red-ui-sidebar-content`. In both, clicking the button of the tab already shown hides
 * it, so a shown tab is left alone.
 */
export async function showSidebarTab(page: Page, id: string): Promise<Locator> {
  const isSelected = (el: unknown): boolean => (el as { classList: { contains(c: string): boolean } }).classList.contains('selected');
  const strip = page.locator(`#red-ui-tab-${id}-link-button`);
  const bar = page.locator(`.red-ui-sidebar-tab-bar button[data-tab-id="${id}"]`);
  await strip.or(bar).first().waitFor({ state: 'attached', timeout: TIMEOUT_MS });
  if ((await strip.count()) > 0) {
    if (!(await strip.evaluate(isSelected))) await strip.click();
    await page.locator(`#red-ui-tab-${id}.active`).waitFor({ state: 'attached', timeout: TIMEOUT_MS });
    return page.locator('#red-ui-sidebar-content');
  }
  if (!(await bar.evaluate(isSelected))) await bar.click();
  await page.locator(`.red-ui-sidebar-tab-bar button[data-tab-id="${id}"].selected`).waitFor({ state: 'attached', timeout: TIMEOUT_MS });
  const name = (await bar.getAttribute('aria-label')) ?? id;
  const section = page.locator('.red-ui-sidebar-section', { has: page.locator('.red-ui-sidebar-banner-label', { hasText: exactText(name) }) });
  const content = section.locator('.red-ui-sidebar-content');
  await content.waitFor({ state: 'visible', timeout: TIMEOUT_MS });
  return content;
}
