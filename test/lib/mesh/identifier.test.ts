import { strict as assert } from 'node:assert';
import { MeshDecodeError } from '../../../lib/mesh/errors';
import { checkIdentifier, identifierProblem, isValidIdentifier } from '../../../lib/mesh/identifier';
import { expectCode } from './fixtures';

describe('lib/mesh/identifier', () => {
  it('allows anything else: Unicode, spaces, @, dots inside, and exactly 256 UTF-8 bytes', () => {
    for (const ok of ['a', 'alice@example.org', 'a.b', '...', 'with space', 'Grüße', '👋', 'x'.repeat(256), '€'.repeat(85) + 'a', '😀'.repeat(64)]) {
      assert.ok(isValidIdentifier(ok), ok);
    }
  });

  it('checks the UTF-8 byte length, not the UTF-16 length: 257 bytes is too long', () => {
    assert.equal(identifierProblem('x'.repeat(257)), 'too_long');
    assert.equal(identifierProblem('é'.repeat(129)), 'too_long');
    assert.equal(identifierProblem('😀'.repeat(64) + 'a'), 'too_long');
  });

  it('checks the length first, whatever else is wrong', () => {
    assert.equal(identifierProblem('/'.repeat(300)), 'too_long');
  });

  it('refuses empty, "." and ".."', () => {
    assert.equal(identifierProblem(''), 'empty');
    assert.equal(identifierProblem('.'), 'dot');
    assert.equal(identifierProblem('..'), 'dot');
  });

  it('refuses C0 controls, DEL, /, \\ and :', () => {
    for (let c = 0; c < 0x20; c++) assert.equal(identifierProblem(`a${String.fromCharCode(c)}b`), 'forbidden_char', `U+${c.toString(16)}`);
    for (const bad of ['a\u007fb', 'evil/path', 'a\\b', 'a:b']) assert.equal(identifierProblem(bad), 'forbidden_char', bad);
    assert.ok(isValidIdentifier('a\u0080b'), 'C1 controls are not in the rule');
  });

  it('refuses lone surrogates, which have no UTF-8 form', () => {
    assert.equal(identifierProblem('a\uD800'), 'bad_unicode');
    assert.equal(identifierProblem('\uDC00a'), 'bad_unicode');
  });

  it('checkIdentifier throws coded errors naming the field', () => {
    expectCode(() => checkIdentifier('x'.repeat(257), 'sender'), MeshDecodeError, 'IDENTIFIER_TOO_LONG');
    expectCode(() => checkIdentifier('a/b', 'recipient'), MeshDecodeError, 'BAD_IDENTIFIER');
    expectCode(() => checkIdentifier(7, 'app_id'), MeshDecodeError, 'BAD_FIELD_TYPE');
    try {
      checkIdentifier('', 'app_id');
    } catch (err) {
      assert.deepEqual((err as MeshDecodeError).details, { field: 'app_id', reason: 'empty' });
    }
  });
});
