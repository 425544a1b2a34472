/**
 * Disappearing messages (META-050, META-051, META-052, META-063).
 *
 * Settings are read from the dictionary; an expiry is assigned once, when a published application message is
 * first stored, from the backend's `sent_at_ns` (never the processing time) with checked signed 64-bit addition
 * clamped at INT64_MAX. The stored expiry, not the current settings, decides visibility and cleanup afterwards,
 * which is how a later settings change leaves earlier messages alone.
 */
import { type AppDataUpdate } from './app-data-update';
import { type DictionaryInput, toDictionary } from './dictionary';
import { checkInt64, INT64_MAX, int64Bytes, readInt64 } from './int64';
import { describeFields, type FieldCatalogue, resolveField } from './fields';
import { type InboxIdInput, parseInboxId } from './inbox-id';
import { checkPolicy, finishWrites, type PreparedWrite } from './write';
import { ID } from './well-known';

export interface DisappearingSettings {
  readonly fromNs?: bigint;
  readonly inNs?: bigint;
  /** Both present and greater than 0 (META-052). */
  readonly enabled: boolean;
}

export function readDisappearingSettings(dictionary: DictionaryInput): DisappearingSettings {
  const dict = toDictionary(dictionary);
  const read = (id: number): bigint | undefined => {
    const raw = dict.get(id);
    return raw !== undefined && raw.length === 8 ? readInt64(raw) : undefined;
  };
  const fromNs = read(ID.MESSAGE_DISAPPEAR_FROM_NS);
  const inNs = read(ID.MESSAGE_DISAPPEAR_IN_NS);
  const out: { fromNs?: bigint; inNs?: bigint; enabled: boolean } = { enabled: fromNs !== undefined && inNs !== undefined && fromNs > 0n && inNs > 0n };
  if (fromNs !== undefined) out.fromNs = fromNs;
  if (inNs !== undefined) out.inNs = inNs;
  return out;
}

/**
 * Proposals that set both settings, or clear both when `settings` is `null` (a clear removes what is present and
 * returns `[]` when neither is).
 */
export function prepareDisappearingSettings(
  dictionary: DictionaryInput,
  actor: InboxIdInput,
  settings: { readonly fromNs: bigint; readonly inNs: bigint } | null,
  options: { catalogue?: FieldCatalogue; external?: boolean } = {},
): PreparedWrite[] {
  const dict = toDictionary(dictionary);
  const me = parseInboxId(actor, 'actor');
  const fields = describeFields(dict, options.catalogue);
  const external = options.external === true;
  const proposals: AppDataUpdate[] = [];
  for (const [id, value] of [
    [ID.MESSAGE_DISAPPEAR_FROM_NS, settings?.fromNs],
    [ID.MESSAGE_DISAPPEAR_IN_NS, settings?.inNs],
  ] as const) {
    const field = resolveField(fields, id);
    const present = dict.has(id);
    if (settings === null) {
      if (!present) continue;
      checkPolicy(dict, field, 'delete', me, external);
      proposals.push({ componentId: id, op: 'remove' });
    } else {
      checkPolicy(dict, field, present ? 'update' : 'insert', me, external);
      proposals.push({ componentId: id, op: 'update', update: int64Bytes(value as bigint, field.ref.name) });
    }
  }
  if (proposals.length === 0) return [];
  return finishWrites(dict, proposals, me, external);
}

export type StoredMessageKind = 'application' | 'membership-change';

/**
 * META-050: the expiry of a published message at its first store, or `undefined` when it gets none.
 * `sentAtNs` must be a signed 64-bit value; the sum is clamped to INT64_MAX.
 */
export function computeExpiry(settings: DisappearingSettings, sentAtNs: bigint, kind: StoredMessageKind): bigint | undefined {
  checkInt64(sentAtNs, 'sent_at_ns');
  if (kind !== 'application') return undefined;
  const { fromNs, inNs } = settings;
  if (fromNs === undefined || inNs === undefined || fromNs <= 0n || inNs <= 0n) return undefined;
  if (sentAtNs < fromNs) return undefined;
  const sum = sentAtNs + inNs;
  return sum > INT64_MAX ? INT64_MAX : sum;
}

/** META-051: expired once the expiry is not later than now. */
export function isExpired(expiryNs: bigint | undefined | null, nowNs: bigint): boolean {
  return expiryNs !== undefined && expiryNs !== null && expiryNs <= nowNs;
}

export interface ExpiringMessage {
  readonly kind: StoredMessageKind;
  readonly expiryNs?: bigint | null;
}

/** META-051: what history queries, id lookups and new stream deliveries may show. */
export function visibleMessages<T extends ExpiringMessage>(messages: readonly T[], nowNs: bigint): T[] {
  return messages.filter((m) => !isExpired(m.expiryNs, nowNs));
}

/** META-063: the application messages a cleanup pass that began at `passStartNs` must delete. */
export function messagesToDelete<T extends ExpiringMessage>(messages: readonly T[], passStartNs: bigint): T[] {
  return messages.filter((m) => m.kind === 'application' && isExpired(m.expiryNs, passStartNs));
}
