/**
 * The services the example flows talk to, started on 127.0.0.1 port 0 for a test: a dev hub whose users and chats
 * are the ones the examples name (read from examples/ itself, so a new example brings its own), and an MQTT broker
 * (aedes, in-process). Tokens are fresh random strings for each run, so that a test looking for a leaked token
 * cannot be fooled by the example tokens quoted in the examples' comments.
 *
 * `configFor` says how a user points each kind of configuration node at these services (the fields of its edit
 * dialog and its credentials): what each example's comment asks the user to do before deploying.
 */
import { randomBytes } from 'node:crypto';
import net from 'node:net';
import { Aedes } from 'aedes';
import { startDevHub, type DevHub } from '../../../devhub';
import { exampleNames, readExample, type FlowNode } from './declared-nodes';

export interface ExampleServices {
  hub: DevHub;
  /** Token by user id. */
  tokens: Record<string, string>;
  mqttPort: number;
  stop(): Promise<void>;
}

/** The users and chats of `clawling devhub --example-config`, which most examples assume. */
const BASE_USERS = ['usr_alice', 'usr_bob', 'agt_helper'];
const CHAT_ID = /\bcnv_[0-9A-Za-z]+\b/g;

/** Every hub user id and chat id the examples mention. */
export function exampleHubDirectory(): { users: string[]; chats: string[] } {
  const users = new Set(BASE_USERS);
  const chats = new Set(['cnv_01J0000000000000000000000A', 'cnv_01J0000000000000000000000B']);
  for (const name of exampleNames()) {
    for (const node of readExample(name)) {
      if (node.type === 'hub-config' && typeof node.userId === 'string' && node.userId) users.add(node.userId);
      const { info: _info, ...fields } = node; // ids quoted in a comment's prose are not a chat the flow uses
      for (const id of JSON.stringify(fields).match(CHAT_ID) ?? []) chats.add(id);
    }
  }
  return { users: [...users], chats: [...chats] };
}

async function startBroker(): Promise<{ port: number; stop(): Promise<void> }> {
  const aedes = await Aedes.createBroker();
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    aedes.handle(socket);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  return {
    port: (server.address() as net.AddressInfo).port,
    stop: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await new Promise<void>((resolve) => aedes.close(() => resolve()));
    },
  };
}

export async function startExampleServices(): Promise<ExampleServices> {
  const { users, chats } = exampleHubDirectory();
  const tokens = Object.fromEntries(users.map((id) => [id, `tok-${id}-${randomBytes(12).toString('hex')}`]));
  const hub = await startDevHub({
    host: '127.0.0.1',
    port: 0,
    users: users.map((id) => ({ id, token: tokens[id] })),
    chats: chats.map((id) => ({ id, members: users })),
  });
  const broker = await startBroker();
  return {
    hub,
    tokens,
    mqttPort: broker.port,
    stop: async () => {
      await hub.stop();
      await broker.stop();
    },
  };
}

export interface ConfigSetting {
  /** Property values, typed into `node-config-input-<key>` in the editor. */
  fields: Record<string, string>;
  /** Credentials, typed into the same kind of field; given to the test helper by node id. */
  credentials: Record<string, string>;
}

/** How to point a configuration node of an example at the services; undefined for a type this file does not know. */
export function configFor(node: FlowNode, services: ExampleServices): ConfigSetting | undefined {
  switch (node.type) {
    case 'hub-config': {
      const token = services.tokens[String(node.userId)];
      return { fields: { url: services.hub.wsUrl, mediaUrl: '' }, credentials: token ? { token } : {} };
    }
    case 'mqtt-broker':
      return { fields: { broker: '127.0.0.1', port: String(services.mqttPort) }, credentials: {} };
    default:
      return undefined;
  }
}

/** Node types that show their connection's state as status text (`connected` once up). */
export const CONNECTION_TYPES = ['hub-in', 'hub-out', 'mqtt in', 'mqtt out'];
