/**
 * JSON schema of the dev hub configuration (options.ts documents each field). The schema carries the defaults, so a
 * file, a test and the docs cannot disagree about them; Ajv fills them in and reports every error by path.
 */
const MIB = 1024 * 1024;
const DAY_MS = 24 * 60 * 60 * 1000;

const ms = (def: number) => ({ type: 'integer', minimum: 0, default: def }) as const;
const count = (def: number, minimum = 1) => ({ type: 'integer', minimum, default: def }) as const;

export const CONFIG_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  properties: {
    host: { type: 'string', minLength: 1, default: '127.0.0.1' },
    port: { type: 'integer', minimum: 0, maximum: 65535, default: 0 },
    path: { type: 'string', pattern: '^/', default: '/ws' },
    users: {
      type: 'array',
      default: [],
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['id'],
        properties: {
          id: { type: 'string', minLength: 1 },
          nick_name: { type: 'string' },
          token: { type: 'string', minLength: 1 },
          tokens: { type: 'array', items: { type: 'string', minLength: 1 } },
        },
      },
    },
    chats: {
      type: 'array',
      default: [],
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['id', 'members'],
        properties: {
          id: { type: 'string', minLength: 1 },
          members: { type: 'array', items: { type: 'string', minLength: 1 } },
          type: { enum: ['direct', 'group'] },
        },
      },
    },
    settings: {
      type: 'object',
      additionalProperties: false,
      default: {},
      properties: {
        handshake_timeout_ms: ms(10_000),
        ack_silence_kick_ms: ms(120_000),
        ack_sweep_interval_ms: ms(30_000),
        kick_backoff: {
          type: 'object',
          additionalProperties: false,
          default: {},
          properties: {
            after_kicks: count(3),
            window_ms: ms(60 * 60 * 1000),
            base_ms: ms(60_000),
            max_ms: ms(30 * 60 * 1000),
          },
        },
        unacked_window_max: count(4096),
        replay_throttle: count(3500),
        retention: {
          type: 'object',
          additionalProperties: false,
          default: {},
          properties: {
            max_age_ms: ms(30 * DAY_MS),
            max_rows_per_user: count(100_000, 0),
            sweep_interval_ms: ms(60_000),
          },
        },
        reliability: {
          type: 'object',
          additionalProperties: false,
          default: {},
          properties: { v1: { type: 'boolean', default: true }, v2: { type: 'boolean', default: true } },
        },
        stream_merged: { type: 'boolean', default: false },
        stream_merged_delay_ms: ms(0),
        stream_idle_timeout_ms: ms(10 * 60 * 1000),
        chat_id_format: { enum: ['any', 'cnv'], default: 'any' },
        max_frame_bytes: count(8 * MIB, 1024),
        max_connect_frame_bytes: count(64 * 1024, 1024),
        max_produce_bytes: count(1_000_000, 1024),
        max_message_id_bytes: count(512),
        max_emoji_bytes: count(64),
        presence_max_subscriptions: count(16, 0),
        presence_visibility_gate: { type: 'boolean', default: false },
        presence_user_id_prefixes: { type: 'array', items: { type: 'string', minLength: 1 }, default: ['usr_', 'agt_'] },
        read_snapshot_max_age_ms: ms(30 * DAY_MS),
        read_snapshot_max_chats: count(500, 0),
        ping_interval_ms: ms(30_000),
        max_miss_pong: count(2),
        pong_timeout_ms: ms(10_000),
        takeover_throttle: {
          type: 'object',
          additionalProperties: false,
          default: {},
          properties: { max: count(3, 0), window_ms: ms(10_000), max_delay_ms: ms(2_000) },
        },
        send_buffer_max_bytes: count(4 * MIB, 1024),
      },
    },
    media: {
      type: 'object',
      additionalProperties: false,
      default: {},
      properties: {
        enabled: { type: 'boolean', default: true },
        port: { type: 'integer', minimum: 0, maximum: 65535 },
        host: { type: 'string', minLength: 1 },
        storage: {
          default: 'memory',
          oneOf: [
            { enum: ['memory', 'none'] },
            {
              type: 'object',
              additionalProperties: false,
              required: ['dir'],
              properties: { dir: { type: 'string', minLength: 1 } },
            },
          ],
        },
        max_size_bytes: count(100 * MIB),
        allowed_mime_prefixes: { type: 'array', items: { type: 'string', minLength: 1 }, default: [] },
        public_base_url: { type: 'string', pattern: '^https?://' },
      },
    },
    admin: {
      type: 'object',
      additionalProperties: false,
      default: {},
      properties: {
        port: { type: 'integer', minimum: 0, maximum: 65535, default: 0 },
        host: { enum: ['127.0.0.1', '::1', 'localhost'], default: '127.0.0.1' },
        token: { type: 'string', minLength: 16, pattern: '^\\S+$' },
      },
    },
    state_file: { type: 'string', minLength: 1 },
    tls: {
      type: 'object',
      additionalProperties: false,
      required: ['cert_file', 'key_file'],
      properties: { cert_file: { type: 'string', minLength: 1 }, key_file: { type: 'string', minLength: 1 } },
    },
  },
} as const;
