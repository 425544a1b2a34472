/**
 * `clawling demo` (what `npm start` runs): the dev hub, an MQTT broker, the gateway with two simulated radios (or,
 * with --virtual-ble, a BLE radio and two BLE phones on the virtual controller) and Node-RED with the example flow,
 * on 127.0.0.1 and embedded defaults (demo/). Prints the URLs; Ctrl-C stops it all.
 */
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { CliCommand } from './command';
import { PACKAGE_ROOT } from '../demo/node-red-launcher';
import { DEFAULT_DAEMON_PORT, DEFAULT_PORTS, DEMO, type DemoPorts } from '../demo/settings';

const HELP = `usage: clawling demo [--port N] [--hub-port N] [--mqtt-port N] [--status-port N] [--daemon-port N] [--dir PATH]
                     [--no-node-red] [--virtual-ble] [--verbose]

Starts everything on 127.0.0.1 from embedded defaults: a dev hub (default port ${DEFAULT_PORTS.hub}), an MQTT broker
(${DEFAULT_PORTS.mqtt}), the gateway with two simulated radios and its status page (${DEFAULT_PORTS.status}), and Node-RED
(--port, default ${DEFAULT_PORTS.nodeRed}) with this package's nodes and the flow examples/gateway-demo.json, which shows
messages going mesh → MQTT → hub → Node-RED and back. Beside the radios the gateway-daemon v1 listener takes
phones (--daemon-port, default ${DEFAULT_DAEMON_PORT}; 'clawling daemon-client' attaches). A port of 0 picks a free one.
--virtual-ble: the kitchen and the garden are BLE phones (bleno, serving the mesh GATT service) and the gateway has
one BLE radio (noble central + bleno GATT server) instead of the simulated ones, all on a virtual Bluetooth LE
controller: noble's and bleno's own HCI, L2CAP, ATT and GATT code runs over HCI UARTs on pseudo-terminals, no
adapter needed (python3 opens the pseudo-terminals). No radio waves and no real timing: see docs/radios.md.
--no-node-red leaves Node-RED out. --verbose also prints Node-RED's log.
The demo's state and logs live in PATH (default .demo/ in the package folder), rewritten at every start.
Ctrl-C stops everything.
`;

function port(value: string | undefined, fallback: number, flag: string): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!/^\d+$/.test(value) || n > 65535) throw new Error(`${flag} must be an integer 0..65535, got '${value}'`);
  return n;
}

export const command: CliCommand = {
  summary: 'run the local demo: dev hub, MQTT broker, gateway with simulated radios (or virtual BLE), Node-RED',
  async run(args, io) {
    let values;
    let ports: DemoPorts;
    try {
      ({ values } = parseArgs({
        args,
        options: {
          port: { type: 'string' },
          'hub-port': { type: 'string' },
          'mqtt-port': { type: 'string' },
          'status-port': { type: 'string' },
          'daemon-port': { type: 'string' },
          dir: { type: 'string' },
          'no-node-red': { type: 'boolean' },
          'virtual-ble': { type: 'boolean' },
          verbose: { type: 'boolean' },
          help: { type: 'boolean' },
        },
      }));
      ports = {
        nodeRed: port(values.port, DEFAULT_PORTS.nodeRed, '--port'),
        hub: port(values['hub-port'], DEFAULT_PORTS.hub, '--hub-port'),
        mqtt: port(values['mqtt-port'], DEFAULT_PORTS.mqtt, '--mqtt-port'),
        status: port(values['status-port'], DEFAULT_PORTS.status, '--status-port'),
        daemon: port(values['daemon-port'], DEFAULT_DAEMON_PORT, '--daemon-port'),
      };
    } catch (err) {
      io.stderr.write(`clawling demo: ${(err as Error).message}\n${HELP}`);
      return 2;
    }
    if (values.help) {
      io.stdout.write(HELP);
      return 0;
    }
    const dir = path.resolve(values.dir ?? path.join(PACKAGE_ROOT, '.demo'));
    // The site starts talking while the rest still starts: its lines wait until the banner (the URLs) is out, so that
    // the banner is the first thing a newcomer reads, not something to scroll back to past the first `[mesh]` lines.
    let held: string[] | undefined = [];
    const print = (line: string): void => {
      if (held) held.push(line);
      else io.stdout.write(`${line}\n`);
    };
    const release = (): void => {
      const lines = held ?? [];
      held = undefined;
      if (lines.length > 0) io.stdout.write(`${lines.join('\n')}\n`);
    };
    // Loaded here so that `clawling demo --help` works without the demo's development dependencies.
    let startDemo: typeof import('../demo/run-demo').startDemo;
    try {
      ({ startDemo } = await import('../demo/run-demo'));
    } catch (err) {
      const missing = /Cannot find module '([^']+)'/.exec(String((err as Error).message))?.[1];
      if ((err as NodeJS.ErrnoException).code !== 'MODULE_NOT_FOUND' || missing === undefined) throw err;
      io.stderr.write(`clawling demo: ${missing} is not installed; the demo runs from a checkout of the package after 'npm install' (it uses the development dependencies)\n`);
      return 1;
    }
    let demo;
    try {
      demo = await startDemo({ ports, dir, verbose: values.verbose === true, withoutNodeRed: values['no-node-red'] === true, virtualBle: values['virtual-ble'] === true, print });
    } catch (err) {
      // What the site printed before the failure may explain it.
      release();
      const e = err as { code?: string; message?: string };
      io.stderr.write(`clawling demo: ${e.code ? `${e.code}: ` : ''}${e.message ?? String(err)}\n`);
      return 1;
    }
    const u = demo.urls;
    // Every URL here answers a GET (or, for ws://, a WebSocket upgrade); the media base is only ever shown as the
    // --url of a command, because on its own it is no page.
    io.stdout.write(
      [
        '',
        'Clawling demo is running (everything on 127.0.0.1):',
        ...(u.nodeRed ? [`  Node-RED editor:     ${u.nodeRed}/   (flow "Gateway demo"; the debug sidebar shows the traffic; pid ${demo.nodeRedPid})`] : []),
        `  Gateway status page: ${u.status}   (radios, neighbours, recent messages)`,
        ...(u.status.startsWith('http') ? [`  Gateway web UI:      ${u.status}/ui   (live log, map, nodes, node pages, gateway)`] : []),
        demo.radios === 'virtual-ble'
          ? `  Radios:              ble0 on the virtual BLE controller (noble + bleno over HCI UART ptys); kitchen and garden are BLE phones`
          : `  Radios:              sim0 (kitchen, porch) and sim1 (garden), simulated`,
        `  Dev hub:             ${u.hub}   (WebSocket; health ${u.media}/health)`,
        `  Dev hub admin:       ${u.hubAdmin}   (index of the admin routes: devices, inbox, media, faults)`,
        `  Dev hub admin token: ${demo.hubAdminToken}   (every route but the index: "Authorization: Bearer TOKEN")`,
        `  MQTT broker:         ${u.mqtt}   (topics clawling/${DEMO.gatewayId}/#)`,
        ...(u.daemon
          ? [
              `  Gateway daemon:      ${u.daemon}   (gateway-daemon v1, beside the radios: phones attach here; docs/gateway-daemon.md)`,
              `    npx clawling daemon-client --keygen phone.pem`,
              `    npx clawling daemon-client --connect ${u.daemon} --key phone.pem`,
            ]
          : []),
        `  As ${DEMO.youUser} (token ${DEMO.youToken}), write in the hub chat and upload a file to the hub's media service:`,
        `    export YOU_TOKEN=${DEMO.youToken}`,
        `    npx clawling hub send --url ${u.hub} --token-env YOU_TOKEN --user-id ${DEMO.youUser} --device-id you-cli --chat ${DEMO.chat} --text 'hello mesh'`,
        `    npx clawling media upload --url ${u.media} --token-env YOU_TOKEN icons/mesh-encode.svg`,
        `  Logs: ${path.join(dir, 'gateway.log')}, ${path.join(dir, 'node-red.log')}`,
        'Press Ctrl-C to stop.',
        '',
      ].join('\n'),
    );
    release();
    let stopping = false;
    await new Promise<void>((resolve) => {
      const stop = (): void => {
        stopping = true;
        process.off('SIGINT', stop);
        process.off('SIGTERM', stop);
        resolve();
      };
      process.on('SIGINT', stop);
      process.on('SIGTERM', stop);
      void demo.nodeRedExited.then(() => {
        if (stopping) return;
        io.stderr.write('clawling demo: Node-RED ended; stopping the rest\n');
        stop();
      });
    });
    io.stdout.write('Stopping the demo…\n');
    await demo.stop();
    io.stdout.write('Demo stopped.\n');
    return 0;
  },
};
