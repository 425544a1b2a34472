// What a build reads: the folders tsconfig.json compiles, the icons copy-assets.js copies, and the files that steer
// both. Their fingerprint (count and newest mtime, folders included so a deleted file counts) tells `npm start`
// whether dist/ still matches them without running tsc.
'use strict';
const fs = require('fs');
const path = require('path');

const STEERING_FILES = ['tsconfig.json', 'package.json', 'scripts/copy-assets.js', 'scripts/build-inputs.js'];
// Written by test runs inside a compiled folder, read by nothing that is built.
const NOT_INPUTS = new Set(['test/editor/screenshots']);

function compiledFolders(root) {
  const tsconfig = JSON.parse(fs.readFileSync(path.join(root, 'tsconfig.json'), 'utf8'));
  // webui/ is compiled by its own tsconfig (browser modules), at the same build.
  return [...(tsconfig.include ?? []), 'icons', 'webui'];
}

function walk(root, file, acc) {
  if (NOT_INPUTS.has(path.relative(root, file).split(path.sep).join('/'))) return;
  let stat;
  try {
    stat = fs.statSync(file);
  } catch {
    return;
  }
  acc.count += 1;
  if (stat.mtimeMs > acc.newestMs) {
    acc.newestMs = stat.mtimeMs;
    acc.newest = file;
  }
  if (stat.isDirectory()) for (const name of fs.readdirSync(file)) walk(root, path.join(file, name), acc);
}

/** { count, newestMs, newest } over every build input under root. */
function fingerprint(root) {
  const acc = { count: 0, newestMs: 0, newest: '' };
  for (const rel of [...STEERING_FILES, ...compiledFolders(root)]) walk(root, path.join(root, rel), acc);
  return { count: acc.count, newestMs: acc.newestMs, newest: path.relative(root, acc.newest) };
}

module.exports = { fingerprint };
