/**
 * What the install-routes suite is handed by `.ci/install-routes`: the packed tarball and the tool folders it
 * installs with. Reading them in one place means a missing variable fails every test with the same message instead
 * of a confusing spawn error deep inside one of them.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export interface InstallEnv {
  /** The file `npm pack` wrote. */
  tarball: string;
  /** Bin folder of Node 24 (Node-RED 5 needs Node >= 22.9). */
  node24Bin: string;
  /** Bin folder of Node 26: a gateway installed on Node 24 must keep working after the machine moves to 26. */
  node26Bin: string;
  /** Bin folder of npm 12 (the registry's npm@latest). */
  npm12Bin: string;
  /** The installed `node-red` package folder (holds red.js and Node-RED's own npm). */
  nodeRedDir: string;
  /** The machine's own npm (found on PATH by .ci/install-routes, before anything could shadow it). */
  machineNpm: string;
  /** Scratch folder for prefixes and user dirs; removed by the suites. */
  workDir: string;
}

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: run this suite through .ci/install-routes`);
  if (!fs.existsSync(value)) throw new Error(`${name}=${value} does not exist`);
  return value;
}

export function installEnv(): InstallEnv {
  return {
    tarball: required('CLAWLING_TARBALL'),
    node24Bin: required('CLAWLING_NODE24_BIN'),
    node26Bin: required('CLAWLING_NODE26_BIN'),
    npm12Bin: required('CLAWLING_NPM12_BIN'),
    nodeRedDir: required('CLAWLING_NODE_RED_DIR'),
    machineNpm: required('CLAWLING_MACHINE_NPM'),
    workDir: fs.mkdtempSync(path.join(process.env.CLAWLING_INSTALL_WORK ?? os.tmpdir(), 'install-routes-')),
  };
}

/**
 * The native dependencies with install scripts: the BLE and serial stack (the durable store is on node:sqlite and
 * has none). npm 12 runs none of them unless the installing project or the command line allows them.
 */
export const NATIVE_PACKAGES = [
  '@stoprocent/noble',
  '@stoprocent/bleno',
  '@stoprocent/bluetooth-hci-socket',
  'usb',
  '@serialport/bindings-cpp',
] as const;

export const PACKAGE_NAME = '@clawling/node-red-mesh';
