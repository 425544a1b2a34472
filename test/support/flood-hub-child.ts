/**
 * A dev hub in a process of its own, for tests that flood a client: its inboxes may hold hundreds of thousands of
 * rows, which should not weigh on the test runner. Settings come as JSON in argv[2] (users, chats, settings);
 * over IPC it answers `seed` (flood a chat through a real second client, `hub-flooder.ts`; answers with the recipient inbox's last seq), `cursor` (a device's
 * acknowledged inbox position) and `stop`.
 */
import { startDevHub, type DevHubOptions } from '../../devhub';
import { flood } from './hub-flooder';

type Request =
  | { type: 'seed'; token: string; deviceId: string; chatId: string; count: number; recipient: string }
  | { type: 'cursor'; userId: string; deviceId: string }
  | { type: 'stop' };

async function main(): Promise<void> {
  const options = JSON.parse(process.argv[2] ?? '{}') as DevHubOptions;
  const hub = await startDevHub({ ...options, media: { enabled: false } });
  process.on('message', (m: Request) => {
    if (m.type === 'seed') {
      flood({ url: hub.wsUrl, token: m.token, deviceId: m.deviceId, chatId: m.chatId, count: m.count }).then(
        (r) => process.send!({ type: 'seeded', ...r, lastSeq: hub.admin.inbox(m.recipient).at(-1)?.seq ?? 0 }),
        (err: Error) => process.send!({ type: 'seeded', error: err.message }),
      );
    } else if (m.type === 'cursor') {
      process.send!({ type: 'cursor', cursor: hub.admin.cursors(m.userId)[m.deviceId] ?? 0 });
    } else if (m.type === 'stop') {
      void hub.stop().then(() => process.exit(0));
    }
  });
  process.send!({ type: 'ready', url: hub.wsUrl });
}

void main();
