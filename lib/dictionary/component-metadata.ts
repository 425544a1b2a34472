/**
 * ComponentMetadata, ComponentPermissions and MetadataPolicy (XMTP proto/mls/message_contents), decoded for
 * validation and authorization only: the registry keeps every entry's raw bytes, unknown fields included
 * (META-016), so nothing here is ever re-encoded in place of stored bytes.
 */
import { expectWire, joinOccurrences, ProtoReader, protobufError, PROTOBUF_MAX_DEPTH, ProtoWriter, WIRE_LEN, WIRE_VARINT } from './protobuf';

export const ComponentType = {
  UNSPECIFIED: 0,
  BYTES: 1,
  STRING: 2,
  TLS_MAP_BYTES_BYTES: 3,
  TLS_MAP_INBOX_ID_BYTES: 4,
  TLS_SET_BYTES: 5,
  TLS_SET_INBOX_ID: 6,
  TLS_MAP_INBOX_ID_STRING: 7,
} as const;

export type ComponentTypeName = keyof typeof ComponentType;

export const COMPONENT_TYPE_NAMES: Readonly<Record<number, ComponentTypeName>> = Object.fromEntries(
  Object.entries(ComponentType).map(([name, value]) => [value, name as ComponentTypeName]),
);

export const BasePolicy = {
  UNSPECIFIED: 0,
  ALLOW: 1,
  DENY: 2,
  ALLOW_IF_ADMIN: 3,
  ALLOW_IF_SUPER_ADMIN: 4,
} as const;

export type BasePolicyName = keyof typeof BasePolicy;

export const BASE_POLICY_NAMES: Readonly<Record<number, BasePolicyName>> = Object.fromEntries(
  Object.entries(BasePolicy).map(([name, value]) => [value, name as BasePolicyName]),
);

export type MetadataPolicy =
  | { readonly kind: 'base'; readonly base: number }
  | { readonly kind: 'and'; readonly policies: readonly MetadataPolicy[] }
  | { readonly kind: 'any'; readonly policies: readonly MetadataPolicy[] }
  /** A MetadataPolicy message with no `kind` set. */
  | { readonly kind: 'none' };

export interface ComponentPermissions {
  readonly insert?: MetadataPolicy;
  readonly update?: MetadataPolicy;
  readonly delete?: MetadataPolicy;
}

export interface ComponentMetadata {
  /** The raw enum value; unknown values are kept (proto3 enums are open). */
  readonly componentType: number;
  readonly permissions?: ComponentPermissions;
  /** Absent means external committers may do nothing (all-Deny). */
  readonly externalCommitterPermissions?: ComponentPermissions;
}

export function decodeComponentMetadata(bytes: Uint8Array, context = 'registry entry'): ComponentMetadata {
  const r = new ProtoReader(bytes, context);
  let componentType = 0;
  const perms: Uint8Array[] = [];
  const external: Uint8Array[] = [];
  for (let tag = r.tag(); tag; tag = r.tag()) {
    if (tag.field === 1) {
      expectWire(r, tag, WIRE_VARINT, 'component_type');
      componentType = r.int32();
    } else if (tag.field === 2) {
      expectWire(r, tag, WIRE_LEN, 'permissions');
      perms.push(r.lengthDelimited());
    } else if (tag.field === 3) {
      expectWire(r, tag, WIRE_LEN, 'external_committer_permissions');
      external.push(r.lengthDelimited());
    } else r.skip(tag, 1);
  }
  const out: { componentType: number; permissions?: ComponentPermissions; externalCommitterPermissions?: ComponentPermissions } = {
    componentType,
  };
  if (perms.length > 0) out.permissions = decodePermissions(joinOccurrences(perms), context, 2);
  if (external.length > 0) out.externalCommitterPermissions = decodePermissions(joinOccurrences(external), context, 2);
  return out;
}

function decodePermissions(bytes: Uint8Array, context: string, depth: number): ComponentPermissions {
  const r = new ProtoReader(bytes, context);
  const parts: [Uint8Array[], Uint8Array[], Uint8Array[]] = [[], [], []];
  for (let tag = r.tag(); tag; tag = r.tag()) {
    if (tag.field >= 1 && tag.field <= 3) {
      expectWire(r, tag, WIRE_LEN, ['insert_policy', 'update_policy', 'delete_policy'][tag.field - 1]);
      parts[tag.field - 1].push(r.lengthDelimited());
    } else r.skip(tag, depth);
  }
  const out: { insert?: MetadataPolicy; update?: MetadataPolicy; delete?: MetadataPolicy } = {};
  if (parts[0].length > 0) out.insert = decodePolicy(joinOccurrences(parts[0]), context, depth + 1);
  if (parts[1].length > 0) out.update = decodePolicy(joinOccurrences(parts[1]), context, depth + 1);
  if (parts[2].length > 0) out.delete = decodePolicy(joinOccurrences(parts[2]), context, depth + 1);
  return out;
}

/** A oneof: a later member replaces an earlier one; a repeated message member merges. */
export function decodePolicy(bytes: Uint8Array, context: string, depth = 1): MetadataPolicy {
  if (depth > PROTOBUF_MAX_DEPTH) throw protobufError(context, 'policy nested too deeply');
  const r = new ProtoReader(bytes, context);
  let kind: 'none' | 'base' | 'and' | 'any' = 'none';
  let base = 0;
  let parts: Uint8Array[] = [];
  for (let tag = r.tag(); tag; tag = r.tag()) {
    if (tag.field === 1) {
      expectWire(r, tag, WIRE_VARINT, 'base');
      kind = 'base';
      base = r.int32();
    } else if (tag.field === 2 || tag.field === 3) {
      expectWire(r, tag, WIRE_LEN, tag.field === 2 ? 'and_condition' : 'any_condition');
      const next = tag.field === 2 ? 'and' : 'any';
      if (kind !== next) parts = [];
      kind = next;
      parts.push(r.lengthDelimited());
    } else r.skip(tag, depth);
  }
  if (kind === 'base') return { kind, base };
  if (kind === 'none') return { kind };
  return { kind, policies: decodeCondition(joinOccurrences(parts), context, depth + 1) };
}

function decodeCondition(bytes: Uint8Array, context: string, depth: number): MetadataPolicy[] {
  if (depth > PROTOBUF_MAX_DEPTH) throw protobufError(context, 'policy nested too deeply');
  const r = new ProtoReader(bytes, context);
  const out: MetadataPolicy[] = [];
  for (let tag = r.tag(); tag; tag = r.tag()) {
    if (tag.field === 1) {
      expectWire(r, tag, WIRE_LEN, 'policies');
      out.push(decodePolicy(r.lengthDelimited(), context, depth + 1));
    } else r.skip(tag, depth);
  }
  return out;
}

export function encodePolicy(policy: MetadataPolicy): Uint8Array {
  const w = new ProtoWriter();
  if (policy.kind === 'base') w.varintField(1, policy.base);
  else if (policy.kind === 'and' || policy.kind === 'any') {
    const cond = new ProtoWriter();
    for (const p of policy.policies) cond.bytesField(1, encodePolicy(p));
    w.bytesField(policy.kind === 'and' ? 2 : 3, cond.finish());
  }
  return w.finish();
}

function encodePermissions(p: ComponentPermissions): Uint8Array {
  const w = new ProtoWriter();
  if (p.insert) w.bytesField(1, encodePolicy(p.insert));
  if (p.update) w.bytesField(2, encodePolicy(p.update));
  if (p.delete) w.bytesField(3, encodePolicy(p.delete));
  return w.finish();
}

/** The entry bytes a creator or registrar writes (fields in number order, as protobuf encoders emit them). */
export function encodeComponentMetadata(meta: ComponentMetadata): Uint8Array {
  const w = new ProtoWriter();
  if (meta.componentType !== 0) w.varintField(1, meta.componentType);
  if (meta.permissions) w.bytesField(2, encodePermissions(meta.permissions));
  if (meta.externalCommitterPermissions) w.bytesField(3, encodePermissions(meta.externalCommitterPermissions));
  return w.finish();
}

export function base(name: BasePolicyName): MetadataPolicy {
  return { kind: 'base', base: BasePolicy[name] };
}

export function allThree(policy: MetadataPolicy): ComponentPermissions {
  return { insert: policy, update: policy, delete: policy };
}
