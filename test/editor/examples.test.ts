/**
 * Every file in examples/ as a user gets it: listed under Import ▸ Examples ▸ @clawling/node-red-mesh, imported
 * through that dialog, its hub-config nodes given the hub's address and a token through their own dialog (what
 * each example's comment asks for), deployed with no error in the runtime log, the hub nodes connected, and one
 * flow run from its inject button. A screenshot of a deployed flow goes to docs/screenshots/flow.png.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { PACKAGE_NAME, exampleNames, readExample, type FlowNode } from './support/declared-nodes';
import { README_SCREENSHOT_DIR, itLeftNoBrowserErrors, runtimeErrors, useEditorSession } from './support/editor-session';
import {
  clickDeploy,
  clickDone,
  closeAllTrays,
  closeImportDialog,
  importExample,
  listedExamples,
  openImportExamples,
  openNodeDialog,
  showFlowOf,
  showSidebarTab,
  waitForStatuses,
  waitTrayReady,
  workspaceNode,
} from './support/editor-ui';
import type { EditorWindow } from './support/page-types';

/** The example shown in the README: the relay from a mesh frame to a chat, with both sides of the package. */
const README_FLOW = 'hub-mesh-relay';
/** The example run from its inject button: it needs nothing outside Node-RED. */
const RUN_FLOW = 'mesh-encode-decode';

describe('editor: every example imports through Import ▸ Examples and deploys', function () {
  this.timeout(60_000);
  const session = useEditorSession('examples', { hub: true });
  const names = exampleNames();
  const imported = new Set<string>();
  let deployedFrom = -1;

  afterEach(async () => {
    await closeAllTrays(session.page);
  });

  it('Import ▸ Examples ▸ @clawling/node-red-mesh lists exactly the files in examples/', async () => {
    assert.ok(names.length > 0, 'examples/ holds no flow');
    const tab = await openImportExamples(session.page, PACKAGE_NAME);
    const listed = await listedExamples(session.page, tab, PACKAGE_NAME);
    await closeImportDialog(session.page);
    assert.deepEqual([...listed].sort(), names);
  });

  for (const name of names) {
    it(`${name}: imports, every node valid and in the example's own flow`, async () => {
      const flow = readExample(name);
      await importExample(session.page, PACKAGE_NAME, name, flow.map((n) => n.id));
      const nodes = await session.page.evaluate((ids) => {
        const { RED } = globalThis as unknown as EditorWindow;
        return ids.map((id) => {
          const n = RED.nodes.node(id);
          return { id, type: n?.type, valid: n?.valid, errors: n?.validationErrors ?? [] };
        });
      }, flow.filter((n) => n.type !== 'tab').map((n) => n.id));
      const invalid = nodes.filter((n) => n.valid === false).map((n) => `${n.type} ${n.id}: ${n.errors.join(', ')}`);
      assert.deepEqual(invalid, [], `nodes of ${name} the editor marks invalid`);
      imported.add(name);
    });
  }

  it("each example's hub-config is given the hub's address and its user's token in the hub-config dialog", async () => {
    const page = session.page;
    for (const name of names.filter((n) => imported.has(n))) {
      const flow = readExample(name);
      for (const config of flow.filter((n) => n.type === 'hub-config')) {
        const user = flow.find((n) => n.hub === config.id && n.type !== 'hub-config');
        assert.ok(user, `${name}: no node uses ${config.id}`);
        const token = session.hub.tokens[String(config.userId)];
        assert.ok(token, `${name}: ${config.userId} is not one of the example users`);
        await openNodeDialog(page, user.id);
        await page.locator('#node-input-btn-hub-edit').click();
        await waitTrayReady(page, '#node-config-dialog-ok');
        await page.locator('#node-config-input-url').fill(session.hub.hub.wsUrl);
        await page.locator('#node-config-input-token').fill(token);
        await page.locator('#node-config-dialog-ok').click();
        await waitTrayReady(page, '#node-dialog-ok');
        await clickDone(page);
      }
    }
  });

  it('all examples deploy with no error in the runtime log, and every hub node connects', async () => {
    const missing = names.filter((n) => !imported.has(n));
    assert.deepEqual(missing, [], 'examples that did not import');
    const page = session.page;
    const from = session.runtimeLog.length;
    await clickDeploy(page);
    await session.waitForLog(/Started flows/, from);
    deployedFrom = from;
    const hubUsers = names.flatMap((name) => readExample(name).filter((n) => n.type === 'hub-in' || n.type === 'hub-out'));
    await waitForStatuses(
      page,
      hubUsers.map((n) => n.id),
      /^connected\b/,
    );
    assert.deepEqual(runtimeErrors(session, from), []);
  });

  it(`${RUN_FLOW} runs from its inject button: the frame and the decoded message reach the debug sidebar`, async () => {
    assert.ok(names.includes(RUN_FLOW), `examples/${RUN_FLOW}.json is gone: pick another flow to run here`);
    assert.ok(deployedFrom >= 0, 'the examples were not deployed');
    const page = session.page;
    const flow = readExample(RUN_FLOW);
    const inject = flow.find((n) => n.type === 'inject' && n.name === 'door opened') as FlowNode;
    await showSidebarTab(page, 'debug');
    await showFlowOf(page, inject.id);
    await page.locator(`[id="${inject.id}"] .red-ui-flow-node-button`).click();
    const debugNames = flow.filter((n) => n.type === 'debug' && (n.name === 'frame' || n.name === 'message')).map((n) => String(n.name));
    for (const debugName of debugNames) {
      await page
        .locator('#red-ui-sidebar-content .red-ui-debug-msg .red-ui-debug-msg-name', { hasText: debugName })
        .first()
        .waitFor({ state: 'visible', timeout: 10_000 });
    }
    const messages = await page.locator('#red-ui-sidebar-content .red-ui-debug-msg').allInnerTexts();
    assert.ok(
      messages.some((m) => /sender/.test(m) && /content/.test(m)),
      `no decoded message object in the debug sidebar: ${messages.join(' | ').slice(0, 300)}`,
    );
    assert.deepEqual(runtimeErrors(session, deployedFrom), []);
  });

  it(`screenshot of the deployed ${README_FLOW} flow with its statuses (docs/screenshots/flow.png)`, async () => {
    assert.ok(names.includes(README_FLOW), `examples/${README_FLOW}.json is gone: pick another flow for the README`);
    const page = session.page;
    const flow = readExample(README_FLOW);
    const placedNodes = flow.filter((n) => n.type !== 'tab' && typeof n.x === 'number');
    await showSidebarTab(page, 'info');
    await showFlowOf(page, placedNodes[0].id);
    await workspaceNode(page, placedNodes[0].id).waitFor({ state: 'visible' });
    const boxes: Array<{ x: number; y: number; width: number; height: number }> = [];
    for (const n of placedNodes) {
      const box = await page.locator(`[id="${n.id}"]`).boundingBox();
      assert.ok(box, `${n.type} ${n.id} is not on screen`);
      boxes.push(box);
    }
    const chart = await page.locator('#red-ui-workspace-chart').boundingBox();
    assert.ok(chart, 'the workspace is not on screen');
    const margin = 24;
    const left = Math.max(chart.x, Math.min(...boxes.map((b) => b.x)) - margin);
    const top = Math.max(chart.y, Math.min(...boxes.map((b) => b.y)) - margin);
    const right = Math.min(chart.x + chart.width, Math.max(...boxes.map((b) => b.x + b.width)) + margin);
    const bottom = Math.min(chart.y + chart.height, Math.max(...boxes.map((b) => b.y + b.height)) + margin);
    const shot = await page.screenshot({ clip: { x: left, y: top, width: right - left, height: bottom - top }, path: session.screenshot(`${README_FLOW}-flow`) });
    fs.mkdirSync(README_SCREENSHOT_DIR, { recursive: true });
    fs.writeFileSync(path.join(README_SCREENSHOT_DIR, 'flow.png'), shot);
  });

  itLeftNoBrowserErrors(session);
});
