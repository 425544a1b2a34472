/**
 * The `hub:` section of gateway.yaml as JSON Schema (draft-07, checked by the gateway's Ajv with defaults filled in).
 * The extension module exports it as `configSchema`, and the gateway puts it in place of the open placeholder, so
 * `--check`, `--print-config` (the token shows as `[redacted]`: it is `writeOnly`) and the `CLAWLING_HUB_*`
 * variables all know every setting. docs/hub-bridge.md explains each one.
 */
import type { FromSchema } from 'json-schema-to-ts';
import { nullableString, type JsonSchema } from '../../../lib/schema';

/** Mesh identifiers are checked by lib/mesh's rule when the section is resolved; here only their size. */
const IDENTIFIER = { minLength: 1, maxLength: 256 };

const appIdFilter = {
  type: ['string', 'array', 'null'],
  default: null,
  items: { type: 'string', minLength: 1 },
  description: 'Only mesh messages with this app_id (or one of these); null: any.',
} as const satisfies JsonSchema;

const MESH_TO_HUB_RULE = {
  type: 'object',
  additionalProperties: false,
  required: ['chat_id'],
  properties: {
    chat_id: { type: 'string', minLength: 1, description: 'The hub chat the matching mesh messages go to.' },
    app_id: appIdFilter,
    recipient: {
      type: 'string',
      default: 'gateway',
      ...IDENTIFIER,
      description: "Which mesh messages: 'gateway' (addressed to this gateway, ACKed once the hub has them), '*' (also those seen in passing), or one recipient id (off1… address).",
    },
    sender: nullableString('Only mesh messages from this sender (off1… address); null: any.', IDENTIFIER),
    label: {
      enum: ['name', 'none'],
      default: 'name',
      description: "'name' starts the text with the sender's name (sender_names, else a short address); 'none' sends the content as it is.",
    },
    unverified: {
      enum: ['mark', 'bridge', 'skip'],
      default: 'mark',
      description:
        "Messages whose sender is not proven (sender_verified false): 'mark' adds ' (unverified)' to the name label, 'bridge' takes them as they are, 'skip' leaves them out of the hub.",
    },
  },
} as const satisfies JsonSchema;

const HUB_TO_MESH_RULE = {
  type: 'object',
  additionalProperties: false,
  required: ['chat_id'],
  properties: {
    chat_id: { type: 'string', minLength: 1, description: 'Messages of this hub chat go into the mesh.' },
    recipient: nullableString('The off1… address they go to; null: only replies to bridged mesh messages, which go back to their sender.', IDENTIFIER),
    app_id: nullableString('app_id of the mesh messages; default gateway.app_id.', { minLength: 1, maxLength: 256 }),
    replies_to_sender: {
      type: 'boolean',
      default: true,
      description: "A hub reply to a message bridged from the mesh goes to that message's mesh sender instead of `recipient`.",
    },
  },
} as const satisfies JsonSchema;

export const HUB_CONFIG_SCHEMA = {
  type: 'object',
  default: {},
  additionalProperties: false,
  description: 'The hub bridge: mesh messages to ClawlingChat Message Hub chats and back (docs/hub-bridge.md).',
  properties: {
    enabled: { type: 'boolean', default: false },
    url: { type: 'string', default: 'ws://127.0.0.1:8080/ws', pattern: '^wss?://', description: 'The hub WebSocket URL.' },
    token: nullableString('Bearer token of the bridge account (prefer token_file or CLAWLING_HUB_TOKEN).', { writeOnly: true }),
    token_file: nullableString('File whose first line is the token (systemd credentials); relative to the working folder.'),
    user_id: nullableString('The hub user id of the bridge account (required when enabled).', { minLength: 1 }),
    device_id: nullableString('Device id on the hub; default: minted once and kept in the state folder.', { minLength: 1, maxLength: 200 }),
    media_url: nullableString('Media service base; default: the http(s) origin of url.', { pattern: '^https?://' }),
    reliability: { enum: ['v2', 'v1'], default: 'v2', description: 'Reliable-delivery generation to ask the hub for.' },
    ack_timeout_ms: { type: 'integer', minimum: 100, maximum: 600000, default: 10000, description: 'A send unanswered this long is sent again (same ids).' },
    send_expiry_ms: { type: 'integer', minimum: 0, maximum: 2592000000, default: 0, description: 'Give up a send after this long (0: keep trying; the mesh sender is then not ACKed).' },
    max_in_flight: { type: 'integer', minimum: 1, maximum: 4096, default: 256, description: 'Sends on the wire awaiting message.ack at once.' },
    reconnect_min_ms: { type: 'integer', minimum: 1, maximum: 600000, default: 1000, description: 'First reconnect delay (grows, with jitter).' },
    reconnect_max_ms: { type: 'integer', minimum: 1, maximum: 3600000, default: 30000, description: 'Longest reconnect delay.' },
    outbox_max_entries: { type: 'integer', minimum: 1, maximum: 1000000, default: 10000, description: 'Hub sends waiting for message.ack; beyond, mesh messages are not ACKed (the sender retries).' },
    sender_names: {
      type: 'object',
      default: {},
      propertyNames: IDENTIFIER,
      additionalProperties: { type: 'string', minLength: 1, maxLength: 64 },
      description: 'Display names of mesh addresses, used by the `name` label.',
    },
    mesh_to_hub: { type: 'array', default: [], items: MESH_TO_HUB_RULE, description: 'First matching rule wins.' },
    hub_to_mesh: { type: 'array', default: [], items: HUB_TO_MESH_RULE, description: 'Every matching rule sends (one mesh message per recipient).' },
    files: {
      type: 'object',
      default: {},
      additionalProperties: false,
      properties: {
        max_upload_bytes: { type: 'integer', minimum: 1, maximum: 104857600, default: 16777216, description: 'Largest mesh file uploaded to the hub.' },
        max_fetch_bytes: { type: 'integer', minimum: 1, maximum: 104857600, default: 1048576, description: 'Largest hub media fetched and chunked into the mesh.' },
        fetch_timeout_ms: { type: 'integer', minimum: 100, maximum: 600000, default: 30000 },
        fetch_deadline_ms: {
          type: 'integer',
          minimum: 100,
          maximum: 3600000,
          default: 120000,
          description: 'Longest a hub media fetch may take in all, however steadily the server sends (the idle timeout is fetch_timeout_ms).',
        },
        chunk_profile: {
          enum: ['ble', 'reticulum', 'default', 'wifiDirect', 'internet', 'nostr'],
          default: 'ble',
          description: 'Chunk size and window of files sent into the mesh (lib/mesh CHUNK_PROFILES).',
        },
      },
    },
    to_mesh: {
      type: 'object',
      default: {},
      additionalProperties: false,
      properties: {
        queue_max_entries: { type: 'integer', minimum: 1, maximum: 1000000, default: 10000, description: 'Hub messages waiting for the mesh (oldest dropped, counted).' },
        concurrency: { type: 'integer', minimum: 1, maximum: 256, default: 8, description: 'Messages in flight to the mesh at once.' },
        max_attempts: { type: 'integer', minimum: 1, maximum: 100, default: 10, description: 'Sends without a mesh ACK before a message is given up.' },
        retry_min_ms: { type: 'integer', minimum: 10, maximum: 3600000, default: 1000 },
        retry_max_ms: { type: 'integer', minimum: 10, maximum: 3600000, default: 60000 },
        max_text_bytes: { type: 'integer', minimum: 16, maximum: 65536, default: 8192, description: 'Longer hub texts are cut at a character boundary (marked with …).' },
      },
    },
  },
} as const satisfies JsonSchema;

/** The section after validation (every default filled in), derived from the schema above. */
export type HubSettings = FromSchema<typeof HUB_CONFIG_SCHEMA>;
export type MeshToHubRuleSettings = HubSettings['mesh_to_hub'][number];
export type HubToMeshRuleSettings = HubSettings['hub_to_mesh'][number];
export type ChunkProfileSetting = HubSettings['files']['chunk_profile'];
export type UnverifiedSenderSetting = MeshToHubRuleSettings['unverified'];
