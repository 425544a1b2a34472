/**
 * Which Node-RED the tests run against: the devDependency (Node-RED 4.1), or the install that
 * `CLAWLING_NODE_RED_DIR` names (the `node_modules/node-red` folder of, for example, `npm install node-red@5`;
 * CI gets one from `.ci/toolchain node-red 5`). Everything that loads Node-RED or its core nodes asks here, so one
 * run never mixes a 4.1 runtime with 5's core nodes. `CLAWLING_NODE_RED_MAJOR`, when set, is the major the run must
 * load: a selection that silently fell back to the devDependency fails instead of passing on the wrong Node-RED.
 */
import fs from 'node:fs';
import path from 'node:path';

export interface NodeRedPackage {
  /** The `node-red` package folder. */
  dir: string;
  /** The devDependency, not an install named by CLAWLING_NODE_RED_DIR. */
  isDevDependency: boolean;
  version: string;
  /** Its `red.js`, what `node-red` runs. */
  redJs: string;
  /** Its main module, what node-red-node-test-helper loads. */
  main: string;
  /** The `@node-red/nodes` folder that install resolves (Catch, Status, Inject… live under `core/`). */
  nodesDir: string;
}

let selected: NodeRedPackage | undefined;

function select(): NodeRedPackage {
  const named = process.env.CLAWLING_NODE_RED_DIR;
  const dir = named ? path.resolve(named) : path.dirname(require.resolve('node-red/package.json'));
  const pkgFile = path.join(dir, 'package.json');
  if (!fs.existsSync(pkgFile)) throw new Error(`CLAWLING_NODE_RED_DIR=${named}: no package.json there (it names the node_modules/node-red folder of an install)`);
  const pkg = JSON.parse(fs.readFileSync(pkgFile, 'utf8')) as { name?: string; version?: string; main?: string };
  if (pkg.name !== 'node-red' || !pkg.version) throw new Error(`${dir} is not the node-red package (its package.json names ${pkg.name ?? 'nothing'})`);
  const wanted = process.env.CLAWLING_NODE_RED_MAJOR;
  if (wanted && pkg.version.split('.')[0] !== wanted) throw new Error(`this run must load Node-RED ${wanted}, but ${dir} holds ${pkg.version}`);
  return {
    dir,
    isDevDependency: !named,
    version: pkg.version,
    redJs: path.join(dir, 'red.js'),
    main: require.resolve(dir),
    nodesDir: path.dirname(require.resolve('@node-red/nodes/package.json', { paths: [dir] })),
  };
}

export function nodeRedPackage(): NodeRedPackage {
  selected ??= select();
  return selected;
}

/** A core node module of the selected Node-RED, e.g. `core/common/25-catch.js`, to load beside the nodes under test. */
export function coreNode(file: string): unknown {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require(path.join(nodeRedPackage().nodesDir, file));
}
