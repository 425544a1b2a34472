/** Starts a real `Gateway` (simulated radios, real broker, real state folder) for end-to-end tests. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Gateway, type GatewayOptions } from '../../../gateway/gateway';
import type { SimulatedRadio, VirtualPeer } from '../../../gateway/radios';
import { eventually, type TestBroker } from './broker';
import { testConfig } from './config';

export const BASE = 'clawling/gw-test';

export const TWO_RADIOS = [
  {
    id: 'sim0',
    kind: 'simulated',
    peers: [
      { id: 'alice', wire_versions: [1], rssi: -61 },
      { id: 'bob', wire_versions: [] },
    ],
  },
  { id: 'sim1', kind: 'simulated', peers: [{ id: 'carol', wire_versions: [1] }] },
];

export interface Running {
  gateway: Gateway;
  dir: string;
  peer(radio: string, id: string): VirtualPeer;
  stop(): Promise<void>;
}

export function tempDir(prefix: string): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

export async function startGateway(
  broker: TestBroker | undefined,
  overrides: Record<string, unknown> = {},
  dir = tempDir('gw-e2e-'),
  options: GatewayOptions = {},
): Promise<Running> {
  const config = testConfig(path.join(dir, 'state'), {
    radios: TWO_RADIOS,
    mqtt: broker ? { enabled: true, url: broker.url } : { enabled: false },
    http: { enabled: true, port: 0 },
    ...overrides,
  });
  const gateway = new Gateway(config, options);
  await gateway.start();
  if (broker?.running) await eventually(() => gateway.mqtt?.connected === true, 10000, 'gateway connected to the broker');
  return {
    gateway,
    dir,
    peer(radio, id) {
      const r = gateway.radios.find((x) => x.id === radio) as SimulatedRadio | undefined;
      const p = r?.virtualPeer(id);
      if (!p) throw new Error(`no virtual peer ${radio}/${id}`);
      return p;
    },
    async stop() {
      await gateway.stop('test');
    },
  };
}
