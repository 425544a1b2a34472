/**
 * The platform's own signals, produced here on behalf of the services the guide leaves out (§9.3–9.5):
 * `notify.signal` is reliable (coalesced into the recipient's inbox under `notify:{type}:{entity_id}`, the delivery pump
 * applies the capability rules); `chat.metadata.invalidated` and `permission.*` are ephemeral and capability-gated.
 */
import type { HubContext } from './context';
import { PROTOCOL_VERSION } from './envelope';
import type {
  ChatMetadataInvalidatedInput,
  NotifySignalInput,
  NotifySignalPayload,
  PermissionRequestInput,
  PermissionResolvedInput,
  SignalResult,
} from './types';

export function produceNotifySignal(ctx: HubContext, input: NotifySignalInput): NotifySignalPayload {
  const now = ctx.now();
  const payload: NotifySignalPayload = {
    type: input.type,
    entity_id: input.entity_id,
    version: input.version ?? now,
    event_id: input.event_id ?? `ntf_${ctx.ids.ulid()}`,
    message_id: `notify:${input.type}:${input.entity_id}`,
  };
  const frame = { version: PROTOCOL_VERSION, event: 'notify.signal', trace_id: `notif-${ctx.ids.ulid()}`, emitted_at: now, payload };
  ctx.inbox.upsert(input.user_id, {
    message_id: payload.message_id,
    event: 'notify.signal',
    kind: 'notify',
    chat_id: undefined,
    origin_user_id: undefined,
    origin_device_id: undefined,
    target_device_id: undefined,
    stream_merged: false,
    frame,
    live_skip: undefined,
  });
  return payload;
}

export function produceChatMetadataInvalidated(ctx: HubContext, input: ChatMetadataInvalidatedInput): SignalResult {
  const now = ctx.now();
  const chat = ctx.directory.chat(input.chat_id);
  const recipients = input.recipients ?? (chat ? [...chat.members] : []);
  const payload: Record<string, unknown> = { version: input.version ?? now, updated_at: input.updated_at ?? now };
  if (input.scope !== undefined) payload.scope = input.scope;
  const text = JSON.stringify({
    version: PROTOCOL_VERSION,
    event: 'chat.metadata.invalidated',
    trace_id: `signal-${ctx.ids.ulid()}`,
    emitted_at: now,
    chat_id: input.chat_id,
    chat_type: chat?.type ?? (recipients.length > 2 ? 'group' : 'direct'),
    payload: { scope: payload.scope, version: payload.version, updated_at: payload.updated_at },
  });
  return { delivered: sendToUsers(ctx, recipients, 'chat_meta_events', text) };
}

export function producePermissionRequest(ctx: HubContext, input: PermissionRequestInput): SignalResult & { request_id: string } {
  const requestId = input.request_id ?? `req_${ctx.ids.ulid()}`;
  const payload: Record<string, unknown> = { request_id: requestId };
  if (input.agent_id !== undefined) payload.agent_id = input.agent_id;
  if (input.operation !== undefined) payload.operation = input.operation;
  if (input.target !== undefined) payload.target = input.target;
  if (input.expires_at !== undefined) payload.expires_at = input.expires_at;
  const text = permissionFrame(ctx, 'permission.request', input.chat_id, payload);
  return { delivered: sendToUsers(ctx, [input.user_id], 'permission_events', text), request_id: requestId };
}

export function producePermissionResolved(ctx: HubContext, input: PermissionResolvedInput): SignalResult {
  const payload: Record<string, unknown> = { request_id: input.request_id };
  if (input.decision !== undefined) payload.decision = input.decision;
  if (input.reason !== undefined) payload.reason = input.reason;
  const text = permissionFrame(ctx, 'permission.resolved', input.chat_id, payload);
  return { delivered: sendToUsers(ctx, [input.user_id], 'permission_events', text) };
}

function permissionFrame(ctx: HubContext, event: string, chatId: string, payload: Record<string, unknown>): string {
  return JSON.stringify({ version: PROTOCOL_VERSION, event, trace_id: `perm-${ctx.ids.ulid()}`, emitted_at: ctx.now(), chat_id: chatId, payload });
}

function sendToUsers(ctx: HubContext, users: readonly string[], capability: 'chat_meta_events' | 'permission_events', text: string): number {
  let delivered = 0;
  for (const user of new Set(users)) {
    for (const session of ctx.sessions.ofUser(user)) {
      if (session.has(capability) && session.sendEphemeral(text, ctx.settings.send_buffer_max_bytes)) delivered++;
    }
  }
  return delivered;
}
