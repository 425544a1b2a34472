/**
 * What the package declares, read the way Node-RED reads it: the types in package.json `node-red.nodes` and the
 * files in `examples/`. The suites build their tests from these lists, so a node or example that is declared but
 * broken or missing fails a test instead of going unnoticed.
 */
import fs from 'node:fs';
import path from 'node:path';
import { PACKAGE_ROOT } from '../../../demo/node-red-launcher';

export const PACKAGE_NAME = '@clawling/node-red-mesh';
export const PALETTE_CATEGORY = 'clawling';

export interface DeclaredNode {
  type: string;
  /** The compiled file package.json names, relative to the package root. */
  file: string;
  /** `config` for a configuration node, read from the registerType call in the editor file beside it. */
  category: string | undefined;
}

function packageJson(): { 'node-red'?: { nodes?: Record<string, string> } } {
  return JSON.parse(fs.readFileSync(path.join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { 'node-red'?: { nodes?: Record<string, string> } };
}

function categoryOf(jsFile: string): string | undefined {
  const html = path.join(PACKAGE_ROOT, jsFile.replace(/\.js$/, '.html'));
  if (!fs.existsSync(html)) return undefined;
  return /category:\s*['"]([^'"]+)['"]/.exec(fs.readFileSync(html, 'utf8'))?.[1];
}

/** Configuration nodes first: the other nodes' dialogs need one to exist. */
export function declaredNodes(): DeclaredNode[] {
  const nodes = Object.entries(packageJson()['node-red']?.nodes ?? {}).map(([type, file]) => ({ type, file, category: categoryOf(file) }));
  return [...nodes.filter((n) => n.category === 'config'), ...nodes.filter((n) => n.category !== 'config')];
}

export const EXAMPLES_DIR = path.join(PACKAGE_ROOT, 'examples');

/** Example names as Import ▸ Examples lists them: the file name without `.json`. */
export function exampleNames(): string[] {
  if (!fs.existsSync(EXAMPLES_DIR)) return [];
  return fs
    .readdirSync(EXAMPLES_DIR)
    .filter((f) => f.endsWith('.json'))
    .map((f) => f.slice(0, -'.json'.length))
    .sort();
}

export interface FlowNode {
  id: string;
  type: string;
  z?: string;
  name?: string;
  info?: string;
  wires?: string[][];
  [property: string]: unknown;
}

export function readExample(name: string): FlowNode[] {
  const parsed = JSON.parse(fs.readFileSync(path.join(EXAMPLES_DIR, `${name}.json`), 'utf8')) as unknown;
  if (!Array.isArray(parsed)) throw new Error(`examples/${name}.json is not an array of nodes`);
  return parsed as FlowNode[];
}
