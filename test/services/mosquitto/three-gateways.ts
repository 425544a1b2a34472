/**
 * One site for the service suite: a real Mosquitto (mosquitto.ts) and three real gateways with overlapping simulated
 * radios. alice (sim0) is heard by all three, bob (sim0) by gw1 only, carol (sim1) by gw2 and gw3; a peer's address
 * comes from its radio id and name, so the same peer on two gateways is one mesh node.
 */
import fs from 'node:fs';
import { identityFromSeed } from '../../../gateway/radios';
import { eventually } from '../../gateway/support/broker';
import { startGateway, tempDir, type Running } from '../../gateway/support/gateway';
import { Mosquitto, PASSWORD, USER } from './mosquitto';

export const GATEWAY_IDS = ['gw1', 'gw2', 'gw3'] as const;
export type GatewayId = (typeof GATEWAY_IDS)[number];

export const SITE_RADIOS: Record<GatewayId, unknown[]> = {
  gw1: [{ id: 'sim0', kind: 'simulated', peers: [{ id: 'alice' }, { id: 'bob' }] }],
  gw2: [{ id: 'sim0', kind: 'simulated', peers: [{ id: 'alice' }] }, { id: 'sim1', kind: 'simulated', peers: [{ id: 'carol' }] }],
  gw3: [{ id: 'sim0', kind: 'simulated', peers: [{ id: 'alice' }] }, { id: 'sim1', kind: 'simulated', peers: [{ id: 'carol' }] }],
};

/** Which peers each node is, on which gateways (radio, peer id). */
export const SITE_NODES = {
  alice: { address: identityFromSeed('clawling-sim:sim0:alice').address, radio: 'sim0', heardBy: ['gw1', 'gw2', 'gw3'] as GatewayId[] },
  bob: { address: identityFromSeed('clawling-sim:sim0:bob').address, radio: 'sim0', heardBy: ['gw1'] as GatewayId[] },
  carol: { address: identityFromSeed('clawling-sim:sim1:carol').address, radio: 'sim1', heardBy: ['gw2', 'gw3'] as GatewayId[] },
};
export type NodeName = keyof typeof SITE_NODES;

export interface ThreeGatewaySite {
  dir: string;
  mq: Mosquitto;
  gateways: Running[];
  byId(id: GatewayId): Running;
  /** Client options for a test's own MQTT 5 clients on the site's broker. */
  auth: { username: string; password: string; protocolVersion: 5 };
  stop(): Promise<void>;
}

/**
 * Starts Mosquitto and the three gateways, each connected. `extra(id)` adds to a gateway's configuration; its `mqtt`
 * object is merged into the site's MQTT settings, other sections replace the defaults of startGateway.
 */
export async function startThreeGatewaySite(prefix: string, extra: (id: GatewayId) => Record<string, unknown> = () => ({})): Promise<ThreeGatewaySite> {
  const dir = tempDir(prefix);
  const mq = await Mosquitto.start(dir);
  const passwordFile = `${dir}/mqtt-password`;
  fs.writeFileSync(passwordFile, `${PASSWORD}\n`, { mode: 0o600 });
  const gateways: Running[] = [];
  const site: ThreeGatewaySite = {
    dir,
    mq,
    gateways,
    byId: (id) => gateways[GATEWAY_IDS.indexOf(id)]!,
    auth: { username: USER, password: PASSWORD, protocolVersion: 5 },
    async stop() {
      for (const g of gateways) await g.stop().catch(() => undefined);
      await mq.stop();
      for (const g of gateways) fs.rmSync(g.dir, { recursive: true, force: true });
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
  try {
    for (const id of GATEWAY_IDS) {
      const { mqtt, ...rest } = extra(id) as { mqtt?: Record<string, unknown> };
      const g = await startGateway(
        undefined,
        {
          gateway: { id },
          radios: SITE_RADIOS[id],
          mqtt: { enabled: true, url: mq.url, username: USER, password_file: passwordFile, reconnect_min_ms: 200, ...mqtt },
          ...rest,
        },
        tempDir(`${prefix}${id}-`),
      );
      gateways.push(g);
      await eventually(() => g.gateway.mqtt?.connected === true, 10000, `${id} connected\n${mq.log}`);
    }
  } catch (err) {
    await site.stop();
    throw err;
  }
  return site;
}
