/**
 * The receiving end of `bench/hub-streams.bench.ts`: one HubClient (memory store) in a process of its own, so that
 * its peak resident set is its own. Settings come as JSON in argv[2]; it says `ready` once connected and answers
 * `report` with what it saw: `message.add` frames, streams ended, streams cut (by code), and warnings.
 */
import { HubClient, type HubClientOptions } from '../lib/hub';

interface Settings {
  url: string;
  token: string;
  userId: string;
  deviceId: string;
  maxFrameBytes: number;
  bounds: Pick<HubClientOptions, 'streamMaxChars' | 'streamTotalMaxChars'>;
}

const s = JSON.parse(process.argv[2] ?? '{}') as Settings;
// No probes: a hub busy relaying 14 MB frames can be silent for longer than a probe waits.
const client = new HubClient({ url: s.url, token: s.token, userId: s.userId, deviceId: s.deviceId, maxFrameBytes: s.maxFrameBytes, pingSilenceMs: 0, ...s.bounds });
let ended = 0;
let adds = 0;
const cut: Record<string, number> = {};
const warnings: Record<string, number> = {};

client.on('stream', (e) => {
  if (e.phase === 'add') adds++;
  if (e.phase !== 'done' && e.phase !== 'failed') return;
  ended++;
  if (e.cut) cut[e.cut] = (cut[e.cut] ?? 0) + 1;
});
client.on('warning', (w) => {
  warnings[w.code] = (warnings[w.code] ?? 0) + 1;
});
client.on('state', (st) => {
  if (st.state === 'connected') process.send!({ type: 'ready' });
});
process.on('message', (m: { type: string }) => {
  if (m.type === 'report') process.send!({ type: 'report', ended, adds, cut, warnings });
  if (m.type === 'stop') void client.stop().then(() => process.exit(0));
});
client.start();
