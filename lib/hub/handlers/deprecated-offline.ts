/**
 * `offline.batch` / `offline.done` (guide §11.3): deprecated, never emitted by a current hub; a conformant client
 * implements none of the offline handshake. Received anyway, they are tolerated and reported as frames only.
 */
import type { FrameContext } from './context';

export function handleDeprecatedOffline(_ctx: FrameContext): void {
  // Deliberately nothing: implementing offline.ack would be the deprecated protocol.
}
