// The project's layers as a lint rule: which top-level folder may import which. A relative import is resolved
// against the importing file, so `gateway/mesh-nodes/…` is never confused with `nodes/` (the Node-RED nodes).
// Tests and benches may import anything; shipped code never imports them. DEEP_RULES look below the top folders.
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.dirname(fileURLToPath(import.meta.url));

/** Importer folder → folders it may import (its own is always allowed). */
export const LAYERS = {
  lib: [],
  nodes: ['lib'],
  gateway: ['lib'],
  devhub: ['lib'],
  devble: ['lib'],
  demo: ['lib', 'gateway', 'devhub', 'devble'],
  cli: ['lib', 'gateway', 'devhub', 'devble', 'demo'],
};

/**
 * Rules below the top-level folders, each as (what the importer is, what it may not import). `lib/mesh` is the
 * protocol's lowest package: besides itself it may use only the basics at lib/'s root (clock, bytes, coded-error…).
 * An extension is on its own: what two extensions share lives below them. A radio never reaches for an extension.
 */
export const DEEP_RULES = [
  {
    name: 'lib/mesh imports no other lib/ package',
    applies: (from) => from.startsWith('lib/mesh/'),
    refuses: (from, to) => to.startsWith('lib/') && !to.startsWith('lib/mesh/') && to.split('/').length > 2,
  },
  {
    name: 'a gateway extension imports no other extension',
    applies: (from) => /^gateway\/extensions\/[^/]+\//.test(from),
    refuses: (from, to) => {
      const mine = from.split('/')[2];
      const m = /^gateway\/extensions\/([^/]+)\//.exec(to);
      return m !== null && m[1] !== mine;
    },
  },
  {
    name: 'radios import no extension',
    applies: (from) => from.startsWith('gateway/radios/'),
    refuses: (_from, to) => to.startsWith('gateway/extensions/') || /^gateway\/extension(\.[jt]s)?$/.test(to),
  },
];

function relativeToRoot(file) {
  const rel = path.relative(ROOT, file);
  if (rel.startsWith('..') || path.isAbsolute(rel)) return undefined;
  return rel.split(path.sep).join('/');
}

function topFolder(file) {
  const rel = path.relative(ROOT, file);
  if (rel.startsWith('..') || path.isAbsolute(rel)) return undefined;
  return rel.split(path.sep)[0];
}

const rule = {
  meta: {
    type: 'problem',
    docs: { description: 'keep imports inside the layers ARCHITECTURE.md draws' },
    schema: [],
    messages: {
      crossing: '{{from}}/ may not import {{to}}/ (allowed: {{allowed}})',
      deep: '{{rule}}: {{from}} may not import {{to}}',
    },
  },
  create(context) {
    const from = topFolder(context.filename);
    const allowed = from === undefined ? undefined : LAYERS[from];
    if (allowed === undefined) return {};
    const fromFile = relativeToRoot(context.filename);
    const deep = DEEP_RULES.filter((r) => r.applies(fromFile));
    const check = (node, source) => {
      if (typeof source !== 'string' || !source.startsWith('.')) return;
      const target = path.resolve(path.dirname(context.filename), source);
      const toFile = relativeToRoot(target);
      for (const r of deep) {
        if (toFile !== undefined && r.refuses(fromFile, toFile)) {
          context.report({ node, messageId: 'deep', data: { rule: r.name, from: fromFile, to: toFile } });
        }
      }
      const to = topFolder(target);
      if (to === undefined || to === from || allowed.includes(to)) return;
      context.report({ node, messageId: 'crossing', data: { from, to, allowed: [from, ...allowed].join(', ') } });
    };
    return {
      ImportDeclaration: (node) => check(node, node.source.value),
      ExportNamedDeclaration: (node) => node.source && check(node, node.source.value),
      ExportAllDeclaration: (node) => check(node, node.source.value),
      ImportExpression: (node) => node.source.type === 'Literal' && check(node, node.source.value),
      TSImportEqualsDeclaration: (node) =>
        node.moduleReference.type === 'TSExternalModuleReference' && check(node, node.moduleReference.expression.value),
      CallExpression: (node) => {
        if (node.callee.type === 'Identifier' && node.callee.name === 'require' && node.arguments[0]?.type === 'Literal') {
          check(node, node.arguments[0].value);
        }
      },
    };
  },
};

export const layersPlugin = { rules: { imports: rule } };
