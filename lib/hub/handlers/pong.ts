/**
 * `pong` (guide §12): the answer to our optional JSON `ping`. Any frame already proves the socket alive (the read
 * layer records its time), so there is nothing more to do; the server never pings, so there is no ping handler.
 */
import type { FrameContext } from './context';

export function handlePong(_ctx: FrameContext): void {
  // Liveness is recorded for every frame at the read layer.
}
