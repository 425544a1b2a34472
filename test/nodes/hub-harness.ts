/**
 * Shared pieces of the hub node tests: a dev hub with three users and two chats, a peer (`usr_bob`) on a real
 * HubClient, flow builders, and waiting on node statuses and messages without sleeping.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startDevHub, type DevHub, type DevHubOptions } from '../../devhub';
import { HubClient, type HubClientEvents, type HubClientOptions } from '../../lib/hub';
import type { useNodeRed } from '../support/node-red';

export const ALICE = { id: 'usr_alice', token: 'tok-alice-secret-1' };
export const BOB = { id: 'usr_bob', token: 'tok-bob-secret-2' };
export const HELPER = { id: 'agt_helper', token: 'tok-helper-secret-3' };
export const CHAT_AB = 'cnv_01J0000000000000000000000A';
export const CHAT_GROUP = 'cnv_01J0000000000000000000000B';
export const CHAT_OTHER = 'cnv_01J0000000000000000000000C';

export type Helper = ReturnType<typeof useNodeRed>;
export type Flow = Parameters<Helper['load']>[1];
export type FlowNode = Record<string, unknown> & { id: string; type: string };

export interface Status {
  fill?: string;
  shape?: string;
  text?: string;
}

/** What the tests do with a node of a loaded flow. */
export interface TestNode {
  id: string;
  on(event: string, cb: (value: unknown) => void): void;
  removeListener(event: string, cb: (value: unknown) => void): void;
  receive(msg: Record<string, unknown>): void;
}

export interface Captured {
  _msgid?: string;
  topic?: string;
  payload?: unknown;
  hub?: Record<string, unknown>;
  error?: { code?: string; message?: string; source?: { id?: string } };
  [key: string]: unknown;
}

export function hubOptions(extra: DevHubOptions = {}): DevHubOptions {
  return {
    users: [
      { id: ALICE.id, nick_name: 'Alice', token: ALICE.token },
      { id: BOB.id, nick_name: 'Bob', token: BOB.token },
      { id: HELPER.id, nick_name: 'Helper', token: HELPER.token },
    ],
    chats: [
      { id: CHAT_AB, members: [ALICE.id, BOB.id] },
      { id: CHAT_GROUP, members: [ALICE.id, BOB.id, HELPER.id] },
    ],
    ...extra,
  };
}

export async function startHub(extra: DevHubOptions = {}): Promise<DevHub> {
  return startDevHub(hubOptions(extra));
}

export function tempDir(prefix: string): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), `hub-nodes-${prefix}-`));
}

/** A hub-config node for Alice; fast reconnects so that tests of reconnection do not wait seconds. */
export function configNode(hub: DevHub, extra: Record<string, unknown> = {}): FlowNode {
  return {
    id: 'cfg',
    type: 'hub-config',
    url: hub.wsUrl,
    mediaUrl: hub.mediaUrl,
    userId: ALICE.id,
    deviceId: 'alice-nodered',
    reliability: 'v2',
    chatIdRule: 'any',
    reconnectMin: 0.05,
    reconnectMax: 0.2,
    sendExpiry: 0,
    persist: false,
    stateDir: '',
    ...extra,
  };
}

/** Gives a flow node a position: Node-RED treats nodes without x and y as config nodes. */
export function placed<T extends Record<string, unknown>>(node: T): T & { x: number; y: number } {
  return { x: 100, y: 100, ...node };
}

export const aliceCredentials = { cfg: { token: ALICE.token } };

export function getNode(helper: Helper, id: string): TestNode {
  const node = helper.getNode(id) as unknown as TestNode | null;
  if (!node) throw new Error(`node ${id} is not in the flow`);
  return node;
}

/** Every status a node showed so far (the helper spies on Node.prototype.status). */
export function statuses(helper: Helper, node: TestNode): Status[] {
  const proto = (helper as unknown as { _NodePrototype: { status: { getCalls(): Array<{ thisValue: unknown; args: unknown[] }> } } })._NodePrototype;
  return proto.status
    .getCalls()
    .filter((c) => c.thisValue === node)
    .map((c) => (c.args[0] ?? {}) as Status);
}

export function lastStatus(helper: Helper, node: TestNode): Status | undefined {
  return statuses(helper, node).at(-1);
}

/** Resolves when the node's latest status matches; rejects after `ms` with what it showed. */
export function waitStatus(helper: Helper, node: TestNode, match: (s: Status) => boolean, ms = 8000): Promise<Status> {
  return new Promise((resolve, reject) => {
    const check = (): boolean => {
      const s = lastStatus(helper, node);
      if (s && match(s)) {
        cleanup();
        resolve(s);
        return true;
      }
      return false;
    };
    const onStatus = (): void => {
      check();
    };
    const timer = setTimeout(() => {
      cleanup();
      reject(new Error(`status of ${node.id} never matched; it showed ${JSON.stringify(statuses(helper, node))}`));
    }, ms);
    function cleanup(): void {
      clearTimeout(timer);
      node.removeListener('call:status', onStatus);
    }
    node.on('call:status', onStatus);
    check();
  });
}

export const isText = (text: string) => (s: Status) => s.text === text;
export const startsWith = (prefix: string) => (s: Status) => typeof s.text === 'string' && s.text.startsWith(prefix);

/** Collects every message a helper node receives. */
export function collect(node: TestNode): Captured[] {
  const got: Captured[] = [];
  node.on('input', (m) => got.push(m as Captured));
  return got;
}

/** The next message on a helper node that matches. */
export function next(node: TestNode, match: (m: Captured) => boolean = () => true, ms = 8000): Promise<Captured> {
  return new Promise((resolve, reject) => {
    const onInput = (m: unknown): void => {
      if (!match(m as Captured)) return;
      clearTimeout(timer);
      node.removeListener('input', onInput);
      resolve(m as Captured);
    };
    const timer = setTimeout(() => {
      node.removeListener('input', onInput);
      reject(new Error(`no matching message on ${node.id} within ${ms} ms`));
    }, ms);
    node.on('input', onInput);
  });
}

/** Resolves once `predicate` holds, checked after each of the given events; for counting what arrived. */
export async function until(predicate: () => boolean, what: string, ms = 8000): Promise<void> {
  const start = Date.now();
  while (!predicate()) {
    if (Date.now() - start > ms) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** A peer on a real client, connected before it is returned. */
export async function peer(hub: DevHub, user = BOB, extra: Partial<HubClientOptions> = {}): Promise<HubClient> {
  const client = new HubClient({ url: hub.wsUrl, token: user.token, userId: user.id, deviceId: `${user.id}-peer`, pingSilenceMs: 0, ...extra });
  const live = nextEvent(client, 'state', (s) => s.state === 'connected');
  client.start();
  await live;
  return client;
}

export function nextEvent<K extends keyof HubClientEvents & string>(
  client: HubClient,
  event: K,
  match: (v: HubClientEvents[K]) => boolean = () => true,
  ms = 8000,
): Promise<HubClientEvents[K]> {
  return new Promise((resolve, reject) => {
    const listener = (v: HubClientEvents[K]): void => {
      if (!match(v)) return;
      clearTimeout(timer);
      client.off(event, listener);
      resolve(v);
    };
    const timer = setTimeout(() => {
      client.off(event, listener);
      reject(new Error(`no ${event} event within ${ms} ms`));
    }, ms);
    client.on(event, listener);
  });
}

/** Alice's live sessions at the hub. */
export function aliceSessions(hub: DevHub): number {
  return hub.admin.devices().filter((d) => d.user_id === ALICE.id).length;
}
