// `npm start` runs this before the demo: `npm run build` only when a build input differs from what the last
// finished build recorded (dist/.build-stamp.json), because a full tsc run takes tens of seconds.
'use strict';
const fs = require('fs');
const path = require('path');
const { spawnSync } = require('child_process');
const { fingerprint } = require('./build-inputs');

const root = path.join(__dirname, '..');
const STAMP = path.join(root, 'dist', '.build-stamp.json');

function recorded() {
  try {
    return JSON.parse(fs.readFileSync(STAMP, 'utf8'));
  } catch {
    return undefined;
  }
}

const now = fingerprint(root);
const last = recorded();
if (last && last.count === now.count && last.newestMs === now.newestMs) {
  console.log('build: dist/ is up to date with the sources; not rebuilding');
  process.exit(0);
}
console.log(last ? `build: ${now.newest} changed since the last build; rebuilding` : 'build: no finished build in dist/; building');
// npm sets npm_execpath for scripts it runs; without it (run by hand) the npm on PATH does.
const npm = process.env.npm_execpath;
const run = npm ? spawnSync(process.execPath, [npm, 'run', 'build'], { cwd: root, stdio: 'inherit' }) : spawnSync('npm', ['run', 'build'], { cwd: root, stdio: 'inherit', shell: process.platform === 'win32' });
process.exit(run.status ?? 1);
