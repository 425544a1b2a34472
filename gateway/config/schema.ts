/**
 * The gateway's configuration schema (JSON Schema draft-07, checked by Ajv). The schema is the one place that holds
 * each setting's type, default and description: `loadConfig` fills defaults from it, `--print-config` shows its
 * result, the `CLAWLING_*` environment mapping walks it, and secrets are the properties marked `writeOnly`.
 *
 * Sections of optional extensions (`hub`) are open here; an extension whose index exports `configSchema` has its
 * schema put in place of the open one before validation, so that it plugs in without an edit to this file.
 */

import { nullableString, type JsonSchema } from '../../lib/schema';
import { PRIORITIES } from '../../lib/mesh/enums';
import { DEFAULT_TTL } from '../../lib/mesh/message';



/**
 * The sections the gateway's core owns (gateway, log, mesh, mqtt, http, and the open `hub` placeholder). The radios
 * and the mesh nodes bring their own sections; `gateway/gateway-config.ts` puts the whole schema together.
 */
export const CORE_CONFIG_SCHEMA = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  title: 'clawling gateway configuration',
  type: 'object',
  additionalProperties: false,
  properties: {
    gateway: {
      type: 'object',
      default: {},
      additionalProperties: false,
      properties: {
        id: nullableString(
          'Short name of this gateway in MQTT topics and Home Assistant; default: its mesh address (off1…).',
          { pattern: '^[A-Za-z0-9_-]{1,64}$' },
        ),
        name: { type: 'string', default: 'Clawling mesh gateway', minLength: 1, description: 'Human name (Home Assistant device name).' },
        state_dir: nullableString(
          'Folder for the identity key and the durable outbox; default: $STATE_DIRECTORY (systemd) or ./gateway-state beside the config file.',
        ),
        app_id: { type: 'string', default: 'clawling-gateway', minLength: 1, maxLength: 256, description: 'app_id of the ACKs and messages the gateway originates.' },
        store: {
          enum: ['sqlite', 'memory'],
          default: 'sqlite',
          description:
            'sqlite: the durable outbox in <state_dir>/gateway.db (needs node:sqlite, Node.js 22.13 or later; the gateway refuses to start without it); memory: queued messages are lost on restart.',
        },
        store_sync: {
          enum: ['full', 'normal'],
          default: 'full',
          description: 'full: every outbox write survives a power cut (fsync per commit); normal: survives a crash of the process, spares SD cards.',
        },
        shutdown_timeout_ms: { type: 'integer', minimum: 0, maximum: 600000, default: 10000, description: 'How long SIGTERM waits for the outbox to drain.' },
        pairing_window_s: {
          type: 'integer',
          minimum: 10,
          maximum: 3600,
          default: 300,
          description: 'How long a pairing window (Home Assistant switch, B/bridge/request/pairing) admits new BLE peers before it closes by itself.',
        },
      },
    },
    log: {
      type: 'object',
      default: {},
      additionalProperties: false,
      properties: {
        level: { enum: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], default: 'info' },
      },
    },
    mesh: {
      type: 'object',
      default: {},
      additionalProperties: false,
      properties: {
        dedup_max_entries: { type: 'integer', minimum: 16, maximum: 1000000, default: 10000 },
        dedup_ttl_s: { type: 'integer', minimum: 1, maximum: 604800, default: 3600 },
        forward: { type: 'boolean', default: true, description: 'Relay frames between neighbours by the TTL and hop rules.' },
        forward_jitter_min_ms: { type: 'integer', minimum: 0, maximum: 10000, default: 20 },
        forward_jitter_max_ms: { type: 'integer', minimum: 0, maximum: 10000, default: 200 },
        relay_fanout: { type: 'integer', minimum: 1, maximum: 16, default: 3 },
        require_transport_identity: { type: 'boolean', default: false },
        control_freshness_enforced: {
          type: 'boolean',
          default: true,
          description: 'Refuse control frames signed with offline-ctrl-v2 whose timestamp is over 30 days old or over 48 h ahead of this clock. Turn off only to recover from a wrong clock.',
        },
        ack_timeout_ms: { type: 'integer', minimum: 100, maximum: 3600000, default: 10000, description: 'How long a message sent from MQTT waits for its mesh ACK.' },
        max_frame_bytes: { type: 'integer', minimum: 1024, maximum: 1048576, default: 1048576 },
        max_pending_deliveries: {
          type: 'integer',
          minimum: 16,
          maximum: 100000,
          default: 1024,
          description: 'Messages to the gateway taken but not yet ACKed (waiting for MQTT or the hub); beyond, new ones are not ACKed and their senders retry.',
        },
      },
    },
    mqtt: {
      type: 'object',
      default: {},
      additionalProperties: false,
      properties: {
        enabled: { type: 'boolean', default: true },
        url: { type: 'string', default: 'mqtt://127.0.0.1:1883', pattern: '^(mqtt|mqtts|tcp|tls|ssl|ws|wss)://' },
        base_topic: nullableString('Topic prefix; default clawling/<gateway id>.', { pattern: '^[^#+\\u0000]+[^/#+\\u0000]$' }),
        client_id: nullableString('MQTT client id; default clawling-<gateway id>.', { minLength: 1, maxLength: 128 }),
        username: nullableString('Broker user name.'),
        password: nullableString('Broker password (prefer password_file).', { writeOnly: true }),
        password_file: nullableString('File whose first line is the broker password (systemd credentials).'),
        version: { enum: ['auto', 4, 5], default: 'auto', description: 'MQTT protocol: 5, 4 (3.1.1), or auto (5, falling back to 3.1.1).' },
        keepalive_s: { type: 'integer', minimum: 0, maximum: 65535, default: 30 },
        connect_timeout_ms: { type: 'integer', minimum: 100, maximum: 120000, default: 10000 },
        reconnect_min_ms: { type: 'integer', minimum: 10, maximum: 600000, default: 1000 },
        reconnect_max_ms: { type: 'integer', minimum: 10, maximum: 3600000, default: 30000 },
        inflight: { type: 'integer', minimum: 1, maximum: 1024, default: 256, description: 'QoS 1 publishes awaiting PUBACK at once.' },
        outbox_max_entries: { type: 'integer', minimum: 1, maximum: 10000000, default: 100000 },
        commit_interval_ms: {
          type: 'integer',
          minimum: 0,
          maximum: 1000,
          default: 10,
          description: 'Under load, outbox commits (and their fsyncs) at least this far apart; a lone message is not held back. Larger: less CPU per message, later ACKs.',
        },
        raw_frames: { type: 'boolean', default: false, description: 'Also publish every received frame as bytes on <base>/raw/<radio>.' },
        health_interval_s: { type: 'integer', minimum: 1, maximum: 86400, default: 30 },
        tls: {
          type: 'object',
          default: {},
          additionalProperties: false,
          properties: {
            ca: nullableString('PEM file of the CA that signed the broker certificate.'),
            cert: nullableString('PEM client certificate (mutual TLS).'),
            key: nullableString('PEM private key of the client certificate.'),
            key_passphrase: nullableString('Passphrase of the client key.', { writeOnly: true }),
            reject_unauthorized: { type: 'boolean', default: true },
            servername: nullableString('Server name for SNI and certificate checks when it differs from the URL host.'),
          },
        },
        send_policy: {
          type: 'object',
          default: {},
          additionalProperties: false,
          description: 'What the gateway transmits in its own name for <base>/send and the notify topics (docs/mqtt.md "Send policy").',
          properties: {
            app_ids: {
              type: ['array', 'null'],
              default: null,
              items: { type: 'string', minLength: 1, maxLength: 256 },
              description: 'Only these app ids may be sent (list gateway.app_id too if requests leave app_id out); null: any.',
            },
            recipients: {
              type: ['array', 'null'],
              default: null,
              items: { type: 'string', minLength: 1 },
              description: 'Only these off1 addresses may be sent to; null: any.',
            },
            allow_reserved: {
              type: 'array',
              default: [],
              uniqueItems: true,
              items: { enum: ['control', 'sealed', 'file_chunk'] },
              description: 'Protocol content the gateway sends anyway: control (__CONN_REQ__, __MLS_KEY_PKG__, …), sealed (__MLS_ENC__, __GROUP_MSG__), file_chunk.',
            },
            max_ttl: { type: 'integer', minimum: 0, maximum: 255, default: DEFAULT_TTL, description: 'Highest ttl a request may ask for (the mesh default).' },
            max_priority: { enum: [...PRIORITIES], default: 'high', description: 'Highest priority a request may ask for; critical is refused by default.' },
            rate_per_s: {
              type: ['number', 'null'],
              exclusiveMinimum: 0,
              maximum: 10000,
              default: 2,
              description: 'Sends per second the whole gateway takes from MQTT, after a burst; null: no limit.',
            },
            burst: { type: 'integer', minimum: 1, maximum: 100000, default: 10, description: 'Sends taken at once before rate_per_s applies.' },
            requests: {
              type: ['array', 'null'],
              default: null,
              uniqueItems: true,
              items: { enum: ['restart', 'log_level', 'pairing'] },
              description: 'The B/bridge/request/<name> requests the gateway carries out (the ACL decides who may publish them); null: all.',
            },
          },
        },
        site: {
          type: 'object',
          default: {},
          additionalProperties: false,
          description: 'The site this gateway belongs to: one downlink shared by every gateway of the site (docs/scaling.md).',
          properties: {
            id: nullableString('Site name, the same on every gateway of the site; null: no site downlink.', { pattern: '^[A-Za-z0-9_-]{1,64}$' }),
            topic: nullableString('Topic prefix of the site; default clawling/site/<id>.', { pattern: '^[^#+\\u0000]+[^/#+\\u0000]$' }),
            share_group: nullableString('MQTT 5 shared-subscription group of the site downlink; default clawling-<id>.', { pattern: '^[^/#+\\u0000]{1,64}$' }),
            v311_owner: {
              type: 'boolean',
              default: false,
              description: 'On MQTT 3.1.1 (no shared subscriptions) this gateway alone takes the site downlink with a plain subscription: set it on one gateway of the site.',
            },
          },
        },
        homeassistant: {
          type: 'object',
          default: {},
          additionalProperties: false,
          properties: {
            enabled: { type: 'boolean', default: true },
            discovery_prefix: { type: 'string', default: 'homeassistant', minLength: 1 },
            status_topic: { type: 'string', default: 'homeassistant/status', minLength: 1 },
            event_qos: {
              type: 'integer',
              enum: [0, 1],
              default: 0,
              description:
                "QoS of each node's per-message event (N/<address>/event), as Zigbee2MQTT publishes device messages by default; 1 has the broker acknowledge every one. The bridge's own message topics stay QoS 1 through the durable outbox.",
            },
          },
        },
      },
    },
    http: {
      type: 'object',
      default: {},
      additionalProperties: false,
      properties: {
        enabled: { type: 'boolean', default: true },
        host: { type: 'string', default: '127.0.0.1', minLength: 1, description: 'Loopback by default; 0.0.0.0 exposes the status page to the network.' },
        port: { type: 'integer', minimum: 0, maximum: 65535, default: 8089 },
        recent_messages: { type: 'integer', minimum: 0, maximum: 1000, default: 50 },
        auth_token: nullableString(
          "Bearer token the web UI's actions (send a text to a node, show a message's text) need; null: those actions are off.",
          { writeOnly: true, minLength: 16, maxLength: 512 },
        ),
        health_mqtt_down_ms: {
          type: 'integer',
          minimum: 0,
          maximum: 86400000,
          default: 60000,
          description: '/health answers 503 (degraded) once MQTT (when enabled) has been disconnected this long; 0: as soon as it drops.',
        },
        health_radio_grace_ms: {
          type: 'integer',
          minimum: 0,
          maximum: 86400000,
          default: 60000,
          description: 'A radio that was ready and is reconnecting still counts as usable for /health this long; one that never became ready gets no grace.',
        },
      },
    },
    hub: {
      type: 'object',
      default: {},
      description: 'The hub bridge (gateway/extensions/hub-bridge/config-schema.ts defines the rest of this section).',
      properties: { enabled: { type: 'boolean', default: false } },
    },
    daemon: {
      type: 'object',
      default: {},
      description: 'The gateway-daemon v1 listener (gateway/extensions/daemon/config-schema.ts defines the rest of this section).',
      properties: { enabled: { type: 'boolean', default: false } },
    },
  },
} as const satisfies JsonSchema;

/** Section name → schema of the optional extensions that define their own (filled from their modules). */
export function withExtensionSchemas(base: JsonSchema, sections: Record<string, JsonSchema>): JsonSchema {
  const props = { ...(base.properties as Record<string, JsonSchema>) };
  for (const [name, schema] of Object.entries(sections)) props[name] = { default: {}, ...schema };
  return { ...base, properties: props };
}

export type { JsonSchema } from '../../lib/schema';
