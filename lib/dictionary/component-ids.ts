/**
 * The component key space (group-metadata-dictionary.md §1) as data, and the questions asked of an id.
 */

export type ComponentRange =
  | 'outside'
  | 'well-known-mutable'
  | 'well-known-immutable'
  | 'application-mutable'
  | 'application-immutable'
  | 'reserved';

export interface ComponentRangeSpec {
  readonly from: number;
  readonly to: number;
  readonly range: ComponentRange;
}

export const COMPONENT_RANGES: readonly ComponentRangeSpec[] = [
  { from: 0x0000, to: 0x7fff, range: 'outside' },
  { from: 0x8000, to: 0xbdff, range: 'well-known-mutable' },
  { from: 0xbe00, to: 0xbfff, range: 'well-known-immutable' },
  { from: 0xc000, to: 0xfcff, range: 'application-mutable' },
  { from: 0xfd00, to: 0xfeff, range: 'application-immutable' },
  { from: 0xff00, to: 0xffff, range: 'reserved' },
];

/** The MLS extension and proposal types the dictionary needs (META-002). */
export const APP_DATA_DICTIONARY_EXTENSION_TYPE = 0x0006;
export const APP_DATA_UPDATE_PROPOSAL_TYPE = 0x0008;

export function componentRange(id: number): ComponentRange {
  for (const r of COMPONENT_RANGES) if (id >= r.from && id <= r.to) return r.range;
  return 'outside';
}

export function isReserved(id: number): boolean {
  return id >= 0xff00 && id <= 0xffff;
}

export function isInComponentSpace(id: number): boolean {
  return id >= 0x8000 && id <= 0xfeff;
}

export function isImmutable(id: number): boolean {
  return (id >= 0xbe00 && id <= 0xbfff) || (id >= 0xfd00 && id <= 0xfeff);
}

export function isApplicationId(id: number): boolean {
  return id >= 0xc000 && id <= 0xfeff;
}

export function isWellKnownRange(id: number): boolean {
  return id >= 0x8000 && id <= 0xbfff;
}

/** `0x8004` style, the form docs and JSON use. */
export function formatComponentId(id: number): string {
  return `0x${id.toString(16).toUpperCase().padStart(4, '0')}`;
}
