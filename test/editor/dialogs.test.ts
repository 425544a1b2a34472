/**
 * Every declared node's edit dialog, used as a user uses it: the node is dragged from the palette and
 * double-clicked (a configuration node is created from the "+" beside its select in a node that uses it); the
 * dialog shows a field for each property with translated labels, a bad value turns a field red, and Done (or Add)
 * closes it with the change applied. The nodes made this way are then deployed against a dev hub, and the
 * hub-config token typed into the dialog must connect them while never coming back to the page.
 * One screenshot per dialog (showing its red field) goes to test/editor/screenshots/.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import type { Locator, Response } from 'playwright-core';
import { PALETTE_CATEGORY, declaredNodes } from './support/declared-nodes';
import { inspectDialog, provokeRedField, type FieldPrefix } from './support/edit-dialog';
import { CONNECTION_TYPES } from './support/example-services';
import { itLeftNoBrowserErrors, runtimeErrors, useEditorSession, type EditorSession } from './support/editor-session';
import {
  clickCancel,
  clickDeploy,
  clickDone,
  closeAllTrays,
  dragFromPalette,
  nodeIdsOfType,
  openEditor,
  openNodeDialog,
  waitForStatuses,
  waitTrayReady,
} from './support/editor-ui';
import type { EditorNode, EditorWindow } from './support/page-types';

/**
 * Values that make a configuration node work against the session's dev hub, typed into its dialog. A new
 * configuration type declared in package.json needs an entry here (its test fails until it has one).
 */
const CONFIG_VALUES: Record<string, (session: EditorSession) => Record<string, string>> = {
  'hub-config': (session) => ({ url: session.services.hub.wsUrl, userId: 'usr_alice', token: session.services.tokens.usr_alice, deviceId: 'editor-suite', name: 'alice @ test hub' }),
};


describe('editor: the edit dialog of every declared node', function () {
  this.timeout(60_000);
  const session = useEditorSession('dialogs', { services: true });
  const declared = declaredNodes();
  const configs = new Map<string, string>();
  let placed = 0;

  // A failed test must not leave a dialog open over the next one.
  afterEach(async () => {
    await closeAllTrays(session.page);
  });

  const at = (): { x: number; y: number } => {
    const i = placed++;
    return { x: 120 + (i % 3) * 220, y: 80 + Math.floor(i / 3) * 90 };
  };

  for (const { type, category } of declared) {
    if (category === 'config') {
      it(`${type}: created from the "+" of a node that uses it; fields, a red field for a bad value, Add`, async () => {
        const page = session.page;
        const fill = CONFIG_VALUES[type];
        assert.ok(fill, `no working values for the configuration node ${type}: add them to CONFIG_VALUES in test/editor/dialogs.test.ts`);
        const users = declared.filter((n) => n.category !== 'config').map((n) => n.type);
        const host = await page.evaluate(({ t, candidates }) => {
          const { RED } = globalThis as unknown as EditorWindow;
          for (const candidate of candidates) {
            const def = RED.nodes.getType(candidate);
            const prop = def && def.category !== 'config' ? Object.keys(def.defaults).find((k) => def.defaults[k].type === t) : undefined;
            if (prop) return { type: candidate, prop };
          }
          return null;
        }, { t: type, candidates: users });
        assert.ok(host, `no node in the palette uses ${type}`);

        const hostId = await dragFromPalette(page, host.type, at());
        await openNodeDialog(page, hostId);
        await page.locator(`#node-input-btn-${host.prop}-add`).click();
        const tray = await waitTrayReady(page, '#node-config-dialog-ok');

        const values = fill(session);
        for (const [key, value] of Object.entries(values)) await page.locator(`#node-config-input-${key}`).fill(value);
        const problems = await checkFieldsAndRed(type, 'node-config-input', tray, `${type}-dialog`);

        await page.locator('#node-config-dialog-ok').click();
        await waitTrayReady(page, '#node-dialog-ok');
        const chosen = await page.locator(`#node-input-${host.prop}`).inputValue();
        assert.notEqual(chosen, '_ADD_', `${host.type}'s dialog did not select the new ${type}`);
        assert.equal(await page.locator(`#node-input-${host.prop}`).evaluate((el) => (el as unknown as { className: string }).className.includes('input-error')), false);
        await clickDone(page);

        const config = await editorNode(chosen);
        assert.equal(config?.type, type);
        for (const [key, value] of Object.entries(values)) {
          if (key !== 'token') assert.equal(config?.[key], value, `${type}.${key} after Add`);
        }
        configs.set(type, chosen);
        assert.notEqual((await editorNode(hostId))?.valid, false, `${host.type} is invalid with the new ${type}`);
        assert.deepEqual(problems, [], `the ${type} dialog`);
      });
      continue;
    }

    it(`${type}: dragged from the "${PALETTE_CATEGORY}" palette, the dialog opens with its fields, shows a bad value red, and Done applies it`, async () => {
      const page = session.page;
      const id = await dragFromPalette(page, type, at());
      const tray = await openNodeDialog(page, id);
      await chooseConfigNodes(type);
      const problems = await checkFieldsAndRed(type, 'node-input', tray, `${type}-dialog`);
      const name = `edited ${type}`;
      await page.locator('#node-input-name').fill(name);
      await clickDone(page);
      const node = await editorNode(id);
      assert.equal(node?.name, name, 'Done did not apply the name typed in the dialog');
      assert.notEqual(node?.valid, false, `${type} is invalid after Done: ${JSON.stringify(node?.validationErrors ?? [])}`);
      assert.equal(node?.changed, true);
      assert.deepEqual(problems, [], `the ${type} dialog`);
    });
  }

  it('the nodes made in the dialogs deploy with no error, and connect to the hub with the token typed into the dialog', async () => {
    const page = session.page;
    const from = session.runtimeLog.length;
    await clickDeploy(page);
    await session.waitForLog(/Started flows/, from);
    const users = (await Promise.all(CONNECTION_TYPES.map((t) => nodeIdsOfType(page, t)))).flat();
    assert.ok(users.length > 0, 'no node using the hub was made');
    await waitForStatuses(page, users, /^connected\b/);
    assert.deepEqual(runtimeErrors(session, from), []);
  });

  it('hub-config keeps the token out of the page: after a reload the editor only learns has_token (DOM, /flows, /nodes, credentials)', async () => {
    const page = session.page;
    const token = session.services.tokens.usr_alice;
    const configId = configs.get('hub-config');
    assert.ok(configId, 'the hub-config test did not create one');

    const bodies: Array<{ url: string; body: string }> = [];
    const record = async (response: Response): Promise<void> => {
      if (!/\/(flows|nodes|credentials\/|settings|locales\/)/.test(response.url())) return;
      bodies.push({ url: response.url(), body: await response.text().catch(() => '') });
    };
    const pending: Array<Promise<void>> = [];
    const onResponse = (r: Response): void => void pending.push(record(r));
    page.on('response', onResponse);
    try {
      await page.reload();
      await openEditor(page, session.url);
      const credentials = page.waitForResponse((r) => r.url().endsWith(`/credentials/hub-config/${configId}`));
      const hostId = (await nodeIdsOfType(page, 'hub-in'))[0];
      await openNodeDialog(page, hostId);
      await page.locator('#node-input-btn-hub-edit').click();
      const tray = await waitTrayReady(page, '#node-config-dialog-ok');
      assert.deepEqual(await (await credentials).json(), { has_token: true });
      assert.equal(await page.locator('#node-config-input-token').inputValue(), '__PWRD__', 'the token field shows something other than the placeholder');
      await tray.screenshot({ path: session.screenshot('hub-config-dialog-reopened') });

      const pageState = await page.evaluate((id) => {
        const w = globalThis as unknown as EditorWindow & { sessionStorage: EditorWindow['localStorage'] };
        const values = Array.from(w.document.querySelectorAll('input, textarea, select')).map((el) => (el as unknown as { value?: string }).value ?? '');
        const storage = [w.localStorage, w.sessionStorage].flatMap((s) => Array.from({ length: s.length }, (_, i) => `${s.key(i)}=${s.getItem(s.key(i) ?? '')}`));
        return { html: w.document.documentElement.outerHTML, values, storage, credentials: JSON.stringify(w.RED.nodes.node(id)?.credentials ?? null) };
      }, configId);
      assert.ok(!pageState.html.includes(token), 'the token is in the page DOM');
      assert.ok(!pageState.values.some((v) => v.includes(token)), 'the token is in a form field');
      assert.ok(!pageState.storage.some((v) => v.includes(token)), 'the token is in the browser storage');
      assert.ok(!pageState.credentials.includes(token), 'the editor holds the token in the node');

      await page.locator('#node-config-dialog-cancel').click();
      await waitTrayReady(page, '#node-dialog-ok');
      await clickCancel(page);
      await Promise.all(pending);
      for (const path of ['/flows', '/nodes']) assert.ok(bodies.some((b) => new URL(b.url).pathname === path), `the editor did not load ${path}`);
      for (const b of bodies) assert.ok(!b.body.includes(token), `the token is in the response of ${b.url}`);
    } finally {
      page.off('response', onResponse);
    }
    const nodesJson = await (await fetch(`${session.url}/nodes`, { headers: { Accept: 'application/json' } })).text();
    const flows = await (await fetch(`${session.url}/flows`, { headers: { Accept: 'application/json', 'Node-RED-API-Version': 'v2' } })).text();
    assert.ok(!nodesJson.includes(token) && !flows.includes(token), 'the token is in /nodes or /flows');
    assert.ok(!fs.readFileSync(path.join(session.userDir, 'flows.json'), 'utf8').includes(token), 'the token is in the flow file');
    assert.ok(!session.runtimeLog.some((line) => line.includes(token)), 'the token is in the runtime log');
  });

  itLeftNoBrowserErrors(session);

  async function editorNode(id: string): Promise<EditorNode | null> {
    return session.page.evaluate((nodeId) => {
      const n = (globalThis as unknown as EditorWindow).RED.nodes.node(nodeId);
      if (!n) return null;
      const plain: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(n)) if (typeof v !== 'object' || v === null || Array.isArray(v)) plain[k] = v;
      plain.validationErrors = n.validationErrors ?? [];
      return plain as EditorNode;
    }, id);
  }

  /** Picks the configuration node made earlier wherever the dialog offers one, as a user does (Node-RED 4 preselects none). */
  async function chooseConfigNodes(type: string): Promise<void> {
    for (const field of (await inspectDialog(session.page, type, 'node-input')).fields) {
      const id = field.configType ? configs.get(field.configType) : undefined;
      if (id) await session.page.locator(`[id="${field.id}"]`).selectOption(id);
    }
  }

  /**
   * Every property has a field, labels are translated, no field is red before anything is typed, and a bad value
   * turns a field red; leaves the dialog valid. Findings are returned rather than thrown at once, so that the
   * dialog is still completed (a field red from the start is then given its definition's default, as a user
   * would have to) and the later tests can run on the node it makes.
   */
  async function checkFieldsAndRed(type: string, prefix: FieldPrefix, tray: Locator, shot: string): Promise<string[]> {
    const page = session.page;
    const problems: string[] = [];
    const report = await inspectDialog(page, type, prefix);
    if (report.missing.length) problems.push(`properties with no field in the dialog: ${report.missing.join(', ')}`);
    if (report.untranslated.length) problems.push(`untranslated text: ${report.untranslated.join(', ')}`);
    const redAtStart = report.fields.filter((f) => f.visible && f.red);
    if (redAtStart.length) {
      await tray.screenshot({ path: session.screenshot(`${shot}-red-at-start`) });
      problems.push(`red before anything was typed: ${redAtStart.map((f) => f.key).join(', ')} (screenshot ${shot}-red-at-start.png)`);
      for (const field of redAtStart) {
        const value = await page.evaluate(({ t, k }) => String((globalThis as unknown as EditorWindow).RED.nodes.getType(t)?.defaults[k]?.value ?? ''), { t: type, k: field.key });
        if (field.kind === 'text') {
          await page.locator(`[id="${field.id}"]`).fill(value);
          await page.locator(`[id="${field.id}"]`).press('End');
        }
      }
    }
    const provoked = await provokeRedField(page, type, prefix);
    if (provoked) {
      await page.locator(`[id="${provoked.bad.id}"]`).scrollIntoViewIfNeeded();
      await tray.screenshot({ path: session.screenshot(shot) });
      await provoked.restore();
    } else {
      // Nothing to mistype is acceptable only when every field is a choice: checkboxes and fixed selects.
      const free = report.fields.filter((f) => f.key !== 'name' && (f.kind === 'text' || f.kind === 'password' || f.kind === 'typed' || f.configType));
      if (free.length) problems.push(`no bad value turned any of these fields red: ${free.map((f) => f.key).join(', ')}`);
      await tray.screenshot({ path: session.screenshot(shot) });
    }
    const stillRed = (await inspectDialog(page, type, prefix)).fields.filter((f) => f.visible && f.red);
    if (stillRed.length) problems.push(`red after restoring: ${stillRed.map((f) => f.key).join(', ')}`);
    return problems;
  }
});
