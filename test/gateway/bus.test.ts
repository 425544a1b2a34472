import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { EventBus } from '../../gateway/bus';
import { createLogger } from '../../gateway/logger';

function capture(): { logger: ReturnType<typeof createLogger>; lines: () => Array<Record<string, unknown>> } {
  const chunks: string[] = [];
  const destination = new Writable({
    write(chunk, _enc, cb) {
      chunks.push(String(chunk));
      cb();
    },
  });
  const logger = createLogger({ level: 'debug', destination: destination as never });
  return { logger, lines: () => chunks.join('').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>) };
}

describe('gateway bus', () => {
  it('delivers to every listener even when one throws, and logs the throw', () => {
    const { logger, lines } = capture();
    const bus = new EventBus(logger);
    const seen: string[] = [];
    const a = { name: 'a' };
    const b = { name: 'b' };
    bus.on('stopping', a, () => {
      throw new Error('boom');
    });
    bus.on('stopping', b, (e) => {
      seen.push(e.reason);
    });
    bus.emit('stopping', { reason: 'test' });
    assert.deepEqual(seen, ['test']);
    assert.equal(bus.errors, 1);
    const line = lines().find((l) => l.owner === 'a');
    assert.ok(line, 'the failure was logged with its owner');
    assert.equal(line.event, 'stopping');
  });

  it('counts a rejected async listener too', async () => {
    const bus = new EventBus(createLogger({ level: 'silent' }));
    bus.on('started', {}, async () => {
      throw new Error('later');
    });
    bus.emit('started', { at: 1 });
    await new Promise((r) => setImmediate(r));
    assert.equal(bus.errors, 1);
  });

  it('offAll removes exactly the listeners of one owner', () => {
    const bus = new EventBus(createLogger({ level: 'silent' }));
    const a = {};
    const b = {};
    let n = 0;
    bus.on('started', a, () => void (n += 1));
    bus.on('stopping', a, () => void (n += 10));
    bus.on('started', b, () => void (n += 100));
    bus.offAll(a);
    bus.emit('started', { at: 0 });
    bus.emit('stopping', { reason: 'x' });
    assert.equal(n, 100);
    assert.equal(bus.listenerCount('stopping'), 0);
  });
});

describe('gateway logger', () => {
  it('never prints a configured secret, in fields or in messages', () => {
    const chunks: string[] = [];
    const destination = new Writable({
      write(chunk, _enc, cb) {
        chunks.push(String(chunk));
        cb();
      },
    });
    const logger = createLogger({ level: 'info', secrets: ['hunter22'], destination: destination as never });
    logger.info({ password: 'hunter22', mqtt: { password: 'hunter22' } }, 'connecting with hunter22');
    logger.error({ err: new Error('auth failed for hunter22') }, 'failed');
    const text = chunks.join('');
    assert.ok(!text.includes('hunter22'), text);
    assert.match(text, /\[redacted\]/);
  });
});
