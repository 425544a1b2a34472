/**
 * Where the reference's conformance vector files are found. They are public-repository data that is never committed
 * here: `CLAWLING_REFERENCE_VECTORS` (a folder), else `../shared/reference-vectors/` beside the repository, else
 * `test/fixtures/reference-vectors/` (git-ignored). A suite whose file is in none of them registers no cases and says
 * where it looked, on one line.
 */
import fs from 'node:fs';
import path from 'node:path';

function repoRoot(): string {
  for (let dir = __dirname; ; dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, 'package.json')) && fs.existsSync(path.join(dir, 'lib'))) return dir;
    if (path.dirname(dir) === dir) return process.cwd();
  }
}

export function referenceVectorDirs(): string[] {
  const root = repoRoot();
  const dirs: string[] = [];
  const env = process.env.CLAWLING_REFERENCE_VECTORS;
  if (env) dirs.push(path.resolve(env));
  dirs.push(path.resolve(root, '..', 'shared', 'reference-vectors'), path.join(root, 'test', 'fixtures', 'reference-vectors'));
  return dirs;
}

/** The parsed file (its text through `prepare` first, if given), or `undefined` after printing where it was looked for. */
export function loadReferenceVectors<T>(file: string, prepare: (text: string) => string = (text) => text): T | undefined {
  const dirs = referenceVectorDirs();
  for (const dir of dirs) {
    const p = path.join(dir, file);
    if (fs.existsSync(p)) return JSON.parse(prepare(fs.readFileSync(p, 'utf8'))) as T;
  }
  console.log(`    (no ${file}: looked in ${dirs.join(', ')}; no vector cases registered)`);
  return undefined;
}
