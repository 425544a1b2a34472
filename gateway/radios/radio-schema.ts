/**
 * The one table of radio settings: each setting's type, bounds, default and description. `RADIO_CONFIG_SCHEMA`
 * (what the gateway's config validator and `--check` apply) is built from these objects, and `resolveRadioConfig`
 * reads its defaults and bounds from the very same objects, so the validator and the resolver cannot disagree
 * (before, the schema accepted `queue_limit: 2000000` and the resolver then refused it at start).
 *
 * What JSON Schema cannot say stays in the resolver only: a bound that depends on another setting
 * (`reconnect.max_ms` ≥ `reconnect.initial_ms`), a name measured in UTF-8 bytes, duplicate peer ids.
 */

export interface IntSetting {
  readonly type: 'integer';
  readonly minimum: number;
  readonly maximum: number;
  readonly default?: number;
  readonly description?: string;
}

export interface BoolSetting {
  readonly type: 'boolean';
  readonly default: boolean;
  readonly description?: string;
}

const int = (minimum: number, maximum: number, dflt?: number, description?: string): IntSetting => ({
  type: 'integer',
  minimum,
  maximum,
  ...(dflt !== undefined ? { default: dflt } : {}),
  ...(description !== undefined ? { description } : {}),
});

const bool = (dflt: boolean, description?: string): BoolSetting => ({ type: 'boolean', default: dflt, ...(description !== undefined ? { description } : {}) });

export const RADIO_ID_PATTERN = '^[a-z0-9][a-z0-9_-]{0,31}$';
export const ADAPTER_PATTERN = '^(hci)?[0-9]{1,2}$';
/** A controller on a serial device (H4 over UART): `uart:/dev/ttyACM0`, any character device, a pty included. */
export const UART_ADAPTER_PATTERN = '^uart:/.+$';
export const UUID_PATTERN = '^[0-9A-Fa-f]{8}-?[0-9A-Fa-f]{4}-?[0-9A-Fa-f]{4}-?[0-9A-Fa-f]{4}-?[0-9A-Fa-f]{12}$';
/** Longest scan-response name: 31 bytes of scan response minus the field header. */
export const ADVERTISE_NAME_MAX_BYTES = 29;

export const SETTINGS = {
  common: {
    queue_limit: int(1, 100_000, 64, "Frames each peer's write queue holds before send() refuses with QUEUE_FULL."),
    queue_byte_limit: int(1024, 1_073_741_824, 4 * 1_048_576, "Bytes each peer's write queue holds before send() refuses."),
  },
  /** Reconnect backoff; its defaults differ by kind, and `max_ms` is at least `initial_ms` (resolver). */
  reconnect: {
    initial_ms: int(10, 3_600_000),
    max_ms: int(10, 3_600_000),
  },
  reconnectDefaults: {
    ble: { initial_ms: 1000, max_ms: 60_000 },
    serial: { initial_ms: 500, max_ms: 30_000 },
    simulated: { initial_ms: 1000, max_ms: 60_000 },
  },
  adapter: { minimum: 0, maximum: 63 },
  ble: {
    max_peers: int(1, 32, 4, 'Concurrent peer connections.'),
    connect_timeout_ms: int(100, 120_000, 10_000, 'Give up a connection attempt after this long.'),
    handshake_timeout_ms: int(100, 120_000, 15_000, 'Discovery, reads and subscription after connecting.'),
    min_write_gap_ms: int(0, 10_000, 20, 'Least time between two writes to one peer.'),
    write_gate_ms: int(1, 60_000, 30, 'A write-without-response counts as done when no callback came by then.'),
    require_identity: bool(true, 'Refuse peers whose IDENTITY blob does not verify or does not match DEVICE_ID.'),
    scan_restart_ms: int(100, 600_000, 5_000, 'Restart scanning when it has been stopped this long without us asking.'),
    discovery_window_ms: int(0, 10_000, 250, 'After a scan starts, collect advertisements this long before choosing whom to connect.'),
    baud_rate: int(1200, 16_000_000, 1_000_000, 'UART controllers (adapter uart:/dev/…): the line speed the firmware uses.'),
    flow_control: bool(true, 'UART controllers: RTS/CTS hardware flow control, as HCI UART firmware expects.'),
  },
  hciChannel: { enum: ['raw', 'user'], default: 'raw', description: 'hciN adapters: raw (BlueZ keeps the adapter; stop bluetoothd for the GATT server) or user (the gateway takes the adapter from BlueZ while it runs).' },
  peripheral: {
    enabled: bool(true, 'Advertise the mesh service and serve MESSAGE / DEVICE_ID / IDENTITY.'),
    max_clients: int(1, 16, 4, 'Centrals connected at once.'),
    notify: bool(true, 'MESSAGE offers notify as well as indicate.'),
  },
  serial: {
    baud_rate: int(50, 16_000_000, 115_200),
    max_frame_bytes: int(16, 1_048_576, 1_048_576, 'The largest payload accepted or sent.'),
    keepalive_ms: int(0, 3_600_000, 0, 'Send PING this often; 0 = presence follows the port.'),
    io: {
      enum: ['auto', 'fd', 'serialport'],
      default: 'auto',
      description: "How the open line is read and written: fd (a libuv stream on the event loop), serialport (serialport's own stream, through the thread pool), auto (fd where the device allows it, else serialport).",
    },
  },
  simulated: {
    fragment: bool(true, 'Frames cross the virtual link as BLE fragments.'),
    latency_ms: int(0, 60_000, 0, 'One-way latency of the virtual link.'),
  },
  simulatedPeer: {
    mtu: int(23, 517),
    rssi: int(-127, 20),
    battery: int(0, 100, undefined, 'Battery % its advertisement reports (as a BLE node in its IDENTITY); default none.'),
    load: int(0, 254, undefined, 'Load its advertisement reports (0–254); default none.'),
    auto_ack: bool(true, 'Answer every frame addressed to it that requires an ACK.'),
  },
  talk: {
    every_ms: int(10, 86_400_000),
  },
  wireVersion: int(0, 255),
} as const;

/** A role's controller: `hciN` (or its number) or `uart:<device>`. */
const ADAPTER = {
  oneOf: [
    { type: 'string', pattern: ADAPTER_PATTERN },
    { type: 'string', pattern: UART_ADAPTER_PATTERN },
    { type: 'integer', ...SETTINGS.adapter },
  ],
} as const;

const WIRE_VERSIONS = { type: 'array', items: SETTINGS.wireVersion } as const;

const commonProps = <K extends keyof typeof SETTINGS.reconnectDefaults>(kind: K) =>
  ({
    id: { type: 'string', pattern: RADIO_ID_PATTERN, description: 'Unique among the gateway\'s radios; appears in MQTT topics and logs.' },
    ...SETTINGS.common,
    reconnect: {
      type: 'object',
      additionalProperties: false,
      description: `Reconnect / reopen backoff; default initial_ms ${SETTINGS.reconnectDefaults[kind].initial_ms}, max_ms ${SETTINGS.reconnectDefaults[kind].max_ms}.`,
      properties: SETTINGS.reconnect,
    },
  }) as const;

// One schema per kind: `RADIO_CONFIG_SCHEMA` applies them by `kind` (if/then keeps Ajv's errors about the one kind
// meant), and radio-config.ts derives each kind's config type from its schema.

export const BLE_RADIO_SCHEMA = {
  type: 'object',
  required: ['id', 'kind'],
  additionalProperties: false,
  properties: {
    ...commonProps('ble'),
    kind: { const: 'ble' },
    adapter: { ...ADAPTER, default: 'hci0', description: 'HCI adapter (hci0, hci1, … or its number) or a UART controller (uart:/dev/ttyACM0).' },
    hci_channel: SETTINGS.hciChannel,
    service_uuid: { type: 'string', pattern: UUID_PATTERN, description: 'Mesh GATT service; only change it for test firmware.' },
    ...SETTINGS.ble,
    allow_peers: { type: 'array', items: { type: 'string', minLength: 1 }, description: 'Only connect to these peripheral ids or off1… addresses (and peers admitted by a pairing window); empty = any peer advertising the service unless admission is listed.' },
    admission: {
      enum: ['any', 'listed'],
      description: 'any: every peer advertising the service; listed: only allow_peers and the peers a pairing window admitted (<state_dir>/paired-peers.json). Default: listed when allow_peers is set, any otherwise.',
    },
    peripheral: {
      type: 'object',
      additionalProperties: false,
      description: 'GATT server (peripheral role) through @stoprocent/bleno: phones connect to the gateway as centrals.',
      properties: {
        enabled: SETTINGS.peripheral.enabled,
        advertise_name: { type: 'string', minLength: 1, description: `Scan-response name, at most ${ADVERTISE_NAME_MAX_BYTES} UTF-8 bytes; default none (the reference phones advertise no name).` },
        adapter: { ...ADAPTER, description: "The peripheral role's controller; default the radio's adapter (both roles on one controller)." },
        max_clients: SETTINGS.peripheral.max_clients,
        notify: SETTINGS.peripheral.notify,
      },
    },
  },
} as const;

export const SERIAL_RADIO_SCHEMA = {
  type: 'object',
  required: ['id', 'kind'],
  additionalProperties: false,
  anyOf: [{ required: ['path'] }, { required: ['match'] }],
  properties: {
    ...commonProps('serial'),
    kind: { const: 'serial' },
    path: { type: 'string', minLength: 1, description: 'Device path (/dev/ttyACM0, /dev/serial/by-id/…); or give match.' },
    match: {
      type: 'object',
      additionalProperties: false,
      minProperties: 1,
      description: 'Pick the first port whose list entry matches every given field (hex ids compare case-insensitively).',
      properties: {
        vendor_id: { type: 'string', minLength: 1 },
        product_id: { type: 'string', minLength: 1 },
        serial_number: { type: 'string', minLength: 1 },
        manufacturer: { type: 'string', minLength: 1 },
      },
    },
    ...SETTINGS.serial,
    peer_id: { type: 'string', minLength: 1, description: 'Peer id for the device at the other end; default serial:<path>.' },
    wire_versions: { ...WIRE_VERSIONS, description: "Wire versions assumed until the device's HELLO says otherwise; default [] (JSON floor only)." },
  },
} as const;

export const SIMULATED_RADIO_SCHEMA = {
  type: 'object',
  required: ['id', 'kind'],
  additionalProperties: false,
  properties: {
    ...commonProps('simulated'),
    kind: { const: 'simulated' },
    ...SETTINGS.simulated,
    peers: {
      type: 'array',
      items: {
        type: 'object',
        required: ['id'],
        additionalProperties: false,
        properties: {
          id: { type: 'string', minLength: 1, maxLength: 128, description: 'Link id of the virtual peer.' },
          address: { type: 'string', minLength: 1, description: 'Its mesh address; default derived from a key seeded by radio id and peer id (stable across runs).' },
          wire_versions: { ...WIRE_VERSIONS, description: 'Default [1] (binary-capable).' },
          ...SETTINGS.simulatedPeer,
          talk: {
            type: 'object',
            required: ['every_ms'],
            additionalProperties: false,
            description: 'Send a text message this often (for the demo).',
            properties: {
              ...SETTINGS.talk,
              recipient: { type: 'string' },
              app_id: { type: 'string' },
              text: { type: 'string' },
            },
          },
        },
      },
    },
  },
} as const;

/** JSON Schema (draft-07, Ajv-ready) of one entry of the gateway's `radios` list, keyed by `kind`. */
export const RADIO_CONFIG_SCHEMA = {
  type: 'object',
  required: ['id', 'kind'],
  properties: { kind: { enum: ['ble', 'serial', 'simulated'] } },
  allOf: [
    { if: { properties: { kind: { const: 'ble' } } }, then: BLE_RADIO_SCHEMA },
    { if: { properties: { kind: { const: 'serial' } } }, then: SERIAL_RADIO_SCHEMA },
    { if: { properties: { kind: { const: 'simulated' } } }, then: SIMULATED_RADIO_SCHEMA },
  ],
} as const;
