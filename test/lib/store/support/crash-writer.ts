/**
 * Child process for the crash test: writes to a store as fast as it can and prints `ack <n>` on stdout after each
 * write has returned. The parent kills it with SIGKILL mid-stream and checks every acknowledged write is in the file.
 */
import { openStore } from '../../../../lib/store';

const file = process.argv[2];
const store = openStore(file);
const queue = store.queue('crash', { capacity: 1_000_000 });
let n = 0;

function burst(): void {
  for (let i = 0; i < 20; i++) {
    store.transaction(() => {
      queue.push(`item-${n}`);
      store.inbox.upsert({ messageId: `m-${n}`, chatId: 'c', event: 'message.send', senderId: 'u', provisional: false, fingerprint: 'f', body: 'x'.repeat(100), at: n });
    });
    store.kv.setMax('high', n);
    process.stdout.write(`ack ${n}\n`);
    n++;
  }
  setImmediate(burst);
}

process.stdout.write('ready\n');
burst();
