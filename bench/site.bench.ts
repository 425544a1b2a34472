/**
 * A site on one broker (docs/scaling.md "Bench"): three gateways × four simulated radios on one real Mosquitto
 * (MQTT 5), with one dev hub and the three on one hub account, all in this process. Radios overlap: sim0 and sim1
 * hear the same two nodes on every gateway, sim2 the same two on gw1 and gw2 (gw3's sim2 hears two of its own), sim3
 * two nodes no other gateway hears. Every node broadcasts; a frame is heard by every gateway in its range.
 *
 * Prints: distinct mesh messages/s to MQTT and to the hub, against one gateway with the same four radios on the same
 * broker (the baseline, measured in the same run); duplicates per layer (gateway receptions, MQTT publishes, hub
 * sends, hub inbox rows, at the hub user); site downlink requests/s through the shared subscription and how the
 * broker spread them. `npm run bench:site` (needs /usr/sbin/mosquitto, mosquitto_passwd and openssl).
 * BENCH_SITE_MESSAGES sets the messages per run (default 6 000), BENCH_SITE_REQUESTS the requests (default 3 000).
 */
import fs from 'node:fs';
import mqtt from 'mqtt';
import { startDevHub, type DevHub } from '../devhub';
import type { HubBridge } from '../gateway/extensions/hub-bridge/hub-bridge';
import { hubMessageIdFor } from '../gateway/extensions/hub-bridge/message-ids';
import { createMessage, type MeshMessage } from '../lib/mesh/message';
import { MessageId } from '../lib/mesh/message-id';
import { Recorder, eventually } from '../test/gateway/support/broker';
import { startGateway, tempDir, type Running } from '../test/gateway/support/gateway';
import { Mosquitto, PASSWORD, USER } from '../test/services/mosquitto/mosquitto';

const MESSAGES = Number(process.env.BENCH_SITE_MESSAGES ?? 6000);
const REQUESTS = Number(process.env.BENCH_SITE_REQUESTS ?? 3000);
/** Frames the driver keeps on their way at once. */
const AHEAD = 200;
const CHAT = 'cnv_01J00000000000000000SITE1';
const ACCOUNT = { id: 'agt_site_gateway', token: 'site-bench-token-1' };
const USER_ACCOUNT = { id: 'usr_site_reader', token: 'site-bench-token-2' };

type GatewayId = 'gw1' | 'gw2' | 'gw3';

function radiosOf(id: GatewayId): unknown[] {
  const peers = (names: string[]) => names.map((n) => ({ id: n, wire_versions: [1] }));
  return [
    { id: 'sim0', kind: 'simulated', peers: peers(['n0a', 'n0b']) },
    { id: 'sim1', kind: 'simulated', peers: peers(['n1a', 'n1b']) },
    { id: 'sim2', kind: 'simulated', peers: peers(id === 'gw3' ? ['n2c', 'n2d'] : ['n2a', 'n2b']) },
    { id: 'sim3', kind: 'simulated', peers: peers([`solo-${id}-a`, `solo-${id}-b`]) },
  ];
}

/** Each node once, with the gateways (and radio) that hear it. */
function nodesOf(gateways: GatewayId[]): Array<{ radio: string; peer: string; heardBy: GatewayId[] }> {
  const byKey = new Map<string, { radio: string; peer: string; heardBy: GatewayId[] }>();
  for (const g of gateways) {
    for (const r of radiosOf(g) as Array<{ id: string; peers: Array<{ id: string }> }>) {
      for (const p of r.peers) {
        const key = `${r.id}:${p.id}`;
        const node = byKey.get(key) ?? { radio: r.id, peer: p.id, heardBy: [] };
        node.heardBy.push(g);
        byKey.set(key, node);
      }
    }
  }
  return [...byKey.values()];
}

interface Run {
  messagesPerS: number;
  /** Process CPU (all threads) per distinct message, in microseconds: gateways, broker client, hub and driver. */
  cpuUsPerMessage: number;
  hubPerS: number;
  receptions: number;
  mqttPublishes: number;
  hubSends: number;
  hubRows: number;
  atUser: number;
}

async function runSite(ids: GatewayId[], mq: Mosquitto, passwordFile: string, label: string): Promise<{ run: Run; gateways: Running[]; hub: DevHub; stop: () => Promise<void> }> {
  const hub = await startDevHub({
    users: [
      { id: ACCOUNT.id, nick_name: 'Site gateways', token: ACCOUNT.token },
      { id: USER_ACCOUNT.id, nick_name: 'Reader', token: USER_ACCOUNT.token },
    ],
    chats: [{ id: CHAT, members: [ACCOUNT.id, USER_ACCOUNT.id] }],
  });
  const sends: string[] = [];
  hub.admin.on('uplink', (u: { event: string; user_id: string; frame?: Record<string, unknown> }) => {
    const id = (u.frame?.payload as { message_id?: string } | undefined)?.message_id;
    if (u.event === 'message.send' && u.user_id === ACCOUNT.id && id !== undefined) sends.push(id);
  });
  const gateways: Running[] = [];
  for (const id of ids) {
    const g = await startGateway(
      undefined,
      {
        gateway: { id },
        radios: radiosOf(id),
        http: { enabled: false },
        mqtt: {
          enabled: true,
          url: mq.url,
          username: USER,
          password_file: passwordFile,
          site: { id: 'bench' },
          send_policy: { rate_per_s: null },
          homeassistant: { enabled: false },
        },
        hub: { enabled: true, url: hub.wsUrl, token: ACCOUNT.token, user_id: ACCOUNT.id, mesh_to_hub: [{ chat_id: CHAT, recipient: '*', label: 'none' }] },
      },
      tempDir(`site-bench-${label}-${id}-`),
    );
    gateways.push(g);
    await eventually(() => g.gateway.mqtt?.connected === true && g.gateway.extension<HubBridge>('hub-bridge')!.client.state === 'connected', 20000, `${id} up`);
  }
  const rec = await Recorder.connect(mq.url, ['clawling/+/messages'], { username: USER, password: PASSWORD, protocolVersion: 5 });
  const nodes = nodesOf(ids);
  const messages: MeshMessage[] = [];
  let receptions = 0;
  const started = performance.now();
  const cpu0 = process.cpuUsage();
  const inFlight = new Set<Promise<unknown>>();
  for (let i = 0; i < MESSAGES; i++) {
    const node = nodes[i % nodes.length]!;
    const first = gateways[ids.indexOf(node.heardBy[0]!)]!.peer(node.radio, node.peer);
    const m = createMessage({ id: MessageId.random(), sender: first.address, recipient: 'off1broadcast', app_id: 'bench', priority: 'medium', ttl: 1, hop_count: 0, timestamp: BigInt(Date.now()), content: `reading ${i}` });
    messages.push(m);
    receptions += node.heardBy.length;
    const p = Promise.all(node.heardBy.map((g) => gateways[ids.indexOf(g)]!.peer(node.radio, node.peer).send(m)));
    inFlight.add(p);
    void p.finally(() => inFlight.delete(p));
    if (inFlight.size >= AHEAD) await Promise.race(inFlight);
  }
  await Promise.all(inFlight);
  const distinct = new Set<string>();
  let seen = 0;
  await rec.until(
    () => {
      for (; seen < rec.messages.length; seen++) distinct.add((JSON.parse(rec.messages[seen]!.payload.toString()) as { id: string }).id);
      return distinct.size >= MESSAGES;
    },
    300000,
    'every message on MQTT',
  );
  const mqttS = (performance.now() - started) / 1000;
  const hubIds = new Set(messages.map((m) => hubMessageIdFor(m.id)));
  const rowsFor = (): number => hub.admin.inbox(USER_ACCOUNT.id).filter((r) => hubIds.has(r.message_id)).length;
  await eventually(() => rowsFor() >= MESSAGES, 300000, 'every message at the hub');
  const hubS = (performance.now() - started) / 1000;
  for (const g of gateways) await eventually(() => g.gateway.extension<HubBridge>('hub-bridge')!.client.stats().outbox === 0, 60000, 'hub outboxes empty');
  const cpu = process.cpuUsage(cpu0);
  const mqttPublishes = rec.messages.length;
  await rec.close();
  const run: Run = {
    messagesPerS: MESSAGES / mqttS,
    cpuUsPerMessage: (cpu.user + cpu.system) / MESSAGES,
    hubPerS: MESSAGES / hubS,
    receptions,
    mqttPublishes,
    hubSends: sends.filter((s) => hubIds.has(s)).length,
    hubRows: rowsFor(),
    atUser: new Set(hub.admin.inbox(USER_ACCOUNT.id).filter((r) => hubIds.has(r.message_id)).map((r) => r.message_id)).size,
  };
  return {
    run,
    gateways,
    hub,
    async stop() {
      for (const g of gateways) {
        await g.stop();
        fs.rmSync(g.dir, { recursive: true, force: true });
      }
      await hub.stop();
    },
  };
}

async function downlink(mq: Mosquitto, gateways: Running[]): Promise<{ perS: number; taken: Record<string, number> }> {
  const auth = { username: USER, password: PASSWORD, protocolVersion: 5 as const };
  const result = 'clawling/site/bench/send/result';
  const rec = await Recorder.connect(mq.url, [result], auth);
  await eventually(() => gateways.every((g) => g.gateway.snapshot().site?.takes_sends === true), 10000, 'site downlink subscribed');
  const client = mqtt.connect(mq.url, { ...auth, reconnectPeriod: 0 });
  await new Promise<void>((resolve) => client.once('connect', () => resolve()));
  const recipient = gateways[0]!.peer('sim0', 'n0a').address;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: REQUESTS }, (_, i) => client.publishAsync('clawling/site/bench/send', JSON.stringify({ request_id: `b-${i}`, recipient, content: `request ${i}`, requires_ack: false }), { qos: 1 })),
  );
  await rec.until(() => rec.messages.length >= REQUESTS, 120000, 'every request answered');
  const perS = REQUESTS / ((performance.now() - started) / 1000);
  const taken: Record<string, number> = {};
  for (const r of rec.json<{ gateway: string }>(result)) taken[r.gateway] = (taken[r.gateway] ?? 0) + 1;
  await client.endAsync();
  await rec.close();
  return { perS, taken };
}

async function main(): Promise<void> {
  const dir = tempDir('site-bench-');
  const mq = await Mosquitto.start(dir);
  const passwordFile = `${dir}/mqtt-password`;
  fs.writeFileSync(passwordFile, `${PASSWORD}\n`, { mode: 0o600 });
  const print = (line: string): void => console.log(line);
  try {
    print(`site bench: ${MESSAGES} broadcast mesh messages per run, sqlite stores (store_sync full), Mosquitto ${mq.url}, one dev hub, all in one process`);
    const one = await runSite(['gw1'], mq, passwordFile, 'one');
    await one.stop();
    const three = await runSite(['gw1', 'gw2', 'gw3'], mq, passwordFile, 'three');
    const row = (name: string, r: Run): string =>
      `  ${name.padEnd(26)} ${r.messagesPerS.toFixed(0).padStart(6)} msg/s to MQTT  ${r.hubPerS.toFixed(0).padStart(6)} msg/s to the hub  ${r.cpuUsPerMessage.toFixed(0).padStart(5)} µs CPU per message`;
    print(row('1 gateway × 4 radios', one.run));
    print(row('3 gateways × 4 radios', three.run));
    const r = three.run;
    const dup = (n: number): string => `${n} (${(n / MESSAGES).toFixed(2)} per message, duplicates ${n - MESSAGES})`;
    print('  duplicates per layer, three gateways:');
    print(`    gateway receptions  ${dup(r.receptions)}`);
    print(`    MQTT publishes      ${dup(r.mqttPublishes)}  (consumers merge by id)`);
    print(`    hub sends           ${dup(r.hubSends)}`);
    print(`    hub inbox rows      ${dup(r.hubRows)}`);
    print(`    at the hub user     ${dup(r.atUser)}`);
    const d = await downlink(mq, three.gateways);
    print(`  site downlink: ${REQUESTS} requests, ${d.perS.toFixed(0)} answered/s through $share, taken ${JSON.stringify(d.taken)}`);
    await three.stop();
  } finally {
    await mq.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
