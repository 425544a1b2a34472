/** A control frame to sign in tests: a fresh id, hop 0, a fixed timestamp, `extra` over the rest. */
import { createMessage, type MeshMessage } from '../../../../lib/mesh/message';
import { MessageId } from '../../../../lib/mesh/message-id';

export function controlMessage(sender: string, content = '__CONN_REQ__{"hello":1}', extra: Partial<MeshMessage> = {}): MeshMessage {
  return {
    ...createMessage({
      id: MessageId.random(),
      sender,
      recipient: 'off1qyqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqn8antf',
      app_id: 'app',
      priority: 'medium',
      ttl: 8,
      hop_count: 0,
      timestamp: 1700000000000n,
      content,
    }),
    ...extra,
  };
}
