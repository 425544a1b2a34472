// The project's layers as a lint rule: which top-level folder may import which. A relative import is resolved
// against the importing file, so `gateway/nodes/…` (the mesh nodes the gateway tracks) is not confused with `nodes/`
// (the Node-RED nodes). Tests and benches may import anything; shipped code never imports them.
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
    messages: { crossing: '{{from}}/ may not import {{to}}/ (allowed: {{allowed}})' },
  },
  create(context) {
    const from = topFolder(context.filename);
    const allowed = from === undefined ? undefined : LAYERS[from];
    if (allowed === undefined) return {};
    const check = (node, source) => {
      if (typeof source !== 'string' || !source.startsWith('.')) return;
      const to = topFolder(path.resolve(path.dirname(context.filename), source));
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
