/**
 * The AppDataDictionary extension (draft-ietf-mls-extensions §4.6, extension type 0x0006, as XMTP uses it with a
 * 16-bit component id): `struct { uint16 component_id; opaque data<V>; } ComponentData;`
 * `struct { ComponentData component_data<V>; } AppDataDictionary;`, entries sorted by id, one per id.
 *
 * A decoded dictionary maps each id to a zero-copy view of its value bytes; encoding copies those bytes as they
 * are, which is what keeps every untouched component byte-identical (META-017).
 */
import { ByteReader } from './byte-reader';
import { ByteWriter, mlsVarintSize } from './byte-writer';
import { DictionaryError } from './errors';

export type Dictionary = ReadonlyMap<number, Uint8Array>;

export function decodeDictionary(bytes: Uint8Array, context = 'dictionary'): Map<number, Uint8Array> {
  const r = new ByteReader(bytes, context);
  const body = r.vVector('component_data');
  r.expectEnd('component_data');
  const out = new Map<number, Uint8Array>();
  let prev = -1;
  while (!body.atEnd()) {
    const id = body.u16('component id');
    if (id <= prev) {
      throw new DictionaryError(
        'DICTIONARY_NOT_CANONICAL',
        `${context}: component 0x${id.toString(16).padStart(4, '0')} ${id === prev ? 'appears twice' : 'is out of order'}`,
        { componentId: id },
      );
    }
    out.set(id, body.vBytes(`component 0x${id.toString(16).padStart(4, '0')} data`));
    prev = id;
  }
  return out;
}

export function encodeDictionary(dictionary: Dictionary): Uint8Array {
  const ids = [...dictionary.keys()].sort((a, b) => a - b);
  let body = 0;
  for (const id of ids) {
    if (!Number.isInteger(id) || id < 0 || id > 0xffff) throw new DictionaryError('INVALID_ARGUMENT', `component id ${id} is not a uint16`);
    const data = dictionary.get(id) as Uint8Array;
    body += 2 + mlsVarintSize(data.length) + data.length;
  }
  const w = new ByteWriter(mlsVarintSize(body) + body);
  w.mlsVarint(body);
  for (const id of ids) w.u16(id).vBytes(dictionary.get(id) as Uint8Array);
  return w.finish();
}

/** Bytes or an already decoded map. */
export type DictionaryInput = Uint8Array | Dictionary;

export function toDictionary(input: DictionaryInput): Dictionary {
  return input instanceof Uint8Array ? decodeDictionary(input) : input;
}
