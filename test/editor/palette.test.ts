/**
 * The package as a user first meets it in the editor: every node package.json declares is loaded by the runtime,
 * sits in the palette under "clawling" with its own icon and label and a tooltip that is its help's first
 * paragraph, and its help panel follows Node-RED's help style guide. Screenshots of the palette and of each help
 * panel go to test/editor/screenshots/; the palette one also to docs/screenshots/ for the README.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { PACKAGE_ROOT } from '../../demo/node-red-launcher';
import { PACKAGE_NAME, PALETTE_CATEGORY, declaredNodes } from './support/declared-nodes';
import { itLeftNoBrowserErrors, saveReadmeScreenshot, useEditorSession } from './support/editor-session';
import { paletteNode } from './support/editor-ui';
import { helpLabel, helpStyleProblems, openHelp, readHelp } from './support/help-panel';
import type { EditorWindow } from './support/page-types';

interface NodeSet {
  id: string;
  name: string;
  module: string;
  types: string[];
  enabled?: boolean;
  err?: string;
}

interface PaletteEntry {
  defined: boolean;
  category: string | null;
  inputs: number;
  outputs: number;
  container: string | null;
  label: string | null;
  shown: string;
  icon: string;
}

const I18N_KEY = /^[\w@/-]+:|^[a-z][\w-]*\.[a-z][\w.-]*$/;

describe('editor: palette and help of every declared node', function () {
  this.timeout(60_000);
  const session = useEditorSession('palette');
  const declared = declaredNodes();

  it('package.json declares node types, and the runtime loaded every one of them without error', async () => {
    assert.ok(declared.length > 0, 'package.json node-red.nodes is empty');
    const response = await fetch(`${session.url}/nodes`, { headers: { Accept: 'application/json' } });
    assert.equal(response.status, 200);
    const sets = ((await response.json()) as NodeSet[]).filter((s) => s.module === PACKAGE_NAME);
    const problems: string[] = [];
    for (const { type, file } of declared) {
      const set = sets.find((s) => s.name === type);
      if (!set) problems.push(`${type}: Node-RED did not load ${file} at all`);
      else if (set.err) problems.push(`${type}: Node-RED could not load ${file}: ${set.err}`);
      else if (set.enabled === false) problems.push(`${type}: disabled`);
      else if (!set.types.includes(type)) problems.push(`${type}: ${file} registers ${JSON.stringify(set.types)}, not "${type}"`);
    }
    assert.deepEqual(problems, []);
  });

  it(`screenshot of the "${PALETTE_CATEGORY}" palette category (also docs/screenshots/palette.png)`, async () => {
    // Taken before any palette node is hovered, so that the picture is the same from run to run.
    const category = page().locator(`#red-ui-palette-container-${PALETTE_CATEGORY}`);
    await category.scrollIntoViewIfNeeded();
    const shot = await category.screenshot({ path: session.screenshot('palette') });
    saveReadmeScreenshot('palette', shot);
    const count = await category.locator('.red-ui-palette-node').count();
    assert.equal(count, declared.filter((n) => n.category !== 'config').length, 'the category holds other nodes than the declared ones');
  });

  for (const { type, category } of declared) {
    if (category === 'config') {
      it(`${type}: a configuration node, kept out of the palette and listed in the help`, async () => {
        const def = await page().evaluate((t) => (globalThis as unknown as EditorWindow).RED.nodes.getType(t)?.category ?? null, type);
        assert.equal(def, 'config', `the editor has no configuration node "${type}"`);
        assert.equal(await paletteNode(page(), type).count(), 0);
      });
    } else {
      it(`${type}: in the palette under "${PALETTE_CATEGORY}" with its own icon and label, and its help's first paragraph as tooltip`, async () => {
        const entry = await paletteEntry(type);
        assert.ok(entry.defined, `the editor has no definition of "${type}" (its .html did not register it)`);
        assert.equal(entry.category, PALETTE_CATEGORY);
        assert.equal(entry.container, `red-ui-palette-container-${PALETTE_CATEGORY}`, 'the palette shows it under another category');
        assert.ok(entry.label && entry.shown.replace(/\s+/g, ' ') === entry.label, `palette label ${JSON.stringify(entry.shown)} vs ${JSON.stringify(entry.label)}`);
        assert.doesNotMatch(entry.label, I18N_KEY, 'the palette label is an untranslated message key');

        assert.equal(entry.icon, `icons/${PACKAGE_NAME}/${type}.svg`, `the palette icon is ${entry.icon}, not the package's icons/${type}.svg`);
        assert.ok(fs.existsSync(path.join(PACKAGE_ROOT, 'icons', `${type}.svg`)), `icons/${type}.svg is missing from the package`);
        const icon = await fetch(`${session.url}/${entry.icon}`);
        assert.equal(icon.status, 200);
        assert.match(String(icon.headers.get('content-type')), /image\/svg\+xml/);
        assert.match(await icon.text(), /<svg[^>]*viewBox=/);

        const tooltip = await hoverTooltip(type);
        const help = await page().evaluate((t) => {
          return (globalThis as unknown as EditorWindow).RED.nodes.getNodeHelp(t) ?? '';
        }, type);
        const firstParagraph = /<p>([\s\S]*?)<\/p>/.exec(help)?.[1]?.replace(/<[^>]+>/g, '').replace(/\s+/g, ' ').trim();
        assert.ok(firstParagraph, `the help of ${type} has no first <p>`);
        assert.equal(tooltip.title, entry.label);
        assert.equal(tooltip.text, firstParagraph);
      });
    }
  }

  for (const { type } of declared) {
    it(`${type}: the help panel follows the style guide (tooltip paragraph, Inputs, Outputs, Details, msg properties with types)`, async () => {
      await openHelp(page(), PACKAGE_NAME, type);
      const label = await helpLabel(page(), type);
      const help = await readHelp(page(), label);
      assert.ok(help, `the help panel shows nothing for ${type}`);
      await page().locator('#red-ui-sidebar').screenshot({ path: session.screenshot(`${type}-help`) });
      const ports = await page().evaluate((t) => {
        const def = (globalThis as unknown as EditorWindow).RED.nodes.getType(t);
        return { inputs: def?.inputs ?? 0, outputs: def?.outputs ?? 0 };
      }, type);
      assert.deepEqual(helpStyleProblems(help, ports), []);
    });
  }

  itLeftNoBrowserErrors(session);

  function page(): typeof session.page {
    return session.page;
  }

  async function paletteEntry(type: string): Promise<PaletteEntry> {
    return page().evaluate((t) => {
      const w = globalThis as unknown as EditorWindow;
      const def = w.RED.nodes.getType(t);
      const el = w.document.querySelector(`.red-ui-palette-node[data-palette-type="${t}"]`);
      const icon = el?.querySelector('.red-ui-palette-icon');
      const background = icon ? ((icon as unknown as { style: { backgroundImage: string } }).style.backgroundImage ?? '') : '';
      return {
        defined: !!def,
        category: def?.category ?? null,
        inputs: def?.inputs ?? 0,
        outputs: def?.outputs ?? 0,
        container: el?.closest('.red-ui-palette-category')?.id ?? null,
        label: el?.getAttribute('data-palette-label') ?? null,
        shown: el?.querySelector('.red-ui-palette-label')?.innerText ?? '',
        icon: /url\("?([^")]+)"?\)/.exec(background)?.[1] ?? '',
      };
    }, type);
  }

  /** Hovers the palette node and reads the popover Node-RED builds from the help: bold label, then the first paragraph. */
  async function hoverTooltip(type: string): Promise<{ title: string; text: string }> {
    const node = paletteNode(page(), type);
    await node.scrollIntoViewIfNeeded();
    await node.hover();
    const popover = page()
      .locator('.red-ui-popover')
      .filter({ hasText: `${PACKAGE_NAME} : ${type}` })
      .last();
    await popover.waitFor({ state: 'visible', timeout: 10_000 });
    const paragraphs = (await popover.locator('.red-ui-popover-content p').allInnerTexts()).map((t) => t.replace(/\s+/g, ' ').trim());
    await page().mouse.move(700, 400);
    return { title: paragraphs[0] ?? '', text: paragraphs[1] ?? '' };
  }
});
