/**
 * The JSON forms the node and the CLI speak: a dictionary as bytes, hex, or `{components:[{id,name,hex}]}`;
 * proposals as bytes, hex, or `{component_id, op, hex}`; byte values as `{hex}` or `{base64}`; typed field values
 * with strings kept as strings. Parsing is strict (canonical hex/base64, one value per component) and fails with
 * `INVALID_ARGUMENT`; bytes that parse but do not decode fail with the decoder's own code.
 */
import { fromBase64Canonical, fromHex, toBase64, toHex } from '../bytes';
import { type AppDataUpdate } from './app-data-update';
import { type FieldDefinition } from './catalogue';
import { type ComponentPermissions, ComponentType } from './component-metadata';
import { formatComponentId } from './component-ids';
import { decodeDictionary, type Dictionary, encodeDictionary } from './dictionary';
import { DictionaryError } from './errors';
import { type FieldValue, type Scalar } from './field-values';
import { type FieldDescription, type FieldRef } from './fields';
import { type PolicyJson, policyFromJson, policyToJson } from './policy';
import { wellKnown, wellKnownByName } from './well-known';

export function invalid(where: string, message: string): DictionaryError {
  return new DictionaryError('INVALID_ARGUMENT', `${where}: ${message}`);
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Uint8Array);
}

/** Bytes given as a Uint8Array/Buffer, `{hex}` or `{base64}`; a plain string only when `hexStrings` allows. */
export function bytesInput(value: unknown, where: string, hexStrings = false): Uint8Array {
  if (value instanceof Uint8Array) return value;
  if (typeof value === 'string' && hexStrings) {
    const b = fromHex(value);
    if (!b) throw invalid(where, 'expected even-length hex');
    return b;
  }
  if (isRecord(value)) {
    const keys = Object.keys(value).filter((k) => k === 'hex' || k === 'base64');
    if (keys.length === 1) {
      const text = value[keys[0]];
      const b = typeof text === 'string' ? (keys[0] === 'hex' ? fromHex(text) : fromBase64Canonical(text)) : undefined;
      if (!b) throw invalid(where, `'${keys[0]}' is not canonical ${keys[0]}`);
      return b;
    }
  }
  throw invalid(where, hexStrings ? 'expected bytes, a hex string, {hex} or {base64}' : 'expected bytes, {hex} or {base64}');
}

export function componentIdInput(value: unknown, where: string): number {
  if (typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= 0xffff) return value;
  if (typeof value === 'string') {
    if (/^0x[0-9a-fA-F]{1,4}$/.test(value)) return parseInt(value.slice(2), 16);
    const known = wellKnownByName(value);
    if (known) return known.id;
  }
  throw invalid(where, 'expected a component id (0..65535, "0x8004") or a well-known name');
}

export function parseDictionaryInput(value: unknown, where = 'dictionary'): Map<number, Uint8Array> {
  if (value instanceof Uint8Array || typeof value === 'string') return decodeDictionary(bytesInput(value, where, true));
  if (isRecord(value) && Array.isArray(value.components)) {
    const out = new Map<number, Uint8Array>();
    value.components.forEach((c: unknown, i: number) => {
      if (!isRecord(c)) throw invalid(`${where}.components[${i}]`, 'expected an object');
      const id = componentIdInput(c.id, `${where}.components[${i}].id`);
      if (out.has(id)) throw invalid(`${where}.components[${i}]`, `component ${formatComponentId(id)} appears twice`);
      out.set(id, bytesInput(c, `${where}.components[${i}]`));
    });
    // Round-trip so the map is exactly what the extension bytes would decode to.
    return decodeDictionary(encodeDictionary(out));
  }
  if (isRecord(value)) return decodeDictionary(bytesInput(value, where));
  throw invalid(where, 'expected extension bytes, hex, {hex}, {base64} or {components:[…]}');
}

export interface DictionaryJson {
  readonly components: { readonly id: string; readonly name?: string; readonly hex: string }[];
}

export function dictionaryToJson(dict: Dictionary): DictionaryJson {
  const ids = [...dict.keys()].sort((a, b) => a - b);
  return {
    components: ids.map((id) => {
      const name = wellKnown(id)?.name;
      const hex = toHex(dict.get(id) as Uint8Array);
      return name ? { id: formatComponentId(id), name, hex } : { id: formatComponentId(id), hex };
    }),
  };
}

export function parseProposalInput(value: unknown, where: string): Uint8Array | AppDataUpdate {
  if (value instanceof Uint8Array || typeof value === 'string') return bytesInput(value, where, true);
  if (isRecord(value) && ('component_id' in value || 'componentId' in value)) {
    const componentId = componentIdInput(value.component_id ?? value.componentId, `${where}.component_id`);
    if (value.op === 'remove') return { componentId, op: 'remove' };
    if (value.op === 'update') return { componentId, op: 'update', update: bytesInput(value, `${where}`) };
    throw invalid(`${where}.op`, "expected 'update' or 'remove'");
  }
  if (isRecord(value)) return bytesInput(value, where);
  throw invalid(where, 'expected proposal bytes, hex, or {component_id, op, hex}');
}

export function scalarToJson(s: Scalar): unknown {
  return s.kind === 'string' ? s.value : { hex: toHex(s.value), base64: toBase64(s.value) };
}

export function fieldValueToJson(v: FieldValue): unknown {
  switch (v.kind) {
    case 'string':
    case 'bytes':
      return { type: v.kind, value: scalarToJson(v) };
    case 'map':
      return { type: 'map', entries: v.entries.map((e) => ({ key: typeof e.key === 'string' ? e.key : toHex(e.key), value: scalarToJson(e.value) })) };
    case 'set':
      return { type: 'set', keys: v.keys.map((k) => (typeof k === 'string' ? k : toHex(k))) };
    case 'unknown':
      return { type: 'unknown', hex: toHex(v.raw) };
    default:
      return { type: 'absent' };
  }
}

export function fieldRefToJson(ref: FieldRef): { id: string; name?: string } {
  return ref.name === undefined ? { id: formatComponentId(ref.id) } : { id: formatComponentId(ref.id), name: ref.name };
}

function permissionsToJson(p: ComponentPermissions): Record<string, PolicyJson> {
  const out: Record<string, PolicyJson> = {};
  if (p.insert) out.insert = policyToJson(p.insert);
  if (p.update) out.update = policyToJson(p.update);
  if (p.delete) out.delete = policyToJson(p.delete);
  return out;
}

export function fieldDescriptionToJson(f: FieldDescription): Record<string, unknown> {
  const out: Record<string, unknown> = {
    ...fieldRefToJson(f.ref),
    shape: f.shape.kind === 'unknown' ? { kind: 'unknown', type_tag: f.shape.typeTag } : f.shape,
    policies: permissionsToJson(f.policies),
    is_user_field: f.isUserField,
    well_known: f.wellKnown,
    immutable: f.immutable,
  };
  if (f.externalCommitterPolicies) out.external_committer_policies = permissionsToJson(f.externalCommitterPolicies);
  return out;
}

function permissionsInput(value: unknown, where: string): ComponentPermissions {
  if (!isRecord(value)) throw invalid(where, 'expected {insert, update, delete}');
  return {
    insert: policyFromJson(value.insert, `${where}.insert`),
    update: policyFromJson(value.update, `${where}.update`),
    delete: policyFromJson(value.delete, `${where}.delete`),
  };
}

/** A backend catalogue entry: `{id, name, component_type, permissions, external_committer_permissions?, in_groups, in_dms}`. */
export function definitionInput(value: unknown, where: string): FieldDefinition {
  if (!isRecord(value)) throw invalid(where, 'expected an object');
  const name = value.name;
  if (typeof name !== 'string' || name === '') throw invalid(`${where}.name`, 'expected a non-empty string');
  const type = value.component_type;
  const componentType =
    typeof type === 'number' && Number.isInteger(type)
      ? type
      : typeof type === 'string'
        ? ((ComponentType as Record<string, number>)[type.replace(/^COMPONENT_TYPE_/, '')] ?? -1)
        : -1;
  if (componentType < 0) throw invalid(`${where}.component_type`, 'expected a ComponentType number or name');
  const def: FieldDefinition = {
    id: componentIdInput(value.id, `${where}.id`),
    name,
    componentType,
    permissions: permissionsInput(value.permissions, `${where}.permissions`),
    ...(value.external_committer_permissions === undefined
      ? {}
      : { externalCommitterPermissions: permissionsInput(value.external_committer_permissions, `${where}.external_committer_permissions`) }),
    inGroups: value.in_groups === true,
    inDms: value.in_dms === true,
  };
  return def;
}
