#!/usr/bin/env bash
# For work in progress on one area: compile everything (emitting even when another area has type errors),
# copy the editor assets, and run only the given compiled test files.
#   scripts/dev-test.sh 'dist/test/lib/mesh/**/*.test.js' [more mocha args]
set -u
cd "$(dirname "$0")/.."
npx tsc -p tsconfig.json >/tmp/dev-test-tsc.$$ 2>&1
status=$?
if [[ $status -ne 0 ]]; then
  echo "tsc reported errors (compiled anyway); first lines:"
  head -20 /tmp/dev-test-tsc.$$
fi
rm -f /tmp/dev-test-tsc.$$
node scripts/copy-assets.js >/dev/null
exec npx mocha --no-config --timeout 60000 --exit --reporter dot "$@"
