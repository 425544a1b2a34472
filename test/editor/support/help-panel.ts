/**
 * Reads a node's help as the help sidebar renders it, and checks it against Node-RED's help style guide
 * (nodejs.org-style "Inputs / Outputs / Details", https://nodered.org/docs/creating-nodes/help-style-guide):
 * the first paragraph is the tooltip, then Inputs (when the node has an input), Outputs (when it has outputs),
 * Details; every msg property under Inputs and Outputs is a `<dt>` with a `property-type`; a node with more than
 * one output describes each port in an `<ol class="node-ports">`.
 */
import type { Locator, Page } from 'playwright-core';
import { exactText, showSidebarTab } from './editor-ui';
import type { EditorWindow, PageElement } from './page-types';

export interface HelpSection {
  heading: string;
  text: string;
  /** Every `<dt>` of the section: the property name and the text of its `.property-type`, or null without one. */
  properties: Array<{ name: string; type: string | null }>;
  /** Item counts of `<ol class="node-ports">` lists in the section. */
  portLists: number[];
}

export interface RenderedHelp {
  title: string;
  /** Tag and text of the first element of the help body. */
  first: { tag: string; text: string };
  sections: HelpSection[];
}

/** The label the help tree shows for a type (its palette label, else the type). */
export async function helpLabel(page: Page, type: string): Promise<string> {
  return page.evaluate((t) => {
    const def = (globalThis as unknown as EditorWindow).RED.nodes.getType(t);
    if (!def) return t;
    const label = typeof def.paletteLabel === 'function' ? def.paletteLabel.call(def) : def.paletteLabel;
    return label || t;
  }, type);
}

/** Opens the help sidebar, expands the package in its tree and clicks the node: what a user does to read it. */
export async function openHelp(page: Page, packageName: string, type: string): Promise<Locator> {
  const panel = await showSidebarTab(page, 'help');
  const label = await helpLabel(page, type);
  const item = panel.locator('.red-ui-node-list-item .red-ui-node-label', { hasText: exactText(label) }).first();
  if (!(await item.isVisible())) await panel.locator('.red-ui-treeList-label-text', { hasText: exactText(packageName) }).first().click();
  await item.click();
  const title = panel.locator('h1.red-ui-help-title', { hasText: exactText(label) });
  await title.waitFor({ state: 'visible', timeout: 10_000 });
  return panel.locator('.red-ui-help', { has: page.locator('.red-ui-text-bidi-aware') }).filter({ visible: true }).last();
}

export async function readHelp(page: Page, title: string): Promise<RenderedHelp | null> {
  return page.evaluate((wanted) => {
    const w = globalThis as unknown as EditorWindow;
    const heading = Array.from(w.document.querySelectorAll('h1.red-ui-help-title')).find((h) => h.getClientRects().length > 0 && (h.textContent ?? '').trim() === wanted);
    const root = heading?.nextElementSibling?.querySelector('.red-ui-text-bidi-aware');
    if (!heading || !root) return null;
    const clean = (s: string | null): string => (s ?? '').replace(/\s+/g, ' ').trim();
    const blocks = Array.from(root.children) as PageElement[];
    const sections: Array<{ heading: string; text: string; properties: Array<{ name: string; type: string | null }>; portLists: number[] }> = [];
    for (const block of blocks) {
      if (block.tagName === 'H3') {
        sections.push({ heading: clean(block.textContent), text: '', properties: [], portLists: [] });
        continue;
      }
      const section = sections[sections.length - 1];
      if (!section) continue;
      section.text += ` ${clean(block.textContent)}`;
      const dts = block.tagName === 'DT' ? [block] : (Array.from(block.querySelectorAll('dt')) as PageElement[]);
      for (const dt of dts) {
        const type = dt.querySelector('.property-type');
        const typeText = type ? clean(type.textContent) : null;
        const name = clean((dt.textContent ?? '').replace(type?.textContent ?? '', ''));
        section.properties.push({ name, type: typeText });
      }
      const lists = block.tagName === 'OL' && block.classList.contains('node-ports') ? [block] : (Array.from(block.querySelectorAll('ol.node-ports')) as PageElement[]);
      for (const list of lists) section.portLists.push(Array.from(list.children).filter((c) => c.tagName === 'LI').length);
    }
    const first = blocks[0];
    return {
      title: clean(heading.textContent),
      first: { tag: first ? first.tagName : '', text: first ? clean(first.textContent) : '' },
      sections: sections.map((s) => ({ ...s, text: s.text.trim() })),
    };
  }, title);
}

/** What a `property-type` may say: a JavaScript/Node-RED value type, or a union of them. */
const JS_TYPE = /^(string|number|boolean|object|array|buffer|any|bigint|date|error|null|function|json)(\[\])?$/i;

/** Style-guide findings for one rendered help text; empty when it follows the guide. */
export function helpStyleProblems(help: RenderedHelp, ports: { inputs: number; outputs: number }): string[] {
  const problems: string[] = [];
  if (help.first.tag !== 'P' || help.first.text.length < 20) problems.push(`the help must open with a <p> that says what the node does (found <${help.first.tag.toLowerCase()}> "${help.first.text.slice(0, 40)}")`);
  const headings = help.sections.map((s) => s.heading);
  const at = (h: string): number => headings.indexOf(h);
  if (ports.inputs > 0 && at('Inputs') < 0) problems.push('no "Inputs" section, yet the node has an input');
  if (ports.inputs === 0 && at('Inputs') >= 0) problems.push('an "Inputs" section on a node without input');
  if (ports.outputs > 0 && at('Outputs') < 0) problems.push(`no "Outputs" section, yet the node has ${ports.outputs} output(s)`);
  if (ports.outputs === 0 && at('Outputs') >= 0) problems.push('an "Outputs" section on a node without outputs');
  if (at('Details') < 0) problems.push('no "Details" section');
  const order = ['Inputs', 'Outputs', 'Details'].map(at).filter((i) => i >= 0);
  if (order.some((v, i) => i > 0 && v < order[i - 1])) problems.push(`sections out of order: ${headings.join(', ')} (the guide's order is Inputs, Outputs, Details)`);
  for (const name of ['Inputs', 'Outputs']) {
    const section = help.sections.find((s) => s.heading === name);
    if (!section) continue;
    if (section.properties.length === 0) problems.push(`"${name}" lists no msg property as <dt>`);
    for (const p of section.properties) {
      if (!p.type) problems.push(`"${name}": msg property "${p.name}" has no <span class="property-type">`);
      else if (!p.type.split('|').every((t) => JS_TYPE.test(t.trim()))) problems.push(`"${name}": msg.${p.name} has the type "${p.type}", not a type (string, number, boolean, object, array, buffer, …)`);
    }
  }
  const outputs = help.sections.find((s) => s.heading === 'Outputs');
  if (outputs && ports.outputs > 1 && !outputs.portLists.includes(ports.outputs)) {
    problems.push(`the node has ${ports.outputs} outputs but "Outputs" has no <ol class="node-ports"> with one <li> per output`);
  }
  const details = help.sections.find((s) => s.heading === 'Details');
  if (details && details.text.length < 20) problems.push('"Details" is empty');
  return problems;
}
