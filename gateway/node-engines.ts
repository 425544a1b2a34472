/**
 * Does this Node.js satisfy the package's `engines.node`? `clawling gateway` asks before it loads anything else
 * (issue 22): a service unit runs `/usr/bin/env node`, and on a Pi whose `/usr/bin/node` is older than the Node the
 * package was installed with, the gateway used to fail deep inside a native module or the store with a hint that
 * did not help. One plain sentence naming both versions and the node binary is what the user can act on.
 *
 * The range is read from the package's own package.json, so the check can never disagree with what npm was told.
 * Only the comparator syntax a package.json of ours uses is understood (`>=22.13`, `>=22.13 <27`, `a || b`); npm's
 * full grammar (`^`, `~`, `x`, hyphen ranges) is not needed, and a range this code cannot read is reported as such
 * rather than guessed at.
 */
import fs from 'node:fs';
import path from 'node:path';

export type Version = readonly [number, number, number];

export type EnginesVerdict =
  | { ok: true; version: string; range: string }
  /** Below the range (or above it, for a range with an upper bound). */
  | { ok: false; code: 'NODE_OUTSIDE_ENGINES'; version: string; range: string; message: string }
  | { ok: false; code: 'ENGINES_UNREADABLE'; version: string; range: string | undefined; message: string };

/** `v22.13.1` or `22.13` → [22, 13, 1] / [22, 13, 0]; undefined for anything else. */
export function parseVersion(text: string): Version | undefined {
  const m = /^v?(\d+)(?:\.(\d+))?(?:\.(\d+))?(?:[-+].*)?$/.exec(text.trim());
  if (!m) return undefined;
  return [Number(m[1]), Number(m[2] ?? 0), Number(m[3] ?? 0)];
}

function compare(a: Version, b: Version): number {
  for (let i = 0; i < 3; i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return 0;
}

type Comparator = { op: '>=' | '>' | '<=' | '<' | '='; version: Version };

/** `>=22.13 <27 || >=28` → [[>=22.13.0, <27.0.0], [>=28.0.0]]; undefined when any part is not a plain comparator. */
export function parseRange(range: string): Comparator[][] | undefined {
  const sets: Comparator[][] = [];
  for (const alternative of range.split('||')) {
    const parts = alternative.trim().split(/\s+/).filter(Boolean);
    if (parts.length === 0) return undefined;
    const set: Comparator[] = [];
    for (const part of parts) {
      const m = /^(>=|<=|>|<|=)?(.+)$/.exec(part);
      const version = m ? parseVersion(m[2]!) : undefined;
      // `22` alone means any 22.x to npm; a bare `22.13.1` means exactly that one. Only exact bare versions are read.
      if (!m || !version || (!m[1] && !/^v?\d+\.\d+\.\d+$/.test(m[2]!))) return undefined;
      set.push({ op: (m[1] ?? '=') as Comparator['op'], version });
    }
    sets.push(set);
  }
  return sets;
}

function holds(c: Comparator, v: Version): boolean {
  const d = compare(v, c.version);
  switch (c.op) {
    case '>=':
      return d >= 0;
    case '>':
      return d > 0;
    case '<=':
      return d <= 0;
    case '<':
      return d < 0;
    case '=':
      return d === 0;
  }
}

/** Whether `version` (e.g. `process.version`) lies in `range` (an `engines.node` value), as a value, never a throw. */
export function checkEngines(version: string, range: string | undefined, nodePath = process.execPath): EnginesVerdict {
  const parsedRange = range === undefined ? undefined : parseRange(range);
  const parsedVersion = parseVersion(version);
  if (range === undefined || !parsedRange || !parsedVersion) {
    return {
      ok: false,
      code: 'ENGINES_UNREADABLE',
      version,
      range,
      message: range === undefined ? 'package.json has no engines.node' : `cannot compare Node.js ${version} with engines.node "${range}"`,
    };
  }
  if (parsedRange.some((set) => set.every((c) => holds(c, parsedVersion)))) return { ok: true, version, range };
  return {
    ok: false,
    code: 'NODE_OUTSIDE_ENGINES',
    version,
    range,
    message:
      `this is Node.js ${version} (${nodePath}), and the gateway needs Node.js ${range} (engines in its package.json). ` +
      `Run it with a Node.js in that range; a service started through \`/usr/bin/env node\` uses the first node on its PATH, ` +
      `so check \`node --version\` as the service's user or give the unit that Node's absolute path.`,
  };
}

/** `engines.node` of this package's package.json (the compiled tree is one folder deeper than the sources). */
export function packageEnginesNode(): string | undefined {
  for (const rel of ['../../package.json', '../package.json']) {
    let text: string;
    try {
      text = fs.readFileSync(path.join(__dirname, rel), 'utf8');
    } catch {
      continue;
    }
    const manifest = JSON.parse(text) as { name?: string; engines?: { node?: string } };
    // A package.json found one level up from the sources could be a project's own: take only ours.
    if (manifest.name === '@clawling/node-red-mesh') return manifest.engines?.node;
  }
  return undefined;
}
