/** The web UI's live log (`/api/log`, Server-Sent Events) as a browser reads it: a real gateway, a simulated radio, real HTTP. */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { Gateway } from '../../../../gateway/gateway';
import type { SimulatedRadio } from '../../../../gateway/radios/simulated/simulated-radio';
import type { LogEntry } from '../../../../gateway/extensions/status/ui/live-log';
import { testConfig } from '../../support/config';
import { tempDir } from '../../support/gateway';

interface Stream {
  entries: LogEntry[];
  headers: http.IncomingHttpHeaders;
  next(predicate: (e: LogEntry) => boolean): Promise<LogEntry>;
  close(): void;
}

/** Opens the event stream and parses `data:` lines as they arrive (what EventSource does). */
function openStream(url: string): Promise<Stream> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, (res) => {
      const entries: LogEntry[] = [];
      const waiters: Array<{ predicate: (e: LogEntry) => boolean; resolve: (e: LogEntry) => void }> = [];
      let buffered = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        buffered += chunk;
        let cut: number;
        while ((cut = buffered.indexOf('\n\n')) >= 0) {
          const block = buffered.slice(0, cut);
          buffered = buffered.slice(cut + 2);
          for (const line of block.split('\n')) {
            if (!line.startsWith('data: ')) continue;
            const entry = JSON.parse(line.slice(6)) as LogEntry;
            entries.push(entry);
            for (const w of waiters.slice()) {
              if (w.predicate(entry)) {
                waiters.splice(waiters.indexOf(w), 1);
                w.resolve(entry);
              }
            }
          }
        }
      });
      resolve({
        entries,
        headers: res.headers,
        next: (predicate) => {
          const seen = entries.find(predicate);
          return seen ? Promise.resolve(seen) : new Promise((r) => waiters.push({ predicate, resolve: r }));
        },
        close: () => req.destroy(),
      });
    });
    req.on('error', reject);
  });
}

describe('gateway web UI live log', function () {
  this.timeout(30000);
  let dir: string;
  let gateway: Gateway | undefined;
  beforeEach(() => {
    dir = tempDir('gw-ui-log-');
  });
  afterEach(async () => {
    await gateway?.stop('test');
    gateway = undefined;
    fs.rmSync(dir, { recursive: true, force: true });
  });

  async function start(): Promise<{ base: string; radio: SimulatedRadio }> {
    const config = testConfig(path.join(dir, 'state'), {
      http: { enabled: true, port: 0 },
      radios: [{ id: 'sim0', kind: 'simulated', peers: [{ id: 'alice' }, { id: 'bob' }] }],
    });
    gateway = new Gateway(config);
    await gateway.start();
    return { base: gateway.statusUrl!, radio: gateway.radios[0] as SimulatedRadio };
  }

  it('streams a message from a node, its envelope only, and the ACK the gateway sends back', async () => {
    const { base, radio } = await start();
    const stream = await openStream(`${base}/api/log`);
    try {
      assert.match(String(stream.headers['content-type']), /^text\/event-stream/);
      const alice = radio.virtualPeer('alice')!;
      const sent = await alice.say('<script>secret text</script>');
      const id = sent.id.toString();
      const inbound = await stream.next((e) => e.direction === 'in' && e.id === id);
      assert.equal(inbound.sender, alice.address);
      assert.equal(inbound.recipient, sent.recipient);
      assert.equal(inbound.radio, 'sim0');
      assert.equal(typeof inbound.seq, 'number');
      // The content never leaves the gateway through the log.
      assert.ok(!JSON.stringify(stream.entries).includes('secret text'));
      const ack = await stream.next((e) => e.direction === 'out' && e.origin === 'ack');
      assert.equal(ack.recipient, alice.address);
    } finally {
      stream.close();
    }
  });

  it('streams to every open client and forgets a client that went away', async () => {
    const { base, radio } = await start();
    const a = await openStream(`${base}/api/log`);
    const b = await openStream(`${base}/api/log`);
    try {
      const bob = radio.virtualPeer('bob')!;
      const first = (await bob.say('one')).id.toString();
      await a.next((e) => e.direction === 'in' && e.id === first);
      await b.next((e) => e.direction === 'in' && e.id === first);
      a.close();
      const second = (await bob.say('two')).id.toString();
      await b.next((e) => e.direction === 'in' && e.id === second);
      assert.ok(!a.entries.some((e) => e.id === second), 'a closed stream received nothing more');
      // Sequence numbers only grow, so a browser can tell order and gaps.
      const seqs = b.entries.map((e) => e.seq);
      assert.deepEqual(seqs, [...seqs].sort((x, y) => x - y));
    } finally {
      a.close();
      b.close();
    }
  });

  it('keeps the status page and /status.json answering beside the stream', async () => {
    const { base } = await start();
    const stream = await openStream(`${base}/api/log`);
    try {
      const text = await new Promise<string>((resolve, reject) => {
        http.get(`${base}/status.json`, (res) => {
          let t = '';
          res.on('data', (d: Buffer) => (t += d.toString()));
          res.on('end', () => resolve(t));
        }).on('error', reject);
      });
      assert.equal((JSON.parse(text) as { gateway: { id: string } }).gateway.id, 'gw-test');
    } finally {
      stream.close();
    }
  });
});
