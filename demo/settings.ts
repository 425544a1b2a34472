/**
 * The demo's embedded defaults (`npm start`): who is who on the dev hub, the one chat, the gateway with two simulated
 * radios (or, with `--virtual-ble`, one BLE radio and two BLE phones on the virtual controller) and the hub bridge's
 * rules. Everything listens on 127.0.0.1. The tokens are the dev hub's demo accounts,
 * not secrets of anyone's; they still stay out of the example flow, which gets its token as a credential.
 */
import type { DevHubOptions } from '../devhub';

export interface DemoPorts {
  nodeRed: number;
  hub: number;
  mqtt: number;
  status: number;
  /** The gateway-daemon v1 listener (devices on the LAN attach here); absent: a free port. */
  daemon?: number;
}

export const DEFAULT_PORTS: Readonly<DemoPorts> = Object.freeze({ nodeRed: 1880, hub: 8080, mqtt: 1883, status: 8089 });
/** The reference clients' default `daemonAddress` is localhost:4242. */
export const DEFAULT_DAEMON_PORT = 4242;

export const DEMO = Object.freeze({
  gatewayId: 'demo',
  chat: 'cnv_01J000000000000000000MESH',
  gatewayUser: 'agt_mesh_gateway',
  gatewayToken: 'gateway-demo-token',
  nodeRedUser: 'usr_nodered',
  nodeRedToken: 'nodered-demo-token',
  youUser: 'usr_you',
  youToken: 'you-demo-token',
  /** The id of the example flow's hub-config node, which receives the Node-RED account's token. */
  hubConfigNode: 'de30ba7e00000020',
});

/** The virtual peers (their addresses follow from radio id and peer id, so they are the same on every run). */
export const PEERS = Object.freeze({
  kitchen: { radio: 'sim0', address: 'off1q95fm2f5p8degp79tm3kkuns0hqyx74kwuxqthpk' },
  porch: { radio: 'sim0', address: 'off1qxh9a22dz694sxn9tw282sptxfh8jddy8vnnhtf5' },
  garden: { radio: 'sim1', address: 'off1qxc2eeust8svyquwc9mcl222c002kdsr7vp2nmyk' },
});

/**
 * With `--virtual-ble` the two talking peers are BLE phones. Each keeps the identity of its simulated namesake (the
 * simulated radio draws a peer's key from `clawling-sim:<radio>:<peer>`), so the node names, the hub bridge's
 * recipient and the Home Assistant devices stay the same; the RSSI is what the virtual air reports to the gateway.
 */
export const PHONES = Object.freeze({
  kitchen: { seed: 'clawling-sim:sim0:kitchen', address: PEERS.kitchen.address, rssi: -58 },
  garden: { seed: 'clawling-sim:sim1:garden', address: PEERS.garden.address, rssi: -66 },
});

/** The radios of `npm start`: two simulated ones, or one BLE radio through the real stacks on the virtual controller. */
export type DemoRadios = 'simulated' | 'virtual-ble';

/**
 * The BLE radio of `--virtual-ble`: both roles on one controller named as a user names a UART dongle
 * (`uart:<pty of a devble controller>`, filled in when the virtual air is up), timings as on hardware but for a
 * quicker reconnect. A pty has no RTS/CTS lines to wire, so flow control is off.
 */
export function bleRadio(adapter: string): Record<string, unknown> {
  return {
    id: 'ble0',
    kind: 'ble',
    adapter,
    flow_control: false,
    reconnect: { initial_ms: 500, max_ms: 5000 },
    peripheral: { enabled: true },
  };
}

const SIMULATED_RADIOS = [
  {
    id: 'sim0',
    kind: 'simulated',
    latency_ms: 5,
    peers: [
      { id: 'kitchen', wire_versions: [1], rssi: -58 },
      { id: 'porch', wire_versions: [], rssi: -77, battery: 87, load: 12 },
    ],
  },
  { id: 'sim1', kind: 'simulated', latency_ms: 5, peers: [{ id: 'garden', wire_versions: [1], rssi: -66 }] },
];

const NODE_NAMES = Object.freeze({ [PEERS.kitchen.address]: 'Kitchen', [PEERS.porch.address]: 'Porch', [PEERS.garden.address]: 'Garden' });

export function devHubOptions(port: number): DevHubOptions {
  return {
    host: '127.0.0.1',
    port,
    users: [
      { id: DEMO.gatewayUser, nick_name: 'Mesh gateway', token: DEMO.gatewayToken },
      { id: DEMO.nodeRedUser, nick_name: 'Node-RED', token: DEMO.nodeRedToken },
      { id: DEMO.youUser, nick_name: 'You', token: DEMO.youToken },
    ],
    chats: [{ id: DEMO.chat, members: [DEMO.gatewayUser, DEMO.nodeRedUser, DEMO.youUser], type: 'group' }],
    media: { storage: 'memory' },
  };
}

/** gateway.yaml of the demo, as an object (the real loader checks it and fills the defaults). */
export function gatewayConfig(o: { stateDir: string; hubUrl: string; mqttUrl: string; statusPort: number; radios?: DemoRadios; bleAdapter?: string; daemonPort?: number }): Record<string, unknown> {
  return {
    gateway: { id: DEMO.gatewayId, name: 'Clawling demo gateway', state_dir: o.stateDir, store_sync: 'normal', shutdown_timeout_ms: 2000 },
    log: { level: 'info' },
    radios: o.radios === 'virtual-ble' ? [bleRadio(o.bleAdapter ?? 'uart:/dev/null')] : structuredClone(SIMULATED_RADIOS),
    mqtt: { url: o.mqttUrl, reconnect_min_ms: 200, reconnect_max_ms: 2000 },
    // Home Assistant (docs/home-assistant.md): every node a device, named; the readings typed.
    nodes: { names: NODE_NAMES },
    devices: [
      {
        match: { name: 'Kitchen', content: '^temperature ' },
        entities: [{ key: 'temperature', name: 'Temperature', from: { regex: '(-?\\d+(?:\\.\\d+)?) ?°C' }, unit: '°C', device_class: 'temperature', state_class: 'measurement' }],
      },
      {
        match: { name: 'Garden', content: '^soil moisture ' },
        entities: [{ key: 'soil_moisture', name: 'Soil moisture', from: { regex: '(\\d+) ?%' }, type: 'integer', unit: '%', device_class: 'moisture', state_class: 'measurement' }],
      },
    ],
    http: { enabled: true, host: '127.0.0.1', port: o.statusPort },
    // Phones attach beside every radio (docs/gateway-daemon.md); loopback only, as everything in the demo.
    daemon: { enabled: true, listen: `127.0.0.1:${o.daemonPort ?? 0}` },
    hub: {
      enabled: true,
      url: o.hubUrl,
      token: DEMO.gatewayToken,
      user_id: DEMO.gatewayUser,
      reconnect_min_ms: 200,
      reconnect_max_ms: 5000,
      sender_names: NODE_NAMES,
      mesh_to_hub: [{ chat_id: DEMO.chat }],
      // Plain chat messages go to the garden; a reply to a mesh message goes back to the node that sent it.
      hub_to_mesh: [{ chat_id: DEMO.chat, recipient: PEERS.garden.address }],
    },
  };
}
