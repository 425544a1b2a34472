/**
 * GroupUpdated.MetadataFieldChange records (META-040): one per table component whose bytes the commit changed,
 * by stable field name, with `oldValue` absent when the component was absent and `newValue` absent when removed.
 */
import { bytesEqual, toHex, utf8DecodeExact } from '../bytes';
import { type Dictionary } from './dictionary';
import { readInt64 } from './int64';
import { type ChangeForm, WELL_KNOWN_COMPONENTS } from './well-known';

export interface MetadataFieldChange {
  readonly fieldName: string;
  readonly oldValue?: string;
  readonly newValue?: string;
}

const RECORDED = WELL_KNOWN_COMPONENTS.filter((c) => c.fieldName !== undefined);

export function metadataFieldChanges(before: Dictionary, after: Dictionary): MetadataFieldChange[] {
  const out: MetadataFieldChange[] = [];
  for (const c of RECORDED) {
    const a = before.get(c.id);
    const b = after.get(c.id);
    if (a === b || (a !== undefined && b !== undefined && bytesEqual(a, b))) continue;
    if (a === undefined && b === undefined) continue;
    const change: { fieldName: string; oldValue?: string; newValue?: string } = { fieldName: c.fieldName as string };
    if (a !== undefined) change.oldValue = renderChangeValue(a, c.changeForm as ChangeForm);
    if (b !== undefined) change.newValue = renderChangeValue(b, c.changeForm as ChangeForm);
    out.push(change);
  }
  return out;
}

export function renderChangeValue(bytes: Uint8Array, form: ChangeForm): string {
  switch (form) {
    case 'string':
      // A stored value that is not UTF-8 can only predate validation; show it rather than drop the record.
      return utf8DecodeExact(bytes) ?? Buffer.from(bytes).toString('utf8');
    case 'int64-decimal':
      return bytes.length === 8 ? readInt64(bytes).toString(10) : toHex(bytes);
    default:
      return toHex(bytes);
  }
}
