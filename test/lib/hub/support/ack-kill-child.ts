/**
 * Child process for the lost-removal test: opens a durable store, sends one message through a HubClient, and on its
 * `ack` event prints `acked <message_id> <trace_id>` and SIGKILLs itself at once. The outbox row of an answered send
 * is removed with a later commit, so the kill always lands before that removal: the row is still in the file.
 */
import fs from 'node:fs';
import { HubClient } from '../../../../lib/hub';
import { openStore } from '../../../../lib/store';

const [url, file] = process.argv.slice(2);
const store = openStore(file);
const client = new HubClient({ url, token: 'tok-alice', userId: 'usr_alice', deviceId: 'usr_alice-ack-kill', store, pingSilenceMs: 0 });
client.on('ack', (a) => {
  fs.writeSync(1, `acked ${a.messageId} ${a.traceId}\n`);
  process.kill(process.pid, 'SIGKILL');
});
let sent = false;
client.on('state', (s) => {
  if (s.state !== 'connected' || sent) return;
  sent = true;
  client.send({ chatId: 'chat-ab', text: 'answered, then killed' }).catch(() => undefined);
});
client.start();
