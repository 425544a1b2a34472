/**
 * The two XMTP protobufs component values carry besides ComponentMetadata: GroupMembershipEntry (the values of
 * GROUP_MEMBERSHIP, GMOD-005) and OneshotMessage (ONESHOT_MESSAGE, FORK section 6). They are decoded to check
 * their structure only; unknown fields and unknown oneof members are accepted so a newer writer's additions pass.
 */
import { expectWire, joinOccurrences, ProtoReader, ProtoWriter, WIRE_LEN, WIRE_VARINT } from './protobuf';

export interface GroupMembershipEntry {
  /** `undefined` when the entry carries no V1 (a version this client does not know). */
  readonly v1?: { readonly sequenceId: bigint; readonly failedInstallations: readonly Uint8Array[] };
}

export function decodeMembershipEntry(bytes: Uint8Array, context = 'GroupMembershipEntry', start = 0, end = bytes.length): GroupMembershipEntry {
  const r = new ProtoReader(bytes, context, start, end);
  const v1Parts: Uint8Array[] = [];
  for (let tag = r.tag(); tag; tag = r.tag()) {
    if (tag.field === 1) {
      expectWire(r, tag, WIRE_LEN, 'v1');
      v1Parts.push(r.lengthDelimited());
    } else r.skip(tag, 1);
  }
  if (v1Parts.length === 0) return {};
  const v = new ProtoReader(joinOccurrences(v1Parts), context);
  let sequenceId = 0n;
  const failedInstallations: Uint8Array[] = [];
  for (let tag = v.tag(); tag; tag = v.tag()) {
    if (tag.field === 1) {
      expectWire(v, tag, WIRE_VARINT, 'sequence_id');
      sequenceId = v.uint64();
    } else if (tag.field === 2) {
      expectWire(v, tag, WIRE_LEN, 'failed_installations');
      failedInstallations.push(v.lengthDelimited());
    } else v.skip(tag, 2);
  }
  return { v1: { sequenceId, failedInstallations } };
}

export function encodeMembershipEntry(sequenceId: bigint, failedInstallations: readonly Uint8Array[] = []): Uint8Array {
  const v1 = new ProtoWriter();
  if (sequenceId !== 0n) v1.varintField(1, sequenceId);
  for (const f of failedInstallations) v1.bytesField(2, f);
  return new ProtoWriter().bytesField(1, v1.finish()).finish();
}

export interface OneshotMessage {
  readonly readdRequest?: { readonly groupId: Uint8Array; readonly latestCommitSequenceId: bigint };
}

export function decodeOneshotMessage(bytes: Uint8Array, context = 'OneshotMessage'): OneshotMessage {
  const r = new ProtoReader(bytes, context);
  const parts: Uint8Array[] = [];
  for (let tag = r.tag(); tag; tag = r.tag()) {
    if (tag.field === 1) {
      expectWire(r, tag, WIRE_LEN, 'readd_request');
      parts.push(r.lengthDelimited());
    } else r.skip(tag, 1);
  }
  if (parts.length === 0) return {};
  const q = new ProtoReader(joinOccurrences(parts), context);
  let groupId: Uint8Array = new Uint8Array(0);
  let latestCommitSequenceId = 0n;
  for (let tag = q.tag(); tag; tag = q.tag()) {
    if (tag.field === 1) {
      expectWire(q, tag, WIRE_LEN, 'group_id');
      groupId = q.lengthDelimited();
    } else if (tag.field === 2) {
      expectWire(q, tag, WIRE_VARINT, 'latest_commit_sequence_id');
      latestCommitSequenceId = q.uint64();
    } else q.skip(tag, 2);
  }
  return { readdRequest: { groupId, latestCommitSequenceId } };
}

export function encodeOneshotMessage(groupId: Uint8Array, latestCommitSequenceId: bigint): Uint8Array {
  const q = new ProtoWriter();
  if (groupId.length > 0) q.bytesField(1, groupId);
  if (latestCommitSequenceId !== 0n) q.varintField(2, latestCommitSequenceId);
  return new ProtoWriter().bytesField(1, q.finish()).finish();
}
