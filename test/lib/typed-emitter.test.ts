import assert from 'node:assert/strict';
import { TypedEmitter } from '../../lib/typed-emitter';

interface Events {
  n: (value: number) => void;
  s: (value: string) => void;
}

describe('lib TypedEmitter', () => {
  it('delivers to listeners in order, once-listeners once, and off removes', () => {
    const e = new TypedEmitter<Events>(() => undefined);
    const seen: string[] = [];
    const a = (v: number): void => void seen.push(`a${v}`);
    e.on('n', a);
    e.once('n', (v) => seen.push(`once${v}`));
    e.on('s', (v) => seen.push(`s:${v}`));
    assert.equal(e.emit('n', 1), true);
    e.emit('n', 2);
    e.removeListener('n', a);
    e.emit('n', 3);
    e.emit('s', 'x');
    assert.deepEqual(seen, ['a1', 'once1', 'a2', 's:x']);
    assert.equal(e.emit('n', 4), false);
    assert.equal(e.listenerCount('s'), 1);
  });

  it('isolates a throwing listener: the error goes to the handler and the others still run', () => {
    const errors: Array<[string, unknown]> = [];
    const e = new TypedEmitter<Events>((err, event) => errors.push([String(event), err]));
    const seen: number[] = [];
    e.on('n', () => {
      throw new Error('boom');
    });
    e.on('n', (v) => seen.push(v));
    e.emit('n', 7);
    assert.deepEqual(seen, [7]);
    assert.equal(errors.length, 1);
    assert.equal(errors[0][0], 'n');
  });

  it('lets a listener remove itself or add another during an emit without disturbing that emit', () => {
    const e = new TypedEmitter<Events>(() => undefined);
    const seen: string[] = [];
    const self = (): void => {
      seen.push('self');
      e.off('n', self);
      e.on('n', () => seen.push('late'));
    };
    e.on('n', self);
    e.on('n', () => seen.push('second'));
    e.emit('n', 1);
    e.emit('n', 2);
    assert.deepEqual(seen, ['self', 'second', 'second', 'late']);
  });
});
