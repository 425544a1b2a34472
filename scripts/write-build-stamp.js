// The last step of `npm run build`: records which inputs the finished build saw, so build-if-stale.js can tell later.
'use strict';
const fs = require('fs');
const path = require('path');
const { fingerprint } = require('./build-inputs');

const root = path.join(__dirname, '..');
const STAMP = path.join(root, 'dist', '.build-stamp.json');

// Taken now, after tsc: an input saved during the build is then counted as built although it may not be. Rare
// enough for a developer tool, and the next change to any input rebuilds anyway.
const { count, newestMs } = fingerprint(root);
fs.mkdirSync(path.dirname(STAMP), { recursive: true });
fs.writeFileSync(STAMP, `${JSON.stringify({ count, newestMs })}\n`);
