/**
 * The `nodes` and `devices` sections of gateway.yaml: how the gateway names the mesh nodes it hears, when it calls one
 * connected or forgets it, and how a node's messages become typed readings (docs/home-assistant.md has worked examples).
 * Types, defaults and bounds live here once; `mappingProblems` adds what JSON Schema cannot say (a regex that does
 * not compile, a capture group that does not exist, a JSON pointer that is malformed).
 */
import type { JsonSchema } from '../../lib/schema';

const KEY = '^[a-z0-9_]{1,64}$';

export const NODES_CONFIG_SCHEMA = {
  type: 'object',
  default: {},
  additionalProperties: false,
  properties: {
    topic: {
      type: 'string',
      default: 'clawling/nodes',
      pattern: '^[^#+\\u0000]+[^/#+\\u0000]$',
      description: 'Topic prefix of the per-node topics, shared by every gateway of a site so that a node is one device.',
    },
    names: {
      type: 'object',
      default: {},
      description: 'Friendly names by mesh address (off1…): Home Assistant device names and the status page.',
      propertyNames: { minLength: 1, maxLength: 128 },
      additionalProperties: { type: 'string', minLength: 1, maxLength: 64 },
    },
    heard_window_s: {
      type: 'integer',
      minimum: 1,
      maximum: 604800,
      default: 900,
      description: 'A node that is not a connected neighbour counts as connected while it was heard within this window.',
    },
    forget_after_s: {
      type: 'integer',
      minimum: 60,
      maximum: 31536000,
      default: 604800,
      description: 'A node not heard for this long is forgotten: its retained Home Assistant configs and state are cleared.',
    },
    discovery: { type: 'boolean', default: true, description: 'Every mesh node heard becomes a Home Assistant device.' },
  },
} as const satisfies JsonSchema;

const VALUE_SOURCE = {
  type: 'object',
  additionalProperties: false,
  minProperties: 1,
  maxProperties: 2,
  description: 'Where the value comes from: one of regex (with group), metadata, json_pointer.',
  properties: {
    regex: { type: 'string', minLength: 1, maxLength: 512, description: 'Applied to the text content; the value is the capture group.' },
    group: { type: 'integer', minimum: 1, maximum: 32, description: 'The capture group that holds the value; default 1.' },
    metadata: { type: 'string', minLength: 1, maxLength: 256, description: 'A metadata key of the message.' },
    json_pointer: { type: 'string', maxLength: 512, description: 'RFC 6901 pointer into the content parsed as JSON.' },
  },
} as const satisfies JsonSchema;

const ENTITY = {
  type: 'object',
  additionalProperties: false,
  required: ['key', 'from'],
  properties: {
    key: { type: 'string', pattern: KEY, description: 'The reading key: part of the unique id and of the state payload.' },
    name: { type: 'string', minLength: 1, maxLength: 64 },
    platform: { enum: ['sensor', 'binary_sensor'], default: 'sensor' },
    from: VALUE_SOURCE,
    type: { enum: ['number', 'integer', 'string', 'boolean'], default: 'number' },
    scale: { type: 'number', default: 1, description: 'Multiplies a number (after parsing, before offset).' },
    offset: { type: 'number', default: 0 },
    true_values: {
      type: 'array',
      items: { type: 'string', minLength: 1 },
      default: ['on', 'true', '1', 'yes', 'open', 'detected', 'wet', 'motion'],
      description: 'For type boolean: the texts (case-insensitive) that mean on; anything else is off.',
    },
    unit: { type: ['string', 'null'], default: null, maxLength: 32 },
    device_class: { type: ['string', 'null'], default: null, pattern: '^[a-z_]{1,64}$' },
    state_class: { enum: ['measurement', 'total', 'total_increasing', null], default: null },
    icon: { type: ['string', 'null'], default: null, pattern: '^[a-z]+:[a-z0-9-]+$' },
  },
} as const satisfies JsonSchema;

export const DEVICES_CONFIG_SCHEMA = {
  type: 'array',
  default: [],
  description: 'Typed readings: which messages of which node become which Home Assistant entities.',
  items: {
    type: 'object',
    additionalProperties: false,
    required: ['match', 'entities'],
    properties: {
      match: {
        type: 'object',
        additionalProperties: false,
        minProperties: 1,
        properties: {
          sender: { type: 'string', minLength: 1, maxLength: 128, description: 'The sender address (off1…).' },
          name: { type: 'string', minLength: 1, maxLength: 64, description: 'A friendly name from nodes.names.' },
          app_id: { type: 'string', minLength: 1, maxLength: 256 },
          metadata: { type: 'object', additionalProperties: { type: 'string' }, description: 'Metadata keys that must have these values.' },
          content: { type: 'string', minLength: 1, maxLength: 512, description: 'A regex the text content must match for the mapping to apply.' },
        },
      },
      accept_claimed_sender: {
        type: 'boolean',
        default: false,
        description: 'Also take readings whose sender the gateway could not verify (relayed, or no transport identity).',
      },
      entities: { type: 'array', minItems: 1, maxItems: 64, items: ENTITY },
    },
  },
} as const satisfies JsonSchema;
