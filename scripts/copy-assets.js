// Node-RED finds a node's editor file, its locales and its icons beside the compiled .js, so the build puts them there.
'use strict';
const fs = require('fs');
const path = require('path');

const root = path.join(__dirname, '..');
const out = path.join(root, 'dist', 'nodes');

function copyTree(from, to, keep) {
  if (!fs.existsSync(from)) return 0;
  let n = 0;
  for (const entry of fs.readdirSync(from, { withFileTypes: true })) {
    const src = path.join(from, entry.name);
    const dst = path.join(to, entry.name);
    if (entry.isDirectory()) n += copyTree(src, dst, keep);
    else if (keep(entry.name)) {
      fs.mkdirSync(to, { recursive: true });
      fs.copyFileSync(src, dst);
      n += 1;
    }
  }
  return n;
}

const html = copyTree(path.join(root, 'nodes'), out, (name) => name.endsWith('.html') || name.endsWith('.json'));
const icons = copyTree(path.join(root, 'icons'), path.join(out, 'icons'), () => true);
console.log(`copy-assets: ${html} editor/locale files, ${icons} icons -> dist/nodes`);
