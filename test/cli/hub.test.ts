import assert from 'node:assert/strict';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import path from 'node:path';
import { startDevHub, type DevHub } from '../../devhub';
import { HubClient } from '../../lib/hub';
import { unsafeCharacters } from '../support/unsafe-text';

const BIN = path.join(__dirname, '..', '..', 'cli', 'clawling.js');
const USERS = [
  { id: 'usr_alice', token: 'tok-alice' },
  { id: 'usr_bob', token: 'tok-bob' },
];

interface Run {
  child: ChildProcessWithoutNullStreams;
  lines: string[];
  stderr: () => string;
  exit: Promise<number | null>;
  line(predicate: (l: string) => boolean, timeoutMs?: number): Promise<string>;
}

function run(args: string[], env: Record<string, string>): Run {
  const child = spawn(process.execPath, [BIN, 'hub', ...args], { env: { PATH: process.env.PATH ?? '', ...env } });
  const lines: string[] = [];
  let err = '';
  let buffered = '';
  const waiters: Array<{ predicate: (l: string) => boolean; resolve: (l: string) => void }> = [];
  child.stdout.on('data', (chunk: Buffer) => {
    buffered += chunk.toString('utf8');
    const parts = buffered.split('\n');
    buffered = parts.pop() as string;
    for (const l of parts) {
      lines.push(l);
      for (const w of [...waiters]) {
        if (w.predicate(l)) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve(l);
        }
      }
    }
  });
  child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString('utf8')));
  const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return {
    child,
    lines,
    stderr: () => err,
    exit,
    line(predicate, timeoutMs = 8000) {
      const found = lines.find(predicate);
      if (found) return Promise.resolve(found);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no matching line; got ${JSON.stringify(lines)} / ${err}`)), timeoutMs);
        waiters.push({
          predicate,
          resolve: (l) => {
            clearTimeout(timer);
            resolve(l);
          },
        });
      });
    },
  };
}

describe('clawling hub', function () {
  this.timeout(20_000);
  let hub: DevHub;
  const common = () => ['--url', hub.wsUrl, '--token-env', 'HUB_TOKEN'];

  beforeEach(async () => {
    hub = await startDevHub({
      users: USERS,
      chats: [
        { id: 'chat-ab', members: ['usr_alice', 'usr_bob'] },
        { id: 'chat-other', members: ['usr_alice', 'usr_bob'] },
      ],
      settings: { ping_interval_ms: 0 },
    });
  });
  afterEach(() => hub.stop());

  it('send prints the message.ack as JSON and exits 0; the message arrives', async () => {
    const bob = new HubClient({ url: hub.wsUrl, token: 'tok-bob', userId: 'usr_bob', deviceId: 'bob-1', pingSilenceMs: 0 });
    const got = new Promise<string>((resolve) => bob.on('message', (m) => resolve(m.text)));
    bob.start();
    try {
      const r = run(['send', ...common(), '--user-id', 'usr_alice', '--device-id', 'cli-1', '--chat', 'chat-ab', '--text', 'hello from a shell'], { HUB_TOKEN: 'tok-alice' });
      assert.equal(await r.exit, 0, r.stderr());
      const out = JSON.parse(r.lines[0]) as Record<string, unknown>;
      assert.equal(out.event, 'message.ack');
      assert.equal(out.chat_id, 'chat-ab');
      assert.match(String(out.message_id), /^msg-[0-9A-Z]{26}$/);
      assert.equal(await got, 'hello from a shell');
      assert.ok(!r.lines.join('\n').includes('tok-alice') && !r.stderr().includes('tok-alice'), 'the token is never printed');
    } finally {
      await bob.stop();
    }
  });

  it('send prints the message.error and exits 1 when the hub refuses the message', async () => {
    const r = run(['send', ...common(), '--user-id', 'usr_alice', '--device-id', 'cli-1', '--chat', 'chat-missing', '--text', 'x'], { HUB_TOKEN: 'tok-alice' });
    assert.equal(await r.exit, 1);
    const out = JSON.parse(r.lines[0]) as Record<string, unknown>;
    assert.deepEqual([out.event, out.code, out.chat_id], ['message.error', 'chat_not_found', 'chat-missing']);
  });

  it('tail ends quietly with exit 0 when its reader goes away (| head -1)', async () => {
    const r = run(['tail', ...common(), '--user-id', 'usr_bob', '--device-id', 'tail-1', '--chat', 'chat-ab'], { HUB_TOKEN: 'tok-bob' });
    await r.line((l) => l.includes('"state":"connected"'));
    r.child.stdout.destroy();
    const alice = new HubClient({ url: hub.wsUrl, token: 'tok-alice', userId: 'usr_alice', deviceId: 'alice-1', pingSilenceMs: 0 });
    alice.start();
    try {
      // Each message makes tail write into the closed pipe; the first such write ends it.
      const sending = setInterval(() => alice.send({ chatId: 'chat-ab', text: 'for nobody' }), 100);
      const code = await r.exit.finally(() => clearInterval(sending));
      assert.equal(code, 0);
      assert.equal(r.stderr(), '');
    } finally {
      await alice.stop();
    }
  });

  it('exits 3 with one line when the token is refused, for send and tail alike', async () => {
    for (const verb of ['send', 'tail']) {
      const extra = verb === 'send' ? ['--chat', 'chat-ab', '--text', 'x'] : [];
      const r = run([verb, ...common(), '--user-id', 'usr_alice', '--device-id', 'cli-1', ...extra], { HUB_TOKEN: 'revoked' });
      assert.equal(await r.exit, 3, verb);
      const lines = r.stderr().trim().split('\n');
      assert.equal(lines.length, 1);
      assert.match(lines[0], /authentication failed/);
    }
  });

  it('tail prints state changes and every received event as JSON lines, filtered by --chat, and stops on SIGTERM', async () => {
    const r = run(['tail', ...common(), '--user-id', 'usr_bob', '--device-id', 'tail-1', '--chat', 'chat-ab'], { HUB_TOKEN: 'tok-bob' });
    await r.line((l) => l.startsWith('{"state":"connected"'));
    const alice = new HubClient({ url: hub.wsUrl, token: 'tok-alice', userId: 'usr_alice', deviceId: 'alice-1', pingSilenceMs: 0 });
    alice.start();
    try {
      await alice.send({ chatId: 'chat-other', text: 'not for the tail' });
      const ack = await alice.send({ chatId: 'chat-ab', text: 'for the tail' });
      const line = await r.line((l) => l.includes(ack.messageId));
      const event = JSON.parse(line) as { event: string; chat_id: string; message_id: string; payload: { message: { body: { fragments: Array<{ text: string }> } } } };
      assert.deepEqual([event.event, event.chat_id, event.message_id], ['message.send', 'chat-ab', ack.messageId]);
      assert.equal(event.payload.message.body.fragments[0].text, 'for the tail');
      assert.ok(!r.lines.some((l) => l.includes('not for the tail')));
      const states = r.lines.filter((l) => l.startsWith('{"state"')).map((l) => (JSON.parse(l) as { state: string }).state);
      assert.deepEqual(states, ['connecting', 'replaying', 'connected']);
    } finally {
      await alice.stop();
    }
    r.child.kill('SIGTERM');
    assert.equal(await r.exit, 0);
  });

  it('tail prints hostile message text as JSON that parses back to it, with nothing raw a terminal would act on', async () => {
    const r = run(['tail', ...common(), '--user-id', 'usr_bob', '--device-id', 'tail-1', '--chat', 'chat-ab'], { HUB_TOKEN: 'tok-bob' });
    await r.line((l) => l.startsWith('{"state":"connected"'));
    const alice = new HubClient({ url: hub.wsUrl, token: 'tok-alice', userId: 'usr_alice', deviceId: 'alice-1', pingSilenceMs: 0 });
    alice.start();
    const text = 'a\nb\x1b[2J\u202eevil\u2028\u2029\u0085\u009b31m\x7f ключ 👍';
    try {
      const ack = await alice.send({ chatId: 'chat-ab', text });
      const line = await r.line((l) => l.includes(ack.messageId));
      assert.deepEqual(unsafeCharacters(line), [], 'no raw control, separator or bidi character in the printed line');
      assert.ok(line.includes('\\u202e') && line.includes('\\u2028') && line.includes('\\u009b') && line.includes('ключ 👍'), line);
      const event = JSON.parse(line) as { payload: { message: { body: { fragments: Array<{ text: string }> } } } };
      assert.equal(event.payload.message.body.fragments[0].text, text, 'the JSON still says exactly what was sent');
    } finally {
      await alice.stop();
    }
    r.child.kill('SIGTERM');
    assert.equal(await r.exit, 0);
  });

  for (const via of ['hello-fail', 'close'] as const) {
    it(`never prints the token a hub echoes in its refusal (echo-token fault, via ${via})`, async () => {
      hub.admin.echoToken({ count: 1, via });
      const r = run(['tail', ...common(), '--user-id', 'usr_bob', '--device-id', 'tail-1'], { HUB_TOKEN: 'tok-bob' });
      const backoff = await r.line((l) => l.startsWith('{"state":"backoff"'));
      await r.line((l) => l.startsWith('{"state":"connected"'));
      r.child.kill('SIGTERM');
      assert.equal(await r.exit, 0);
      assert.equal((JSON.parse(backoff) as { reason?: string }).reason, 'invalid token: Bearer [redacted]');
      assert.ok(!r.lines.join('\n').includes('tok-bob') && !r.stderr().includes('tok-bob'), 'the token is never printed');
    });
  }

  it('exits 2 on bad usage, naming the problem', async () => {
    for (const [args, message] of [
      [['tail', '--url', 'ws://127.0.0.1:1/ws'], /--token-env is required/],
      [['send', '--url', 'ws://127.0.0.1:1/ws', '--token-env', 'HUB_TOKEN', '--user-id', 'u', '--device-id', 'd', '--chat', 'c'], /--text is required/],
      [['tail', '--url', 'ws://127.0.0.1:1/ws', '--token-env', 'NOPE', '--user-id', 'u', '--device-id', 'd'], /NOPE/],
      [['frob'], /unknown subcommand/],
      [['tail', '--url', 'http://x', '--token-env', 'HUB_TOKEN', '--user-id', 'u', '--device-id', 'd'], /ws:\/\//],
    ] as Array<[string[], RegExp]>) {
      const r = run(args, { HUB_TOKEN: 't' });
      assert.equal(await r.exit, 2, args.join(' '));
      assert.match(r.stderr(), message);
    }
  });
});
