/**
 * Reads a systemd unit file the way systemd does, for the parts this package relies on (systemd.syntax(7),
 * systemd.service(5) "Command lines", systemd.exec(5) `Environment=`): sections, `#`/`;` comments, lines continued
 * with a trailing backslash, quoting with double or single quotes (also in the middle of a word), C escapes,
 * the `%%` specifier, several assignments on one `Environment=` line, and in `Exec*=` lines the command prefixes and
 * `$VAR` (split at whitespace into words) / `${VAR}` (one word) expansion. What it does not know it refuses, rather
 * than guess: other specifiers (unless the caller gives their values) and unknown escapes throw.
 *
 * Both the unit test of the shipped service (test/gateway/systemd-unit.test.ts) and `npm run bench:gateway` read the
 * unit through this, so that the bench runs the gateway with the Node flags the service really passes.
 */
import fs from 'node:fs';
import path from 'node:path';

export interface UnitFile {
  /** Every assignment of every section, in file order: `sections.Service` → `[['Type','simple'], …]`. */
  sections: Record<string, Array<[string, string]>>;
}

export interface ExpandOptions {
  /** Specifier values besides `%%` (e.g. `{ d: '/run/credentials/x' }`); any other specifier throws. */
  specifiers?: Record<string, string>;
}

/** The shipped unit, from the package root (dist/… or the checkout alike). */
export function shippedUnitPath(): string {
  for (let dir = __dirname; ; dir = path.dirname(dir)) {
    const file = path.join(dir, 'gateway', 'systemd', 'clawling-gateway.service');
    if (fs.existsSync(file)) return file;
    if (path.dirname(dir) === dir) throw new Error(`no gateway/systemd/clawling-gateway.service above ${__dirname}`);
  }
}

export function parseUnit(text: string): UnitFile {
  const sections: UnitFile['sections'] = {};
  let current: Array<[string, string]> | undefined;
  let pending: string | undefined;
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    // Comment lines inside a continuation are dropped, the continuation goes on (systemd.syntax(7)).
    if (line.startsWith('#') || line.startsWith(';')) continue;
    if (pending === undefined && line === '') continue;
    // An odd number of trailing backslashes continues the line; an even number is escaped backslashes.
    const continued = (/\\+$/.exec(line)?.[0].length ?? 0) % 2 === 1;
    const piece = continued ? line.slice(0, -1) + ' ' : line;
    pending = pending === undefined ? piece : pending + piece;
    if (continued) continue;
    const full = pending.trim();
    pending = undefined;
    if (full === '') continue;
    const header = /^\[([^\]]+)\]$/.exec(full);
    if (header) {
      current = sections[header[1]!] ??= [];
      continue;
    }
    const eq = full.indexOf('=');
    if (eq <= 0) throw new Error(`not an assignment: ${full}`);
    if (!current) throw new Error(`assignment outside a section: ${full}`);
    current.push([full.slice(0, eq).trim(), full.slice(eq + 1).trim()]);
  }
  if (pending !== undefined) throw new Error('the file ends inside a continued line');
  return { sections };
}

export function readUnit(file: string): UnitFile {
  return parseUnit(fs.readFileSync(file, 'utf8'));
}

/** The values of one key of one section, in order (`ExecStartPre` may appear several times). */
export function values(unit: UnitFile, section: string, key: string): string[] {
  return (unit.sections[section] ?? []).filter(([k]) => k === key).map(([, v]) => v);
}

function specifier(ch: string, options: ExpandOptions): string {
  if (ch === '%') return '%';
  const value = options.specifiers?.[ch];
  if (value === undefined) throw new Error(`specifier %${ch} is not supported here`);
  return value;
}

const SIMPLE_ESCAPES: Record<string, string> = { a: '\x07', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v', s: ' ', '\\': '\\', '"': '"', "'": "'" };

/** One C escape at `text[i]` (just after the backslash); returns the character(s) and how many source chars it used. */
function unescape(text: string, i: number): [string, number] {
  const c = text[i];
  if (c === undefined) throw new Error('a backslash ends the value');
  if (c in SIMPLE_ESCAPES) return [SIMPLE_ESCAPES[c]!, 1];
  const hex = (n: number): [string, number] => {
    const digits = text.slice(i + 1, i + 1 + n);
    if (!new RegExp(`^[0-9a-fA-F]{${n}}$`).test(digits)) throw new Error(`bad \\${c} escape`);
    return [String.fromCodePoint(parseInt(digits, 16)), n + 1];
  };
  if (c === 'x') return hex(2);
  if (c === 'u') return hex(4);
  if (c === 'U') return hex(8);
  if (/[0-7]/.test(c)) {
    const digits = text.slice(i, i + 3);
    if (!/^[0-7]{3}$/.test(digits)) throw new Error('bad octal escape');
    return [String.fromCharCode(parseInt(digits, 8)), 3];
  }
  throw new Error(`unknown escape \\${c}`);
}

interface Word {
  text: string;
  /** The word, unquoted, was exactly `$NAME`: an Exec line splits its value into words. */
  bareVariable?: string;
}

/**
 * Splits a value into words: whitespace separates, quotes group (and may start anywhere in a word), backslash
 * escapes, `%` specifiers expand. With `variables`, `${NAME}` and `$NAME` expand (and `$$` is a `$`).
 */
function words(text: string, options: ExpandOptions, variables?: Record<string, string>): Word[] {
  const out: Word[] = [];
  let i = 0;
  while (i < text.length) {
    while (i < text.length && /\s/.test(text[i]!)) i++;
    if (i >= text.length) break;
    let word = '';
    let quote: string | undefined;
    let quoted = false;
    const start = i;
    while (i < text.length) {
      const c = text[i]!;
      if (quote === undefined && /\s/.test(c)) break;
      if (quote === undefined && (c === '"' || c === "'")) {
        quote = c;
        quoted = true;
        i++;
      } else if (c === quote) {
        quote = undefined;
        i++;
      } else if (c === '\\') {
        const [s, used] = unescape(text, i + 1);
        word += s;
        i += 1 + used;
      } else if (c === '%') {
        const next = text[i + 1];
        if (next === undefined) throw new Error('a % ends the value');
        word += specifier(next, options);
        i += 2;
      } else if (c === '$' && variables) {
        if (text[i + 1] === '$') {
          word += '$';
          i += 2;
        } else if (text[i + 1] === '{') {
          const end = text.indexOf('}', i + 2);
          if (end < 0) throw new Error('unterminated ${');
          word += variables[text.slice(i + 2, end)] ?? '';
          i = end + 1;
        } else {
          const m = /^[A-Za-z_][A-Za-z0-9_]*/.exec(text.slice(i + 1));
          if (!m) {
            word += '$';
            i++;
          } else {
            word += variables[m[0]] ?? '';
            i += 1 + m[0].length;
          }
        }
      } else {
        word += c;
        i++;
      }
    }
    if (quote !== undefined) throw new Error(`unterminated ${quote} in: ${text}`);
    const source = text.slice(start, i);
    const bare = !quoted && /^\$[A-Za-z_][A-Za-z0-9_]*$/.exec(source);
    out.push(bare ? { text: word, bareVariable: source.slice(1) } : { text: word });
  }
  return out;
}

/**
 * The environment the `Environment=` lines of `[Service]` give the process: each line holds one or more
 * `NAME=value` words (quotes and escapes as above; no `$` expansion); a later assignment wins; an empty
 * `Environment=` clears the list.
 */
export function unitEnvironment(unit: UnitFile, options: ExpandOptions = {}): Record<string, string> {
  let env: Record<string, string> = {};
  for (const line of values(unit, 'Service', 'Environment')) {
    if (line === '') {
      env = {};
      continue;
    }
    for (const { text } of words(line, options)) {
      const eq = text.indexOf('=');
      if (eq <= 0) throw new Error(`not a NAME=value assignment: ${text}`);
      env[text.slice(0, eq)] = text.slice(eq + 1);
    }
  }
  return env;
}

export interface UnitCommand {
  /** The `@-:+!` prefixes in front of the path. */
  prefixes: string;
  argv: string[];
}

/**
 * One `Exec*=` line as systemd runs it: prefixes stripped, words unquoted, `$VAR` alone as a word replaced by the
 * value split at whitespace (no words if it is empty or unset), `${VAR}` and `$VAR` inside a word by the value.
 */
export function parseCommand(line: string, env: Record<string, string>, options: ExpandOptions = {}): UnitCommand {
  const m = /^([@\-:+!]*)/.exec(line)!;
  const argv = words(line.slice(m[1]!.length), options, env).flatMap((w) =>
    w.bareVariable !== undefined ? (env[w.bareVariable] ?? '').split(/\s+/).filter(Boolean) : [w.text],
  );
  if (argv.length === 0) throw new Error(`an empty command line: ${line}`);
  return { prefixes: m[1]!, argv };
}

/**
 * The flags the shipped unit gives node: the words between `node` and the script in its `ExecStart=`. The bench
 * starts its gateway process with exactly these.
 */
export function shippedNodeFlags(file = shippedUnitPath()): string[] {
  const unit = readUnit(file);
  const env = unitEnvironment(unit);
  const [start] = values(unit, 'Service', 'ExecStart');
  if (start === undefined) throw new Error(`${file} has no ExecStart=`);
  const { argv } = parseCommand(start, env);
  const node = argv.findIndex((a) => path.basename(a) === 'node');
  const script = argv.findIndex((a, i) => i > node && a.endsWith('.js'));
  if (node < 0 || script < 0) throw new Error(`ExecStart= of ${file} does not run node with a script: ${start}`);
  return argv.slice(node + 1, script);
}
