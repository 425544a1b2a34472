/**
 * The test helper gives node modules a `RED._` that returns the key. For texts whose substance is a substitution
 * (the seconds of "retry in N s"), this wraps a node module so that it translates with our real en-US catalogues,
 * failing loudly on a key the catalogue lacks.
 */
import fs from 'node:fs';
import path from 'node:path';

type Catalogue = Record<string, unknown>;

function catalogue(): Catalogue {
  const dir = path.join(__dirname, '..', '..', 'nodes', 'locales', 'en-US');
  const merged: Catalogue = {};
  for (const file of fs.readdirSync(dir)) {
    if (file.startsWith('hub-') && file.endsWith('.json')) Object.assign(merged, JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8')) as Catalogue);
  }
  return merged;
}

export function translate(key: string, substitutions: Record<string, unknown> = {}): string {
  if (key.startsWith('node-red:')) return key;
  let value: unknown = catalogue();
  for (const part of key.split('.')) value = (value as Catalogue | undefined)?.[part];
  if (typeof value !== 'string') throw new Error(`no en-US text for ${key}`);
  return value.replace(/__(\w+)__/g, (_m, name: string) => String(substitutions[name]));
}

/** The node module, given a RED whose `_` is `translate`. */
export function withCatalog(module: (RED: unknown) => void): (RED: unknown) => void {
  return (RED) => module(Object.assign(Object.create(RED as object) as object, { _: translate }));
}
