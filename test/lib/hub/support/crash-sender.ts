/**
 * Child process for the outbox crash test: opens a durable store, queues `count` sends through a HubClient and
 * prints `queued <message_id>` on each `queued` event (the outbox row is committed by then). The parent withholds
 * the hub's acks and kills this process with SIGKILL.
 */
import { HubClient } from '../../../../lib/hub';
import { openStore } from '../../../../lib/store';

const [url, file, countText] = process.argv.slice(2);
const store = openStore(file);
const client = new HubClient({ url, token: 'tok-alice', userId: 'usr_alice', deviceId: 'usr_alice-crash', store, pingSilenceMs: 0 });
client.on('state', (s) => {
  if (s.state === 'connected') process.stdout.write('connected\n');
});
client.on('queued', (q) => process.stdout.write(`queued ${q.messageId}\n`));
client.start();
for (let i = 0; i < Number(countText); i++) client.send({ chatId: 'chat-ab', text: `crash ${i}` }).catch(() => undefined);
