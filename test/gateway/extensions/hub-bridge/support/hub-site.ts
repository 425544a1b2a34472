/**
 * A hub site for the bridge tests: a real dev hub on 127.0.0.1 (port 0) with the bridge account and a tester account
 * in one chat, a tester `HubClient` recording what it receives, and the gateway's `hub:` section pointing at it.
 */
import { startDevHub, type DevHub } from '../../../../../devhub';
import { HubClient } from '../../../../../lib/hub/client';
import type { InboundMessage } from '../../../../../lib/hub/events';
import { identityFromSeed } from '../../../../../gateway/radios';
import { eventually } from '../../../support/broker';

export const CHAT = 'cnv_01J00000000000000000MESH1';
export const GATEWAY_USER = 'agt_mesh_gateway';
export const GATEWAY_TOKEN = 'gateway-test-token-7f3a';
export const TESTER = 'usr_tester';
export const TESTER_TOKEN = 'tester-test-token-91c2';

/** The seeded addresses of the virtual peers of TWO_RADIOS (test/gateway/support/gateway.ts). */
export const ALICE = identityFromSeed('clawling-sim:sim0:alice').address;
export const BOB = identityFromSeed('clawling-sim:sim0:bob').address;
export const CAROL = identityFromSeed('clawling-sim:sim1:carol').address;

export async function startHub(): Promise<DevHub> {
  return startDevHub({
    users: [
      { id: GATEWAY_USER, nick_name: 'Mesh gateway', token: GATEWAY_TOKEN },
      { id: TESTER, nick_name: 'Tester', token: TESTER_TOKEN },
    ],
    chats: [{ id: CHAT, members: [GATEWAY_USER, TESTER] }],
  });
}

/** The `hub:` section: mesh → CHAT, CHAT → alice (replies back to their sender). */
export function hubSection(hub: DevHub, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    enabled: true,
    url: hub.wsUrl,
    token: GATEWAY_TOKEN,
    user_id: GATEWAY_USER,
    ack_timeout_ms: 1000,
    reconnect_min_ms: 50,
    reconnect_max_ms: 300,
    sender_names: { [ALICE]: 'Alice', [BOB]: 'Bob', [CAROL]: 'Carol' },
    mesh_to_hub: [{ chat_id: CHAT }],
    hub_to_mesh: [{ chat_id: CHAT, recipient: ALICE }],
    to_mesh: { retry_min_ms: 50, retry_max_ms: 500 },
    ...extra,
  };
}

/** The tester's side of the chat: a real client that records every message it is given. */
export class Tester {
  readonly messages: InboundMessage[] = [];

  private constructor(readonly client: HubClient) {
    client.on('message', (m) => this.messages.push(m));
  }

  static async connect(hub: DevHub, userId = TESTER, token = TESTER_TOKEN, deviceId = 'tester-1'): Promise<Tester> {
    const client = new HubClient({ url: hub.wsUrl, token, userId, deviceId });
    const tester = new Tester(client);
    client.start();
    await eventually(() => client.state === 'connected', 10000, `${userId} connected to the hub`);
    return tester;
  }

  byId(messageId: string): InboundMessage[] {
    return this.messages.filter((m) => m.messageId === messageId);
  }

  async waitFor(test: (m: InboundMessage) => boolean, what: string, ms = 10000): Promise<InboundMessage> {
    await eventually(() => this.messages.some(test), ms, what);
    return this.messages.find(test)!;
  }

  async stop(): Promise<void> {
    await this.client.stop();
  }
}
