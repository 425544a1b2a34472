/**
 * `npm start`: the whole system on one machine, on loopback only, from embedded defaults (demo/settings.ts):
 *
 *   dev hub (WebSocket + media) ─┐
 *   aedes MQTT broker ───────────┼── gateway (two simulated radios, MQTT bridge, hub bridge, status page)
 *   Node-RED (this package's nodes, examples/gateway-demo.json) ── hub + MQTT
 *
 * With `virtualBle` the gateway has one BLE radio instead, and the kitchen and the garden are BLE phones, all on the
 * virtual controller through noble's and bleno's own stacks (virtual-ble-site.ts).
 *
 * Start order is dependency order, stop order its reverse; whatever fails to start stops what already runs, and
 * `stop()` leaves no listener or child process behind. Gateway and Node-RED logs go to files in the demo folder.
 */
import fs from 'node:fs';
import path from 'node:path';
import pino from 'pino';
import YAML from 'yaml';
import { startDevHub, type DevHub } from '../devhub';
import { loadConfig } from '../gateway/load-config';
import { collectSecrets } from '../gateway/config/redact';
import { loadExtensionSections } from '../gateway/extensions/index';
import type { HubBridge } from '../gateway/extensions/hub-bridge/hub-bridge';
import type { GatewayDaemon } from '../gateway/extensions/daemon';
import { Gateway } from '../gateway/gateway';
import { loadOrCreateIdentity } from '../gateway/identity';
import { createLogger, type Logger } from '../gateway/logger';
import { printable } from '../lib/printable';
import { DemoError } from './errors';
import { launchNodeRed, type RunningNodeRed } from './node-red-launcher';
import { startDemoBroker, type DemoBroker } from './broker';
import { demoFlow } from './flow';
import { DEMO, devHubOptions, gatewayConfig, type DemoPorts, type DemoRadios } from './settings';
import { startVirtualBleSite, type VirtualBleSite } from './virtual-ble-site';
import { simulatedPeers, VirtualSite, type DemoPeer } from './virtual-site';

export { DemoError } from './errors';

export interface DemoOptions {
  /** 0 picks a free port. */
  ports: DemoPorts;
  /** The demo's folder (gateway state, Node-RED userDir, logs); rewritten at every start. */
  dir: string;
  /** Also print the Node-RED log lines. */
  verbose?: boolean;
  /** Leave Node-RED out (everything else runs). */
  withoutNodeRed?: boolean;
  /** The kitchen and the garden as BLE phones, and the gateway's BLE radio, on the virtual controller (devble/). */
  virtualBle?: boolean;
  /** With `virtualBle`: the python3 that opens the controller's ptys (default /usr/bin/python3, else python3 on PATH). */
  python?: string;
  /** Gets one line at a time, already printable: mesh content and hub texts are escaped before they reach it. */
  print: (line: string) => void;
}

export interface DemoUrls {
  nodeRed?: string;
  status: string;
  hub: string;
  media: string;
  hubAdmin: string;
  mqtt: string;
  /** host:port of the gateway-daemon v1 listener. */
  daemon?: string;
}

export interface RunningDemo {
  urls: DemoUrls;
  /** The dev hub's admin token (drawn at every start): `Authorization: Bearer …` on the admin routes. */
  hubAdminToken: string;
  nodeRedPid?: number;
  gateway: Gateway;
  radios: DemoRadios;
  /** The talking nodes: the simulated radios' virtual peers, or the BLE phones. */
  peers: readonly DemoPeer[];
  /** Resolves if Node-RED ends by itself (then the demo should stop). */
  nodeRedExited: Promise<void>;
  stop(): Promise<void>;
}

function inUse(err: unknown, what: string, flag: string, port: number): Error {
  if ((err as NodeJS.ErrnoException).code === 'EADDRINUSE') {
    return new DemoError('PORT_IN_USE', `port ${port} (${what}) is in use; choose another with ${flag} (0 picks a free one)`);
  }
  return err as Error;
}

export async function startDemo(options: DemoOptions): Promise<RunningDemo> {
  // The demo console's one seam: every line (mesh content, hub texts, Node-RED's own log lines) goes out printable.
  const o: DemoOptions = { ...options, print: (line) => options.print(printable(line)) };
  fs.mkdirSync(o.dir, { recursive: true });
  for (const sub of ['gateway-state', 'node-red']) fs.rmSync(path.join(o.dir, sub), { recursive: true, force: true });
  const stops: Array<() => Promise<void>> = [];
  const stopAll = async (): Promise<void> => {
    for (const stop of stops.splice(0).reverse()) {
      try {
        await stop();
      } catch {
        // Keep stopping the rest: one part that fails to stop must not leave the others running.
      }
    }
  };
  try {
    let hub: DevHub;
    try {
      hub = await startDevHub(devHubOptions(o.ports.hub));
    } catch (err) {
      throw inUse(err, 'dev hub', '--hub-port', o.ports.hub);
    }
    stops.push(() => hub.stop());

    let broker: DemoBroker;
    try {
      broker = await startDemoBroker(o.ports.mqtt);
    } catch (err) {
      throw inUse(err, 'MQTT broker', '--mqtt-port', o.ports.mqtt);
    }
    stops.push(() => broker.stop());

    const radios: DemoRadios = o.virtualBle ? 'virtual-ble' : 'simulated';
    const gatewayStateDir = path.join(o.dir, 'gateway-state');
    let ble: VirtualBleSite | undefined;
    if (o.virtualBle) {
      // The air and the phones first: the gateway's configuration names the pty of its controller.
      ble = await startVirtualBleSite({ identity: loadOrCreateIdentity(gatewayStateDir), python: o.python });
      const air = ble;
      stops.push(() => air.close());
    }
    const bleAdapter = ble === undefined ? undefined : `uart:${ble.ptys.gateway}`;
    const loaded = loadConfig({
      text: YAML.stringify(gatewayConfig({ stateDir: gatewayStateDir, hubUrl: hub.wsUrl, mqttUrl: broker.url, statusPort: o.ports.status, radios, bleAdapter, daemonPort: o.ports.daemon ?? 0 })),
      env: {},
      ...(await loadExtensionSections()),
      cwd: o.dir,
    });
    const logFile = path.join(o.dir, 'gateway.log');
    const destination = pino.destination({ dest: logFile, sync: false, mkdir: true });
    const logger: Logger = createLogger({ level: 'info', destination, secrets: collectSecrets(loaded.config, loaded.schema) });
    // The file opens asynchronously: a start that fails at once must not close it, or leave it opening, under a
    // caller that removes the folder next (the open would then fail with nobody listening).
    const opened = new Promise<void>((resolve) => {
      destination.once('ready', () => resolve());
      destination.once('error', () => resolve());
    });
    const closeLog = async (): Promise<void> => {
      await opened;
      try {
        destination.flushSync();
      } catch {
        // The open failed: there is nothing to flush.
      }
      destination.end();
    };
    const gateway = new Gateway(loaded.config, { logger });
    try {
      await gateway.start();
    } catch (err) {
      // A failed start has torn the gateway down (its radio included); the virtual air's stop is on the list.
      await closeLog();
      throw inUse(err, 'gateway status page', '--status-port', o.ports.status);
    }
    stops.push(async () => {
      await gateway.stop('demo stopped');
      await closeLog();
    });
    if (ble !== undefined) {
      const p = ble.ptys;
      o.print(`[ble]    on the virtual BLE controller (devble/): gateway (central and GATT server, adapter uart:${p.gateway}), kitchen ${p.kitchen}, garden ${p.garden}`);
      await ble.connected();
      o.print(`[ble]    gateway ${loaded.config.radios[0]?.id ?? 'ble0'} connected to ${ble.peers.map((peer) => peer.id).join(' and ')} and subscribed to their MESSAGE notifications`);
    }

    const peers: DemoPeer[] = ble?.peers ?? simulatedPeers(gateway);
    const site = new VirtualSite(peers, o.print);
    const bridge = gateway.extension<HubBridge>('hub-bridge');
    bridge?.client.on('message', (m) => {
      if (m.fromSelf) return;
      o.print(`[hub]    ${m.sender.nickName ?? m.sender.id} → chat: ${m.text}`);
    });
    site.start();
    stops.push(async () => site.stop());

    const urls: DemoUrls = {
      status: gateway.statusUrl ?? '(disabled)',
      hub: hub.wsUrl,
      media: hub.mediaUrl,
      hubAdmin: hub.adminUrl,
      mqtt: broker.url,
    };
    const daemon = gateway.extension<GatewayDaemon>('daemon')?.address;
    if (daemon) urls.daemon = `${daemon.host}:${daemon.port}`;
    let nodeRed: RunningNodeRed | undefined;
    let nodeRedExited: Promise<void> = new Promise(() => undefined);
    if (!o.withoutNodeRed) {
      // The launcher picks a free port for 0 (Node-RED itself cannot listen on 0 and report it).
      const port = o.ports.nodeRed;
      const log = fs.createWriteStream(path.join(o.dir, 'node-red.log'));
      stops.push(() => new Promise<void>((resolve) => log.end(() => resolve())));
      try {
        nodeRed = await launchNodeRed({
          userDir: path.join(o.dir, 'node-red'),
          port,
          flows: demoFlow({ hubUrl: hub.wsUrl, mediaUrl: hub.mediaUrl, mqttPort: broker.port }),
          credentials: { [DEMO.hubConfigNode]: { token: DEMO.nodeRedToken } },
          onLog: (line) => {
            log.write(`${line}\n`);
            if (o.verbose) o.print(`[node-red] ${line}`);
          },
        });
      } catch (err) {
        throw new DemoError('NODE_RED_FAILED', `${(err as Error).message} (is port ${port} free? see ${path.join(o.dir, 'node-red.log')}, or use --port)`);
      }
      const running = nodeRed;
      stops.push(() => running.stop());
      urls.nodeRed = running.url;
      nodeRedExited = new Promise<void>((resolve) => running.process.once('exit', () => resolve()));
    }
    return {
      urls,
      hubAdminToken: hub.adminToken,
      ...(nodeRed?.process.pid !== undefined ? { nodeRedPid: nodeRed.process.pid } : {}),
      gateway,
      radios,
      peers,
      nodeRedExited,
      stop: stopAll,
    };
  } catch (err) {
    await stopAll();
    throw err;
  }
}
