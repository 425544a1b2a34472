/**
 * The site downlink (docs/scaling.md): three gateways of one site on a real Mosquitto take `clawling/site/<site>/send`
 * through an MQTT 5 shared subscription, so each request is transmitted by exactly one gateway, directly when the
 * recipient is its neighbour and by the relay rule otherwise, and answered once on the site's result topic with
 * its `request_id` and the gateway that took it. On MQTT 3.1.1 only the gateway marked `v311_owner` takes them.
 */
import assert from 'node:assert/strict';
import mqtt from 'mqtt';
import { identityFromSeed } from '../../../gateway/radios';
import type { SimulatedRadio } from '../../../gateway/radios';
import type { StatusHttp } from '../../../gateway/extensions/status/status-http';
import { Recorder, eventually } from '../../gateway/support/broker';
import type { Running } from '../../gateway/support/gateway';
import { GATEWAY_IDS, SITE_NODES, startThreeGatewaySite, type GatewayId, type ThreeGatewaySite } from './three-gateways';

const SITE = 'home';
const SEND = `clawling/site/${SITE}/send`;
const RESULT = `clawling/site/${SITE}/send/result`;
/** Heard by no gateway: every request to it is relayed. */
const DAVE = identityFromSeed('clawling-sim:nowhere:dave').address;
const RECIPIENTS = [SITE_NODES.alice.address, SITE_NODES.bob.address, SITE_NODES.carol.address, DAVE];

interface Result {
  request_id: string;
  id: string;
  status: string;
  via?: string[];
  gateway: string;
  site: string;
}

function siteSettings(extra: Record<string, unknown> = {}): Record<string, unknown> {
  // No rate limit: the test measures who transmits, not the policy (send-policy tests cover that).
  return { site: { id: SITE, ...extra }, send_policy: { rate_per_s: null }, homeassistant: { enabled: false } };
}

/** Every message id each virtual peer of a gateway received (ACKs and relays of others aside). */
function transmissions(g: Running): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const radio of g.gateway.radios as SimulatedRadio[]) {
    for (const peer of radio.virtualPeers()) {
      for (const m of peer.received()) {
        const id = m.id.toString();
        out.set(id, [...(out.get(id) ?? []), `${radio.id}/${peer.id}`]);
      }
    }
  }
  return out;
}

async function publishAll(site: ThreeGatewaySite, requests: Array<Record<string, unknown>>, protocolVersion: 4 | 5 = 5): Promise<void> {
  const client = mqtt.connect(site.mq.url, { ...site.auth, protocolVersion, reconnectPeriod: 0 });
  await new Promise<void>((resolve, reject) => {
    client.once('connect', () => resolve());
    client.once('error', reject);
  });
  await Promise.all(requests.map((r) => client.publishAsync(SEND, JSON.stringify(r), { qos: 1 })));
  await client.endAsync();
}

function byRequest(rec: Recorder): Map<string, Result[]> {
  const out = new Map<string, Result[]>();
  for (const r of rec.json<Result>(RESULT)) out.set(r.request_id, [...(out.get(r.request_id) ?? []), r]);
  return out;
}

describe('the site downlink on Mosquitto: one gateway per request', function () {
  this.timeout(120000);

  describe('MQTT 5: a shared subscription', () => {
    let site: ThreeGatewaySite;
    let rec: Recorder;
    before(async () => {
      site = await startThreeGatewaySite('site-dl-', () => ({ mqtt: siteSettings() }));
      rec = await Recorder.connect(site.mq.url, [RESULT], site.auth);
      // The shared subscription is made right after CONNACK; wait until each gateway reports it takes the downlink.
      await eventually(() => site.gateways.every((g) => g.gateway.snapshot().site?.takes_sends === true), 10000, 'every gateway on the site downlink');
    });
    after(async () => {
      await rec?.close();
      await site?.stop();
    });

    it('transmits each of 1 000 requests from exactly one gateway, directly to a neighbour, and answers each once with its request_id', async () => {
      const N = 1000;
      const requests = Array.from({ length: N }, (_, i) => ({ request_id: `r-${i}`, recipient: RECIPIENTS[i % RECIPIENTS.length], content: `request ${i}`, requires_ack: false }));
      await publishAll(site, requests);
      await rec.until(() => byRequest(rec).size === N, 60000, `${N} answered requests`);
      const results = byRequest(rec);
      const taken: Record<string, number> = {};
      for (const [requestId, answers] of results) {
        assert.equal(answers.length, 1, `${requestId} answered once: ${JSON.stringify(answers)}`);
        const a = answers[0]!;
        assert.equal(a.status, 'sent', JSON.stringify(a));
        assert.equal(a.site, SITE);
        assert.ok((GATEWAY_IDS as readonly string[]).includes(a.gateway), a.gateway);
        taken[a.gateway] = (taken[a.gateway] ?? 0) + 1;
      }
      // The radios: every request's message left through the gateway that answered it, and through no other.
      let sent = new Map<GatewayId, Map<string, string[]>>();
      await eventually(
        () => {
          sent = new Map(GATEWAY_IDS.map((id) => [id, transmissions(site.byId(id))] as const));
          return [...results.values()].every(([a]) => a!.via!.every((v) => sent.get(a!.gateway as GatewayId)!.get(a!.id)?.includes(v)));
        },
        20000,
        'every frame at the virtual peers its answer names',
      );
      let direct = 0;
      let relayed = 0;
      for (const [i, request] of requests.entries()) {
        const a = results.get(request.request_id)![0]!;
        const by = GATEWAY_IDS.filter((g) => sent.get(g)!.has(a.id));
        assert.deepEqual(by, [a.gateway], `request ${i} transmitted by ${by.join(', ')}, answered by ${a.gateway}`);
        const node = Object.values(SITE_NODES).find((n) => n.address === request.recipient);
        const peers = sent.get(a.gateway as GatewayId)!.get(a.id)!;
        if (node && node.heardBy.includes(a.gateway as GatewayId)) {
          const key = `${node.radio}/${Object.keys(SITE_NODES).find((k) => SITE_NODES[k as keyof typeof SITE_NODES] === node)}`;
          assert.deepEqual(a.via, [key], 'a neighbour gets it directly');
          assert.deepEqual(peers, [key]);
          direct += 1;
        } else {
          assert.ok(a.via!.length >= 1, 'relayed to at least one neighbour');
          assert.deepEqual([...peers].sort(), [...a.via!].sort(), 'the neighbours the answer names, and only those');
          relayed += 1;
        }
      }
      for (const id of GATEWAY_IDS) assert.ok((taken[id] ?? 0) > 0, `${id} took some requests: ${JSON.stringify(taken)}`);
      console.log(`      ${N} site requests: taken ${JSON.stringify(taken)}, direct ${direct}, relayed ${relayed}, transmitted by two gateways or more: 0`);
    });

    it('answers on the MQTT 5 response topic with the correlation data, from one gateway', async () => {
      const answers = await Recorder.connect(site.mq.url, [`${RESULT}/flow`], site.auth);
      const client = mqtt.connect(site.mq.url, { ...site.auth, reconnectPeriod: 0 });
      await new Promise<void>((resolve) => client.once('connect', () => resolve()));
      await client.publishAsync(SEND, JSON.stringify({ request_id: 'rt-1', recipient: SITE_NODES.alice.address, content: 'via response topic', requires_ack: false }), {
        qos: 1,
        properties: { responseTopic: `${RESULT}/flow`, correlationData: Buffer.from('corr-1') },
      });
      await answers.until(() => answers.messages.length >= 1, 10000, 'the answer on the response topic');
      await new Promise((r) => setTimeout(r, 300));
      await client.endAsync();
      await answers.close();
      assert.equal(answers.messages.length, 1);
      const body = JSON.parse(answers.messages[0]!.payload.toString()) as Result;
      assert.equal(body.request_id, 'rt-1');
      assert.equal(Buffer.from(answers.messages[0]!.properties!.correlationData as Buffer).toString(), 'corr-1');
    });

    it('shares the notify topics of the nodes the same way: each Home Assistant text is transmitted by one gateway', async () => {
      const N = 60;
      const texts = Array.from({ length: N }, (_, i) => `notify ${i}`);
      const client = mqtt.connect(site.mq.url, { ...site.auth, reconnectPeriod: 0 });
      await new Promise<void>((resolve) => client.once('connect', () => resolve()));
      await Promise.all(texts.map((t) => client.publishAsync(`clawling/nodes/${SITE_NODES.alice.address}/send`, t, { qos: 1 })));
      await client.endAsync();
      const atAlice = (): Array<{ gateway: string; content: string }> =>
        GATEWAY_IDS.flatMap((g) => site.byId(g).peer('sim0', 'alice').received().filter((m) => texts.includes(m.content)).map((m) => ({ gateway: g, content: m.content })));
      await eventually(() => new Set(atAlice().map((x) => x.content)).size === N, 20000, `${N} texts at alice`);
      // Any second copy would have left within the time the last first copy took.
      await new Promise((r) => setTimeout(r, 500));
      const copies = atAlice();
      assert.equal(copies.length, N, `each text once: ${copies.length} frames for ${N} texts`);
      assert.equal(new Set(copies.map((c) => c.gateway)).size, 3, 'spread over the three gateways');
    });

    it('lists the site in bridge/info and shows every gateway of the site, online, on each status page', async () => {
      const info = await Recorder.connect(site.mq.url, ['clawling/gw2/bridge/info'], site.auth);
      await info.until(() => info.messages.length >= 1, 5000, 'retained bridge/info');
      await info.close();
      assert.deepEqual((JSON.parse(info.messages[0]!.payload.toString()) as { site: unknown }).site, {
        id: SITE,
        topic: `clawling/site/${SITE}`,
        send_topic: SEND,
        share_group: `clawling-${SITE}`,
      });
      const g1 = site.byId('gw1');
      await eventually(() => (g1.gateway.snapshot().site?.gateways ?? []).filter((g) => g.state === 'online').length === 3, 10000, 'three online gateways seen by gw1');
      const seen = g1.gateway.snapshot().site!.gateways;
      assert.deepEqual(seen.map((g) => [g.id, g.base_topic, g.self]), [['gw1', 'clawling/gw1', true], ['gw2', 'clawling/gw2', false], ['gw3', 'clawling/gw3', false]]);
      const html = await (await fetch(`${g1.gateway.extension<StatusHttp>('status-http')!.url!}/`)).text();
      for (const id of GATEWAY_IDS) assert.match(html, new RegExp(`<td>${id}</td><td>[^<]*</td><td>[^<]*</td><td>clawling/${id}</td><td>online</td>`));
      // A gateway announcing gw1's mesh address under another id (a cloned SD card) is flagged at gw1.
      const forger = mqtt.connect(site.mq.url, { ...site.auth, reconnectPeriod: 0 });
      await new Promise<void>((resolve) => forger.once('connect', () => resolve()));
      await forger.publishAsync(`clawling/site/${SITE}/gateways/gw9`, JSON.stringify({ gateway_id: 'gw9', address: g1.gateway.info.address, base_topic: 'clawling/gw9' }), { qos: 1, retain: true });
      await eventually(() => g1.gateway.snapshot().site!.gateways.some((g) => g.id === 'gw9'), 10000, 'gw9 seen');
      assert.match(g1.gateway.snapshot().site!.gateways.find((g) => g.id === 'gw9')!.conflict ?? '', /same mesh address/);
      assert.equal(site.byId('gw2').gateway.snapshot().site!.gateways.find((g) => g.id === 'gw9')?.conflict, undefined, 'only the gateway whose address it is');
      await forger.publishAsync(`clawling/site/${SITE}/gateways/gw9`, '', { qos: 1, retain: true });
      await forger.endAsync();
      await eventually(() => !g1.gateway.snapshot().site!.gateways.some((g) => g.id === 'gw9'), 10000, 'gw9 cleared');
      // gw3 stops: the others see it offline (its retained bridge state), and it no longer takes requests.
      await site.byId('gw3').stop();
      await eventually(() => g1.gateway.snapshot().site!.gateways.find((g) => g.id === 'gw3')?.state === 'offline', 10000, 'gw3 offline at gw1');
      rec.messages.length = 0;
      await publishAll(site, Array.from({ length: 30 }, (_, i) => ({ request_id: `after-${i}`, recipient: SITE_NODES.alice.address, content: `after ${i}`, requires_ack: false })));
      await rec.until(() => byRequest(rec).size === 30, 20000, 'thirty answers after gw3 stopped');
      const takers = new Set([...byRequest(rec).values()].map(([a]) => a!.gateway));
      assert.equal(takers.has('gw3'), false);
      assert.ok([...byRequest(rec).values()].every((a) => a.length === 1));
    });
  });

  describe('MQTT 3.1.1: the documented fallback, one owner', () => {
    let site: ThreeGatewaySite;
    let rec: Recorder;
    before(async () => {
      site = await startThreeGatewaySite('site-v311-', (id) => ({ mqtt: { ...siteSettings({ v311_owner: id === 'gw2' }), version: 4 } }));
      rec = await Recorder.connect(site.mq.url, [RESULT], site.auth);
      await eventually(() => site.byId('gw2').gateway.snapshot().site?.takes_sends === true, 10000, 'gw2 on the site downlink');
    });
    after(async () => {
      await rec?.close();
      await site?.stop();
    });

    it('has only the gateway with v311_owner take the requests, each once', async () => {
      for (const g of site.gateways) assert.equal(g.gateway.mqtt!.protocolVersion, 4);
      assert.deepEqual(site.gateways.map((g) => g.gateway.snapshot().site!.takes_sends), [false, true, false]);
      await publishAll(site, Array.from({ length: 100 }, (_, i) => ({ request_id: `v4-${i}`, recipient: RECIPIENTS[i % RECIPIENTS.length], content: `v4 ${i}`, requires_ack: false })), 4);
      await rec.until(() => byRequest(rec).size === 100, 20000, 'a hundred answers');
      await new Promise((r) => setTimeout(r, 300));
      const answers = [...byRequest(rec).values()];
      assert.ok(answers.every((a) => a.length === 1 && a[0]!.gateway === 'gw2'));
      for (const id of ['gw1', 'gw3'] as const) assert.equal(transmissions(site.byId(id)).size, 0, `${id} transmitted nothing`);
    });
  });
});
