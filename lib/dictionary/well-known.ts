/**
 * The well-known component table (group-metadata-dictionary.md §2 and §5) as data: id, name, type tag, limits,
 * mutability, the extra check a value gets, and the `field_name` a change record uses (META-040).
 * Everything else in the library reads this table instead of naming ids in code.
 */
import { type CollectionShape, SHAPES } from './collections';
import { ComponentType, type ComponentTypeName } from './component-metadata';
import { isImmutable } from './component-ids';

/** Extra validation a well-known value gets beyond its type. */
export type ValueCheck =
  | 'none'
  | 'int64'
  | 'semver'
  | 'signer'
  | 'conversation-type'
  | 'inbox-id'
  | 'dm-pair'
  | 'oneshot'
  | 'membership-entries';

/** How a change record renders old and new values (META-040). */
export type ChangeForm = 'string' | 'int64-decimal' | 'hex';

export interface WellKnownComponent {
  readonly id: number;
  readonly name: string;
  readonly type: ComponentTypeName;
  readonly mutability: 'mutable' | 'immutable';
  /** Largest scalar value in bytes. */
  readonly maxBytes?: number;
  /** Exact scalar length in bytes. */
  readonly exactBytes?: number;
  readonly check: ValueCheck;
  /** META-068's global bounds apply. */
  readonly globalBounds: boolean;
  /** Write authority fixed by PERM-026 instead of a registry entry. */
  readonly hardcoded: boolean;
  readonly fieldName?: string;
  readonly changeForm?: ChangeForm;
}

export const WELL_KNOWN_COMPONENTS: readonly WellKnownComponent[] = [
  { id: 0x8000, name: 'COMPONENT_REGISTRY', type: 'TLS_MAP_BYTES_BYTES', mutability: 'mutable', check: 'none', globalBounds: true, hardcoded: true },
  { id: 0x8001, name: 'SUPER_ADMIN_LIST', type: 'TLS_SET_INBOX_ID', mutability: 'mutable', check: 'none', globalBounds: false, hardcoded: true },
  { id: 0x8002, name: 'ADMIN_LIST', type: 'TLS_SET_INBOX_ID', mutability: 'mutable', check: 'none', globalBounds: false, hardcoded: false },
  {
    id: 0x8003,
    name: 'GROUP_MEMBERSHIP',
    type: 'TLS_MAP_INBOX_ID_BYTES',
    mutability: 'mutable',
    check: 'membership-entries',
    globalBounds: false,
    hardcoded: false,
  },
  {
    id: 0x8004,
    name: 'GROUP_NAME',
    type: 'STRING',
    mutability: 'mutable',
    maxBytes: 100,
    check: 'none',
    globalBounds: false,
    hardcoded: false,
    fieldName: 'group_name',
    changeForm: 'string',
  },
  {
    id: 0x8005,
    name: 'GROUP_DESCRIPTION',
    type: 'STRING',
    mutability: 'mutable',
    maxBytes: 1000,
    check: 'none',
    globalBounds: false,
    hardcoded: false,
    fieldName: 'description',
    changeForm: 'string',
  },
  {
    id: 0x8006,
    name: 'GROUP_IMAGE_URL',
    type: 'STRING',
    mutability: 'mutable',
    maxBytes: 2048,
    check: 'none',
    globalBounds: false,
    hardcoded: false,
    fieldName: 'group_image_url_square',
    changeForm: 'string',
  },
  {
    id: 0x8007,
    name: 'MESSAGE_DISAPPEAR_FROM_NS',
    type: 'BYTES',
    mutability: 'mutable',
    exactBytes: 8,
    check: 'int64',
    globalBounds: false,
    hardcoded: false,
    fieldName: 'message_disappear_from_ns',
    changeForm: 'int64-decimal',
  },
  {
    id: 0x8008,
    name: 'MESSAGE_DISAPPEAR_IN_NS',
    type: 'BYTES',
    mutability: 'mutable',
    exactBytes: 8,
    check: 'int64',
    globalBounds: false,
    hardcoded: false,
    fieldName: 'message_disappear_in_ns',
    changeForm: 'int64-decimal',
  },
  {
    id: 0x8009,
    name: 'APP_DATA',
    type: 'STRING',
    mutability: 'mutable',
    maxBytes: 8192,
    check: 'none',
    globalBounds: false,
    hardcoded: false,
    fieldName: 'app_data',
    changeForm: 'string',
  },
  {
    id: 0x800a,
    name: 'MIN_SUPPORTED_PROTOCOL_VERSION',
    type: 'STRING',
    mutability: 'mutable',
    check: 'semver',
    globalBounds: false,
    hardcoded: false,
    fieldName: 'minimum_supported_protocol_version',
    changeForm: 'string',
  },
  {
    id: 0x800b,
    name: 'COMMIT_LOG_SIGNER',
    type: 'BYTES',
    mutability: 'mutable',
    exactBytes: 32,
    check: 'signer',
    globalBounds: false,
    hardcoded: false,
    fieldName: '_commit_log_signer',
    changeForm: 'hex',
  },
  { id: 0x800c, name: 'USER_DISPLAY_NAME', type: 'TLS_MAP_INBOX_ID_STRING', mutability: 'mutable', check: 'none', globalBounds: true, hardcoded: false },
  { id: 0x800d, name: 'GROUP_IMAGE', type: 'BYTES', mutability: 'mutable', check: 'none', globalBounds: true, hardcoded: false },
  {
    id: 0xbfff,
    name: 'CONVERSATION_TYPE',
    type: 'BYTES',
    mutability: 'immutable',
    exactBytes: 4,
    check: 'conversation-type',
    globalBounds: false,
    hardcoded: false,
  },
  {
    id: 0xbffe,
    name: 'CREATOR_INBOX_ID',
    type: 'BYTES',
    mutability: 'immutable',
    exactBytes: 33,
    check: 'inbox-id',
    globalBounds: false,
    hardcoded: false,
  },
  { id: 0xbffd, name: 'DM_MEMBERS', type: 'TLS_SET_INBOX_ID', mutability: 'immutable', check: 'dm-pair', globalBounds: false, hardcoded: false },
  { id: 0xbffc, name: 'ONESHOT_MESSAGE', type: 'BYTES', mutability: 'immutable', check: 'oneshot', globalBounds: false, hardcoded: false },
];

export const ID = {
  COMPONENT_REGISTRY: 0x8000,
  SUPER_ADMIN_LIST: 0x8001,
  ADMIN_LIST: 0x8002,
  GROUP_MEMBERSHIP: 0x8003,
  GROUP_NAME: 0x8004,
  GROUP_DESCRIPTION: 0x8005,
  GROUP_IMAGE_URL: 0x8006,
  MESSAGE_DISAPPEAR_FROM_NS: 0x8007,
  MESSAGE_DISAPPEAR_IN_NS: 0x8008,
  APP_DATA: 0x8009,
  MIN_SUPPORTED_PROTOCOL_VERSION: 0x800a,
  COMMIT_LOG_SIGNER: 0x800b,
  USER_DISPLAY_NAME: 0x800c,
  GROUP_IMAGE: 0x800d,
  CONVERSATION_TYPE: 0xbfff,
  CREATOR_INBOX_ID: 0xbffe,
  DM_MEMBERS: 0xbffd,
  ONESHOT_MESSAGE: 0xbffc,
} as const;

export const ConversationType = {
  UNSPECIFIED: 0,
  GROUP: 1,
  DM: 2,
  SYNC: 3,
  ONESHOT: 4,
} as const;

/** META-068. */
export const GLOBAL_VALUE_LIMIT_BYTES = 8192;
export const GLOBAL_SNAPSHOT_LIMIT_BYTES = 65536;

const BY_ID = new Map(WELL_KNOWN_COMPONENTS.map((c) => [c.id, c]));
const BY_NAME = new Map(WELL_KNOWN_COMPONENTS.map((c) => [c.name, c]));

export function wellKnown(id: number): WellKnownComponent | undefined {
  return BY_ID.get(id);
}

export function wellKnownByName(name: string): WellKnownComponent | undefined {
  return BY_NAME.get(name);
}

/** What a component's type tag means for its encoding. */
export type TypeLayout =
  | { readonly kind: 'scalar'; readonly stringValue: boolean }
  | { readonly kind: 'collection'; readonly shape: CollectionShape; readonly stringValues: boolean };

export const TYPE_LAYOUTS: Readonly<Record<number, TypeLayout>> = {
  [ComponentType.BYTES]: { kind: 'scalar', stringValue: false },
  [ComponentType.STRING]: { kind: 'scalar', stringValue: true },
  [ComponentType.TLS_MAP_BYTES_BYTES]: { kind: 'collection', shape: SHAPES.mapBytesBytes, stringValues: false },
  [ComponentType.TLS_MAP_INBOX_ID_BYTES]: { kind: 'collection', shape: SHAPES.mapInboxBytes, stringValues: false },
  [ComponentType.TLS_SET_BYTES]: { kind: 'collection', shape: SHAPES.setBytes, stringValues: false },
  [ComponentType.TLS_SET_INBOX_ID]: { kind: 'collection', shape: SHAPES.setInbox, stringValues: false },
  [ComponentType.TLS_MAP_INBOX_ID_STRING]: { kind: 'collection', shape: SHAPES.mapInboxBytes, stringValues: true },
};

/** Everything needed to decode, validate and bound one component's value. */
export interface ComponentDefinition {
  readonly id: number;
  readonly name?: string;
  /** The ComponentType tag that selects the encoding. */
  readonly typeTag: number;
  readonly layout: TypeLayout;
  /** The registry's own map encoding (component-id keys). */
  readonly registry: boolean;
  readonly immutable: boolean;
  readonly maxBytes?: number;
  readonly exactBytes?: number;
  readonly check: ValueCheck;
  readonly globalBounds: boolean;
  readonly wellKnown?: WellKnownComponent;
}

/**
 * The definition of a well-known id from the table; of any other id from its registry type (PERM-014), or
 * `undefined` when that type is unknown or unspecified (META-010 rejects the write).
 */
export function definitionFor(id: number, registryType: number | undefined): ComponentDefinition | undefined {
  const known = BY_ID.get(id);
  if (known) {
    const tag = ComponentType[known.type];
    const layout = known.id === ID.COMPONENT_REGISTRY ? ({ kind: 'collection', shape: SHAPES.registry, stringValues: false } as const) : TYPE_LAYOUTS[tag];
    return {
      id,
      name: known.name,
      typeTag: tag,
      layout,
      registry: known.id === ID.COMPONENT_REGISTRY,
      immutable: known.mutability === 'immutable',
      maxBytes: known.maxBytes,
      exactBytes: known.exactBytes,
      check: known.check,
      globalBounds: known.globalBounds,
      wellKnown: known,
    };
  }
  const layout = registryType === undefined ? undefined : TYPE_LAYOUTS[registryType];
  if (!layout || registryType === undefined) return undefined;
  return {
    id,
    typeTag: registryType,
    layout,
    registry: false,
    immutable: isImmutable(id),
    check: 'none',
    // Application components are bounded by META-068; an id of the well-known range this client has no table
    // row for is bounded the same way, so a newer writer cannot grow it without limit.
    globalBounds: true,
  };
}
