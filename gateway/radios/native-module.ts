/**
 * What went wrong when an optional native package did not load, and the one command that fixes it.
 *
 * A native addon fails in a few recognisable ways, each with its own remedy: not installed (`npm install`), built
 * for another Node.js (`NODE_MODULE_VERSION 127` against 137 after a Node upgrade: `npm rebuild`), never built
 * (`--ignore-scripts`, or no prebuild for the platform: "Could not locate the bindings file"), or a file that is not
 * a loadable addon ("Module did not self-register", "invalid ELF header"). The radios' readiness check (`--check`)
 * and their load errors (package-hint.ts) both describe failures through this, so the wording and commands agree.
 */
import fs from 'node:fs';
import path from 'node:path';

export type NativeFailureKind = 'not-installed' | 'abi-mismatch' | 'not-built' | 'damaged' | 'other';

export interface NativeLoadFailure {
  kind: NativeFailureKind;
  /** A sentence fragment for a message: "it was built for another Node.js (…)". */
  reason: string;
  /** The package whose native part failed (may be a dependency of the one required, e.g. bluetooth-hci-socket). */
  rebuildPackage: string;
}

const FIRST_LINE_MAX = 240;

function firstLine(err: unknown): string {
  const text = err instanceof Error ? err.message : String(err);
  const line = (text.split('\n')[0] ?? text).trim();
  return line.length > FIRST_LINE_MAX ? `${line.slice(0, FIRST_LINE_MAX)}…` : line;
}

/** The innermost package a path inside node_modules belongs to (`…/node_modules/@a/b/build/x.node` → `@a/b`). */
function packageInPath(text: string): string | undefined {
  const matches = [...text.matchAll(/node_modules[\\/]((?:@[^\\/\s'"]+[\\/])?[^\\/\s'"]+)/g)];
  const last = matches.at(-1);
  return last?.[1]?.replace(/\\/g, '/');
}

/** Classifies the error `require(pkg)` (or the first use of its addon) threw. */
export function describeNativeLoadFailure(err: unknown, pkg: string): NativeLoadFailure {
  const message = err instanceof Error ? err.message : String(err);
  const code = (err as { code?: unknown } | null)?.code;
  const line = firstLine(err);
  const rebuildPackage = packageInPath(message) ?? pkg;
  const firstMessageLine = message.split('\n')[0] ?? '';
  if (code === 'MODULE_NOT_FOUND' && [`'${pkg}'`, `'${pkg}/`, `"${pkg}"`, `"${pkg}/`].some((q) => firstMessageLine.includes(q))) {
    return { kind: 'not-installed', reason: 'it is not installed', rebuildPackage: pkg };
  }
  const abi = /NODE_MODULE_VERSION (\d+)[\s\S]*?NODE_MODULE_VERSION (\d+)/.exec(message);
  if (abi) {
    return {
      kind: 'abi-mismatch',
      reason: `its native module was built for another Node.js (NODE_MODULE_VERSION ${abi[1]}; this Node.js ${process.version} needs ${abi[2]}), as after a Node.js upgrade`,
      rebuildPackage,
    };
  }
  if (/Could not locate the bindings file|No native build was found/.test(message)) {
    return {
      kind: 'not-built',
      reason: `its native module was never built (installed with --ignore-scripts, or without a build toolchain): ${line}`,
      rebuildPackage,
    };
  }
  if (/did not self-register|invalid ELF header|wrong ELF class|file too short|undefined symbol|cannot open shared object/.test(message)) {
    return { kind: 'damaged', reason: `its native module does not load on this system: ${line}`, rebuildPackage };
  }
  return { kind: 'other', reason: `it does not load: ${line}`, rebuildPackage };
}

/** The folder whose `package.json` is nearest above `from` (the project an `npm install` there changes). */
export function projectFolder(from: string): string {
  let dir = path.resolve(from);
  for (;;) {
    if (fs.existsSync(path.join(dir, 'package.json')) && path.basename(path.dirname(dir)) !== 'node_modules') return dir;
    const parent = path.dirname(dir);
    if (parent === dir) return path.resolve(from);
    dir = parent;
  }
}

/**
 * The project folder that holds `node_modules/<pkg>`, read from a resolved file or an error message naming a path in
 * it (the innermost such folder); undefined when the text names none.
 */
export function installingFolder(text: string, pkg: string): string | undefined {
  const escaped = pkg.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const re = new RegExp(`(/[^\\s'"]*?)/node_modules/${escaped}(?=[/\\s'"]|$)`, 'g');
  let found: string | undefined;
  for (const m of text.matchAll(re)) found = m[1];
  return found === undefined ? undefined : found || '/';
}

/** The shell line that fixes `failure`, run in `folder`. */
export function remedyCommand(failure: NativeLoadFailure, pkg: string, folder: string): string {
  const command = failure.kind === 'not-installed' ? `npm install ${pkg}` : `npm rebuild ${failure.rebuildPackage}`;
  const quoted = /[^\w@%+=:,./-]/.test(folder) ? `'${folder.replace(/'/g, `'\\''`)}'` : folder;
  return `cd ${quoted} && ${command}`;
}
