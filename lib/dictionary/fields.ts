/**
 * What an app is told about a group's metadata fields (META-069): every application-range registry entry that
 * decodes with all three member policies, plus the listed well-known fields whose registry entry is present and
 * decodes the same way. Shape comes from the table for a well-known id and from the registry type otherwise.
 */
import { componentIdOfKey } from './collections';
import { type ComponentPermissions, type MetadataPolicy } from './component-metadata';
import { formatComponentId, isApplicationId, isImmutable } from './component-ids';
import { type DictionaryInput, toDictionary } from './dictionary';
import { DictionaryError } from './errors';
import { GroupView } from './group-view';
import { ComponentType } from './component-metadata';
import { ID, TYPE_LAYOUTS, wellKnown, wellKnownByName } from './well-known';

export type FieldShape =
  | { readonly kind: 'bytes' }
  | { readonly kind: 'string' }
  | { readonly kind: 'map'; readonly key: 'bytes' | 'inbox_id'; readonly value: 'bytes' | 'string' }
  | { readonly kind: 'set'; readonly key: 'bytes' | 'inbox_id' }
  | { readonly kind: 'unknown'; readonly typeTag: number };

export interface FieldRef {
  readonly id: number;
  /** The well-known name, or the name of a matching backend catalogue definition. */
  readonly name?: string;
}

export interface FieldDescription {
  readonly ref: FieldRef;
  readonly policies: { readonly insert: MetadataPolicy; readonly update: MetadataPolicy; readonly delete: MetadataPolicy };
  readonly externalCommitterPolicies?: ComponentPermissions;
  readonly shape: FieldShape;
  readonly isUserField: boolean;
  readonly wellKnown: boolean;
  readonly immutable: boolean;
}

/** Names a backend snapshot gives application ids (only `id` and `name` are read). */
export type FieldCatalogue = readonly { readonly id: number; readonly name: string }[];

/** The well-known fields META-069 lists when present. */
export const DESCRIBED_WELL_KNOWN: readonly number[] = [
  ID.GROUP_NAME,
  ID.GROUP_DESCRIPTION,
  ID.GROUP_IMAGE_URL,
  ID.MESSAGE_DISAPPEAR_FROM_NS,
  ID.MESSAGE_DISAPPEAR_IN_NS,
  ID.APP_DATA,
  ID.USER_DISPLAY_NAME,
  ID.GROUP_IMAGE,
];

export function shapeOf(typeTag: number): FieldShape {
  const layout = TYPE_LAYOUTS[typeTag];
  if (!layout) return { kind: 'unknown', typeTag };
  if (layout.kind === 'scalar') return { kind: layout.stringValue ? 'string' : 'bytes' };
  const key = layout.shape.keyKind === 'inbox' ? 'inbox_id' : 'bytes';
  if (layout.shape.valueKind === 'empty') return { kind: 'set', key };
  return { kind: 'map', key, value: layout.stringValues ? 'string' : 'bytes' };
}

export function describeFields(dictionary: DictionaryInput, catalogue: FieldCatalogue = []): FieldDescription[] {
  const view = new GroupView(toDictionary(dictionary));
  const registry = view.registry();
  if (!registry) return [];
  const names = new Map(catalogue.map((d) => [d.id, d.name]));
  const out: FieldDescription[] = [];
  for (const entry of registry) {
    const id = componentIdOfKey(entry.key);
    const known = wellKnown(id);
    if (known ? !DESCRIBED_WELL_KNOWN.includes(id) : !isApplicationId(id)) continue;
    const meta = view.registryEntry(id)?.metadata;
    const p = meta?.permissions;
    if (!meta || !p || !p.insert || !p.update || !p.delete) continue;
    const shape = shapeOf(known ? ComponentType[known.type] : meta.componentType);
    const name = known ? known.name : names.get(id);
    const description: FieldDescription = {
      ref: name === undefined ? { id } : { id, name },
      policies: { insert: p.insert, update: p.update, delete: p.delete },
      ...(meta.externalCommitterPermissions ? { externalCommitterPolicies: meta.externalCommitterPermissions } : {}),
      shape,
      isUserField: shape.kind === 'map' && shape.key === 'inbox_id',
      wellKnown: known !== undefined,
      immutable: isImmutable(id),
    };
    out.push(description);
  }
  return out;
}

/** By name: a well-known field wins over an application field of the same name; `undefined` when none. */
export function findField(fields: readonly FieldDescription[], name: string): FieldDescription | undefined {
  return fields.find((f) => f.wellKnown && f.ref.name === name) ?? fields.find((f) => !f.wellKnown && f.ref.name === name);
}

/** A field ref as callers give it: an id number, `0xC001`, a well-known or catalogue name, or a FieldRef. */
export type FieldRefInput = number | string | FieldRef;

export function resolveField(fields: readonly FieldDescription[], ref: FieldRefInput): FieldDescription {
  let found: FieldDescription | undefined;
  let label: string;
  if (typeof ref === 'number') {
    found = fields.find((f) => f.ref.id === ref);
    label = formatComponentId(ref);
  } else if (typeof ref === 'string') {
    const asId = /^0x[0-9a-fA-F]{1,4}$/.test(ref) ? parseInt(ref.slice(2), 16) : undefined;
    found = asId !== undefined ? fields.find((f) => f.ref.id === asId) : findField(fields, ref);
    label = ref;
  } else {
    found = fields.find((f) => f.ref.id === ref.id);
    label = ref.name ?? formatComponentId(ref.id);
  }
  if (!found) {
    const known = typeof ref === 'string' ? wellKnownByName(ref) : undefined;
    throw new DictionaryError(
      'FIELD_NOT_FOUND',
      `field ${label} is not listed for this group${known ? ' (its registry entry is absent or unusable)' : ''}`,
      { field: label },
    );
  }
  return found;
}
