/**
 * `clawling demo` (what `npm start` runs): Node-RED on 127.0.0.1 with this package's nodes and every example
 * flow deployed, on embedded defaults. Ctrl-C stops everything it started.
 */
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { CliCommand } from './command';
import { PACKAGE_ROOT, launchNodeRed, loadExampleFlows } from './node-red-launcher';

const HELP = `usage: clawling demo [--port N] [--dir PATH]

Starts Node-RED on 127.0.0.1 (default port 1880) with this package's nodes and its example flows deployed.
The demo's state lives in PATH (default .demo/ in the package folder) and is rewritten at every start.
`;

export const command: CliCommand = {
  summary: 'run the local demo (Node-RED with the example flows)',
  async run(args, io) {
    const { values } = parseArgs({
      args,
      options: { port: { type: 'string', default: '1880' }, dir: { type: 'string' }, help: { type: 'boolean' } },
    });
    if (values.help) {
      io.stdout.write(HELP);
      return 0;
    }
    const port = Number(values.port);
    if (!Number.isInteger(port) || port < 0 || port > 65535) {
      io.stderr.write(`clawling demo: --port must be an integer 0..65535, got '${values.port}'\n`);
      return 2;
    }
    const dir = path.resolve(values.dir ?? path.join(PACKAGE_ROOT, '.demo'));
    const nodeRed = await launchNodeRed({
      userDir: path.join(dir, 'node-red'),
      port,
      flows: loadExampleFlows(),
      onLog: (line) => io.stdout.write(`[node-red] ${line}\n`),
    });
    io.stdout.write(`\nClawling demo is running.\n  Node-RED editor: ${nodeRed.url}/\nPress Ctrl-C to stop.\n\n`);
    await new Promise<void>((resolve) => {
      const stop = (): void => {
        process.off('SIGINT', stop);
        process.off('SIGTERM', stop);
        resolve();
      };
      process.on('SIGINT', stop);
      process.on('SIGTERM', stop);
      nodeRed.process.once('exit', stop);
    });
    io.stdout.write('Stopping the demo…\n');
    await nodeRed.stop();
    return 0;
  },
};
