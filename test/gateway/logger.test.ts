/**
 * The gateway's pino logger with hostile mesh text: every line it writes holds nothing a terminal acts on (DEL,
 * C1 controls, U+2028/2029 and bidi controls, which JSON itself leaves raw, come out as \u escapes) and still parses
 * to exactly what was logged; configured secrets are still cut out.
 */
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { createLogger } from '../../gateway/logger';
import { unsafeCharacters } from '../support/unsafe-text';

function capture(secrets: string[] = []): { logger: ReturnType<typeof createLogger>; raw: () => string[] } {
  const chunks: string[] = [];
  const destination = new Writable({
    write(chunk, _enc, cb) {
      chunks.push(String(chunk));
      cb();
    },
  });
  const logger = createLogger({ level: 'debug', destination: destination as never, secrets });
  return { logger, raw: () => chunks.join('').split('\n').filter(Boolean) };
}

describe('gateway logger', () => {
  const hostile = 'kitchen\n\x1b[2J\u202eevil\u2028\u2029\u0085\u009b31m\x7f ключ 👍';

  it('writes mesh text in messages, fields and errors as printable JSON that parses back to it', () => {
    const { logger, raw } = capture();
    logger.info({ content: hostile, nested: { sender: hostile } }, `from ${hostile}`);
    logger.warn({ err: new Error(`bad frame ${hostile}`) }, 'decode failed');
    const lines = raw();
    assert.equal(lines.length, 2, 'one line per event');
    for (const line of lines) assert.deepEqual(unsafeCharacters(line), [], line);
    const [info, warn] = lines.map((l) => JSON.parse(l) as Record<string, any>); // eslint-disable-line @typescript-eslint/no-explicit-any
    assert.equal(info.msg, `from ${hostile}`);
    assert.equal(info.content, hostile);
    assert.equal(info.nested.sender, hostile);
    assert.equal(warn.err.message, `bad frame ${hostile}`);
    assert.ok(lines[0].includes('\\u202e') && lines[0].includes('\\u2028') && lines[0].includes('ключ 👍'));
  });

  it('still cuts configured secrets out of message text', () => {
    const { logger, raw } = capture(['s3cret-password']);
    logger.info(`connecting to mqtt://user:s3cret-password@broker\u2028`);
    const [line] = raw();
    assert.ok(!line.includes('s3cret-password'));
    assert.equal((JSON.parse(line) as { msg: string }).msg, 'connecting to mqtt://user:[redacted]@broker\u2028');
  });
});
