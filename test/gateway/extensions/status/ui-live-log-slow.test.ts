/** A browser that reads the live log slower than the mesh talks: the gateway drops and counts, it does not hoard. */
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { EventBus } from '../../../../gateway/bus';
import { LiveLog, type LogEntry } from '../../../../gateway/extensions/status/ui/live-log';
import { silentLogger } from '../../../../gateway/logger';

describe('gateway web UI live log, slow reader', function () {
  this.timeout(30000);

  it('drops entries for a client whose socket is full and tells it how many on the next one', async () => {
    const log = new LiveLog({ now: () => Date.now(), maxBufferedBytes: 1024 });
    const bus = new EventBus(silentLogger());
    log.attach(bus, this);
    const server = http.createServer((_req, res) => log.subscribe(res));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const { port } = server.address() as AddressInfo;
    const res = await new Promise<http.IncomingMessage>((resolve, reject) => http.get(`http://127.0.0.1:${port}/`, resolve).on('error', reject));
    res.pause();
    try {
      await new Promise<void>((r) => {
        const check = () => (log.clientCount === 1 ? r() : setImmediate(check));
        check();
      });
      const ack = (n: number) => bus.emit('meshAck', { ackFor: `id-${n}`, from: 'off1sender', transport: 'sim', hopCount: 0, rx: { radioId: 'sim0', peerId: 'p', receivedAt: n } });
      // Far more than the kernel's socket buffers and the 1 KiB allowance hold while nobody reads.
      const total = 20000;
      for (let n = 1; n <= total; n++) ack(n);
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (text += d));
      res.resume();
      // Once the backlog drains, the next entry delivered carries the count of those skipped: keep talking until then.
      let emitted = total;
      await new Promise<void>((r) => {
        const check = () => {
          if (text.includes('"dropped"')) return r();
          ack(++emitted);
          setTimeout(check, 20);
        };
        check();
      });
      await new Promise<void>((r) => {
        const check = () => (text.includes(`"id-${emitted}"`) ? r() : setTimeout(check, 10));
        check();
      });
      const entries = text
        .split('\n')
        .filter((l) => l.startsWith('data: '))
        .map((l) => JSON.parse(l.slice(6)) as LogEntry);
      const dropped = entries.reduce((sum, e) => sum + (e.dropped ?? 0), 0);
      assert.ok(dropped > 0, 'some entries were dropped');
      // Every entry is either delivered or counted as dropped: none vanishes silently.
      assert.equal(entries.length + dropped, emitted);
      assert.equal(entries.at(-1)!.id, `id-${emitted}`);
    } finally {
      res.destroy();
      log.close();
      await new Promise<void>((r) => server.close(() => r()));
    }
  });
});
