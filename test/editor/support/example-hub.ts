/**
 * A dev hub with the users and chats that the example flows name (the ones `clawling devhub --example-config`
 * prints), on 127.0.0.1 port 0. Tokens are fresh random strings for each run, so that a test looking for a leaked
 * token cannot be fooled by the example tokens quoted in the examples' comments.
 */
import { randomBytes } from 'node:crypto';
import { startDevHub, type DevHub } from '../../../devhub';

export interface ExampleHub {
  hub: DevHub;
  /** Token by user id. */
  tokens: Record<string, string>;
}

export const EXAMPLE_USERS = ['usr_alice', 'usr_bob', 'agt_helper'];
export const EXAMPLE_CHATS = [
  { id: 'cnv_01J0000000000000000000000A', members: ['usr_alice', 'usr_bob'] },
  { id: 'cnv_01J0000000000000000000000B', members: ['usr_alice', 'usr_bob', 'agt_helper'] },
];

export async function startExampleHub(): Promise<ExampleHub> {
  const tokens = Object.fromEntries(EXAMPLE_USERS.map((id) => [id, `tok-${id}-${randomBytes(12).toString('hex')}`]));
  const hub = await startDevHub({
    host: '127.0.0.1',
    port: 0,
    users: EXAMPLE_USERS.map((id) => ({ id, token: tokens[id] })),
    chats: EXAMPLE_CHATS,
  });
  return { hub, tokens };
}
