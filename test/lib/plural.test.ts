import assert from 'node:assert/strict';
import { counted } from '../../lib/plural';

describe('lib/plural: a count with its noun', () => {
  it('uses the singular for exactly one and the plural otherwise, zero included', () => {
    assert.equal(counted(1, 'virtual peer'), '1 virtual peer');
    assert.equal(counted(2, 'virtual peer'), '2 virtual peers');
    assert.equal(counted(0, 'central'), '0 centrals');
  });

  it('takes an irregular plural', () => {
    assert.equal(counted(1, 'reply', 'replies'), '1 reply');
    assert.equal(counted(3, 'reply', 'replies'), '3 replies');
  });
});
