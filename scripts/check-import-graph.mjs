// `npm run lint` runs this after eslint: no import circle in the shipped tree, between files or between folders.
// A folder counts as one unit when it has no subfolders; in a folder that has subfolders each file is its own unit
// (so `gateway/extension.ts` and `gateway/mqtt/` are two units, and `gateway/mqtt/x` importing `gateway/extension`
// while `gateway/extension` imports `gateway/mqtt/y` is an arrow back up). Type-only imports count: a circle of types
// is still a circle a reader has to untangle.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const SHIPPED = ['lib', 'nodes', 'gateway', 'devhub', 'devble', 'demo', 'cli'];
const IMPORT = /(?:\bfrom\s+|\bimport\s*\(\s*|\brequire\s*\(\s*|^\s*import\s+)['"](\.{1,2}\/[^'"]*)['"]/gm;

function sourceFiles(dir, out = []) {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) sourceFiles(p, out);
    else if (p.endsWith('.ts') && !p.endsWith('.d.ts')) out.push(p);
  }
  return out;
}

function resolveImport(from, spec) {
  const base = path.resolve(path.dirname(from), spec).replace(/\.js$/, '');
  for (const c of [`${base}.ts`, path.join(base, 'index.ts')]) if (fs.existsSync(c)) return c;
  return undefined;
}

/** Strongly connected components of more than one node (Tarjan), each a circle to report. */
function circles(nodes, next) {
  let counter = 0;
  const index = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const found = [];
  const visit = (v) => {
    index.set(v, counter);
    low.set(v, counter++);
    stack.push(v);
    onStack.add(v);
    for (const w of next(v)) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v), low.get(w)));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v), index.get(w)));
    }
    if (low.get(v) !== index.get(v)) return;
    const component = [];
    let w;
    do {
      w = stack.pop();
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1) found.push(component.sort());
  };
  for (const v of nodes) if (!index.has(v)) visit(v);
  return found;
}

/** Every circle under `root`'s shipped folders, as lines a person can act on; empty when there is none. */
export function importGraphProblems(root, folders = SHIPPED) {
  const rel = (f) => path.relative(root, f).split(path.sep).join('/');
  const files = folders.filter((f) => fs.existsSync(path.join(root, f))).flatMap((f) => sourceFiles(path.join(root, f)));
  const edges = new Map();
  for (const file of files) {
    const targets = new Set();
    for (const m of fs.readFileSync(file, 'utf8').matchAll(IMPORT)) {
      const target = resolveImport(file, m[1]);
      if (target) targets.add(target);
    }
    edges.set(file, [...targets]);
  }
  const branch = new Map();
  const unitOf = (file) => {
    const dir = path.dirname(file);
    if (!branch.has(dir)) branch.set(dir, fs.readdirSync(dir, { withFileTypes: true }).some((e) => e.isDirectory()));
    return branch.get(dir) ? rel(file) : `${rel(dir)}/`;
  };
  const problems = [];
  for (const c of circles(files, (f) => edges.get(f) ?? [])) problems.push(`import circle: ${c.map(rel).join(' → ')}`);
  const unitEdges = new Map();
  for (const [file, targets] of edges) {
    const from = unitOf(file);
    if (!unitEdges.has(from)) unitEdges.set(from, new Map());
    for (const t of targets) {
      const to = unitOf(t);
      if (to === from) continue;
      const why = unitEdges.get(from);
      if (!why.has(to)) why.set(to, `${rel(file)} → ${rel(t)}`);
    }
  }
  for (const c of circles([...unitEdges.keys()], (u) => [...(unitEdges.get(u)?.keys() ?? [])])) {
    // A circle of single files is the file circle above, already reported.
    if (c.every((u) => !u.endsWith('/'))) continue;
    const inside = new Set(c);
    const arrows = c.flatMap((u) => [...(unitEdges.get(u) ?? [])].filter(([to]) => inside.has(to)).map(([, why]) => why));
    problems.push(`folder circle: ${c.join(' ⇄ ')} (${arrows.join('; ')})`);
  }
  return problems;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const root = path.resolve(process.argv[2] ?? path.join(path.dirname(fileURLToPath(import.meta.url)), '..'));
  const problems = importGraphProblems(root);
  for (const p of problems) console.error(p);
  if (problems.length) {
    console.error(`${problems.length} import circle(s): move what both sides need below them (CONTRIBUTING.md, "The map")`);
    process.exitCode = 1;
  } else console.log('import graph: no circle between files or folders');
}
