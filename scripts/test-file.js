// `npm run test:file -- <path>…`: run some test files without knowing mocha's project config (which runs every
// suite) or where tsc puts its output. Paths may name sources (test/lib/mesh/ack.test.ts), their compiled files,
// folders or globs; arguments starting with '-' go to mocha as they are (e.g. --grep, --timeout).
'use strict';
const fs = require('fs');
const path = require('path');
const { spawnSync } = require('child_process');

const root = path.join(__dirname, '..');

/** A source path, folder or glob under test/ → the compiled one under dist/test/. */
function compiled(arg) {
  let rel = path.relative(root, path.resolve(arg)).split(path.sep).join('/');
  if (!rel.startsWith('dist/')) rel = `dist/${rel}`;
  if (rel.endsWith('.ts')) return rel.slice(0, -3) + '.js';
  if (rel.endsWith('.js') || rel.includes('*')) return rel;
  return `${rel.replace(/\/$/, '')}/**/*.test.js`;
}

/** A test path names something on disk or is a glob; every other argument (flags and their values) is mocha's. */
const isPath = (a) => !a.startsWith('-') && (a.includes('*') || fs.existsSync(path.resolve(a)));
const args = process.argv.slice(2);
const files = args.filter(isPath).map(compiled);
const flags = args.filter((a) => !isPath(a));
if (files.length === 0) {
  console.error('usage: npm run test:file -- <test file, folder or glob>… [mocha flags]');
  process.exit(2);
}
const build = spawnSync(process.execPath, [path.join(__dirname, 'build-if-stale.js')], { cwd: root, stdio: 'inherit' });
if (build.status !== 0) process.exit(build.status ?? 1);
const mocha = require.resolve('mocha/bin/mocha.js');
// The service suites' own timeout: the longest any single test here needs (a broker outage, an install).
const run = spawnSync(process.execPath, [mocha, '--no-config', '--timeout', '120000', '--exit', ...flags, ...files], { cwd: root, stdio: 'inherit' });
process.exit(run.status ?? 1);
