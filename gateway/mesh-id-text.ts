/**
 * The text of a mesh id (lowercase hyphenated, as `MessageId.toString()` spells it) as one flat string.
 *
 * `toString()` builds its 36 characters by appending to a string, which V8 keeps as a rope of about 20 small
 * strings: some 750 bytes of heap instead of about 70. The gateway keeps ids for a long time (the delivery
 * deduplicator holds `mesh.dedup_max_entries` of them for an hour, the outbox one per waiting message), so it spells
 * them itself, once per frame, straight into a buffer that becomes a flat string.
 */
import type { MessageIdLike } from '../lib/mesh/message';

const HEX = '0123456789abcdef';
const HYPHEN = 0x2d;

export function idText(id: MessageIdLike): string {
  const b = id.bytes;
  const out = Buffer.allocUnsafe(36);
  let at = 0;
  for (let i = 0; i < 16; i++) {
    if (i === 4 || i === 6 || i === 8 || i === 10) out[at++] = HYPHEN;
    out[at++] = HEX.charCodeAt(b[i]! >> 4);
    out[at++] = HEX.charCodeAt(b[i]! & 15);
  }
  return out.toString('latin1', 0, 36);
}
