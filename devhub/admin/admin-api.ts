/**
 * `DevHubAdmin`, the library face of the admin interface: directory edits, signal injection, faults and inspection
 * over the running hub. Every argument is checked (bad ones throw `DevHubError` code `BAD_ADMIN_REQUEST`), because the
 * HTTP face passes request bodies straight through.
 */
import type { HubContext } from '../context';
import { writeWithDseq } from '../delivery';
import { PROTOCOL_VERSION } from '../envelope';
import { DevHubError } from '../errors';
import type { MediaService } from '../media/media-service';
import { sweepAckSilence } from '../reliability-v2';
import { sweepRetention } from '../maintenance';
import type { Session } from '../session';
import {
  produceChatMetadataInvalidated,
  produceNotifySignal,
  producePermissionRequest,
  producePermissionResolved,
} from '../signals';
import type { DevHubChatConfig, DevHubUserConfig } from '../options';
import type {
  AckFaultInput,
  ChatMetadataInvalidatedInput,
  DelayAcksInput,
  DeviceInfo,
  DeviceRef,
  DevHubAdmin,
  DevHubEventMap,
  DropConnectionInput,
  DropMode,
  FailHandshakeInput,
  EchoTokenInput,
  FailMediaInput,
  FaultSnapshot,
  InboxRowInfo,
  MediaObjectInfo,
  NotifySignalInput,
  NotifySignalPayload,
  PermissionRequestInput,
  PermissionResolvedInput,
  PoisonFrameInput,
  PruneInput,
  ReceivedFrame,
  RefuseAuthInput,
  SignalResult,
  UnknownEventInput,
  WithholdReplayDoneInput,
} from '../types';

function bad(message: string): never {
  throw new DevHubError('BAD_ADMIN_REQUEST', message);
}

function object(value: unknown, what: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) bad(`${what} must be an object`);
  return value as Record<string, unknown>;
}

function str(obj: Record<string, unknown>, key: string): string {
  const value = obj[key];
  if (typeof value !== 'string' || value === '') bad(`${key} must be a non-empty string`);
  return value;
}

function optStr(obj: Record<string, unknown>, key: string): string | undefined {
  return obj[key] === undefined ? undefined : str(obj, key);
}

function int(obj: Record<string, unknown>, key: string, min = 0): number | undefined {
  const value = obj[key];
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min) bad(`${key} must be an integer >= ${min}`);
  return value;
}

function strings(obj: Record<string, unknown>, key: string): string[] {
  const value = obj[key];
  if (!Array.isArray(value) || !value.every((v) => typeof v === 'string' && v !== '')) bad(`${key} must be an array of non-empty strings`);
  return value as string[];
}

function deviceRef(value: unknown): DeviceRef {
  const obj = object(value, 'target');
  return { user_id: str(obj, 'user_id'), device_id: optStr(obj, 'device_id') };
}

function faultTarget(obj: Record<string, unknown>): { user_id?: string; device_id?: string } {
  return { user_id: optStr(obj, 'user_id'), device_id: optStr(obj, 'device_id') };
}

function dropMode(value: unknown): DropMode {
  const mode = value ?? 'end';
  if (mode !== 'end' && mode !== 'terminate' && mode !== 'close') bad('mode must be "end", "terminate" or "close"');
  return mode;
}

const POISON_SHAPES = new Set(['mentions', 'body', 'payload']);

export class Admin implements DevHubAdmin {
  constructor(
    private readonly ctx: HubContext,
    private readonly mediaService: MediaService | undefined,
  ) {}

  addUser(user: DevHubUserConfig): void {
    const obj = object(user, 'user');
    const id = str(obj, 'id');
    const tokens = obj.tokens === undefined ? [] : strings(obj, 'tokens');
    const token = optStr(obj, 'token');
    for (const t of [...tokens, ...(token ? [token] : [])]) {
      const owner = this.ctx.directory.authenticate(t);
      if (owner && owner.id !== id) bad(`user '${id}' would share a token with user '${owner.id}'`);
    }
    this.ctx.directory.addUser({ id, nick_name: optStr(obj, 'nick_name'), token, tokens });
  }

  removeUser(userId: string): void {
    this.ctx.directory.removeUser(str({ userId }, 'userId'));
  }

  addChat(chat: DevHubChatConfig): void {
    const obj = object(chat, 'chat');
    const type = obj.type;
    if (type !== undefined && type !== 'direct' && type !== 'group') bad('type must be "direct" or "group"');
    this.ctx.directory.addChat({ id: str(obj, 'id'), members: strings(obj, 'members'), type });
  }

  removeChat(chatId: string): void {
    this.ctx.directory.removeChat(str({ chatId }, 'chatId'));
  }

  setChatMembers(chatId: string, members: string[]): void {
    if (!this.ctx.directory.setMembers(str({ chatId }, 'chatId'), strings({ members }, 'members'))) bad(`no chat '${chatId}'`);
  }

  notifySignal(input: NotifySignalInput): NotifySignalPayload {
    const obj = object(input, 'input');
    return produceNotifySignal(this.ctx, {
      user_id: str(obj, 'user_id'),
      type: str(obj, 'type'),
      entity_id: str(obj, 'entity_id'),
      version: int(obj, 'version'),
      event_id: optStr(obj, 'event_id'),
    });
  }

  chatMetadataInvalidated(input: ChatMetadataInvalidatedInput): SignalResult {
    const obj = object(input, 'input');
    return produceChatMetadataInvalidated(this.ctx, {
      chat_id: str(obj, 'chat_id'),
      scope: obj.scope === undefined ? undefined : (Array.isArray(obj.scope) && obj.scope.every((s) => typeof s === 'string') ? (obj.scope as string[]) : bad('scope must be an array of strings')),
      version: int(obj, 'version'),
      updated_at: int(obj, 'updated_at'),
      recipients: obj.recipients === undefined ? undefined : strings(obj, 'recipients'),
    });
  }

  permissionRequest(input: PermissionRequestInput): SignalResult & { request_id: string } {
    const obj = object(input, 'input');
    return producePermissionRequest(this.ctx, {
      user_id: str(obj, 'user_id'),
      chat_id: str(obj, 'chat_id'),
      request_id: optStr(obj, 'request_id'),
      agent_id: optStr(obj, 'agent_id'),
      operation: optStr(obj, 'operation'),
      target: obj.target === undefined ? undefined : object(obj.target, 'target'),
      expires_at: int(obj, 'expires_at'),
    });
  }

  permissionResolved(input: PermissionResolvedInput): SignalResult {
    const obj = object(input, 'input');
    if (typeof obj.request_id !== 'string') bad('request_id must be a string (it may be empty)');
    return producePermissionResolved(this.ctx, {
      user_id: str(obj, 'user_id'),
      chat_id: str(obj, 'chat_id'),
      request_id: obj.request_id,
      decision: optStr(obj, 'decision'),
      reason: optStr(obj, 'reason'),
    });
  }

  private sessions(target: DeviceRef): Session[] {
    return this.ctx.sessions.match(deviceRef(target));
  }

  dropConnection(target: DeviceRef, input: DropConnectionInput = {}): number {
    const obj = object(input, 'input');
    const after = int(obj, 'after_frames') ?? 0;
    const mode = dropMode(obj.mode);
    const sessions = this.sessions(target);
    for (const session of sessions) {
      if (after === 0) {
        this.ctx.events.emit('kick', { connection_id: session.id, user_id: session.user!.id, device_id: session.deviceId, reason: 'fault' });
        session.drop(mode);
      } else session.dropAfter = { remaining: after, mode };
    }
    return sessions.length;
  }

  withholdAcks(input: AckFaultInput = {}): void {
    const obj = object(input, 'input');
    this.ctx.faults.withholdAcks({ ...faultTarget(obj), count: int(obj, 'count', 1) });
  }

  delayAcks(input: DelayAcksInput): void {
    const obj = object(input, 'input');
    const ms = int(obj, 'ms') ?? bad('ms is required');
    this.ctx.faults.delayAcks({ ...faultTarget(obj), ms, count: int(obj, 'count', 1) });
  }

  skipDseq(target: DeviceRef, input: { count?: number } = {}): number {
    const count = int(object(input, 'input'), 'count', 1) ?? 1;
    const sessions = this.sessions(target).filter((s) => s.v2);
    for (const session of sessions) session.v2!.skip += count;
    return sessions.length;
  }

  sendUnknownEvent(target: DeviceRef, input: UnknownEventInput = {}): number {
    const obj = object(input, 'input');
    const event = optStr(obj, 'event') ?? 'future.event';
    const payload = obj.payload === undefined ? { note: 'an event no client knows yet' } : object(obj.payload, 'payload');
    let reached = 0;
    for (const session of this.sessions(target)) {
      const frame = { version: PROTOCOL_VERSION, event, trace_id: `future-${this.ctx.ids.ulid()}`, emitted_at: this.ctx.now(), payload };
      if (writeWithDseq(this.ctx, session, frame)) reached++;
    }
    return reached;
  }

  sendPoisonFrame(input: PoisonFrameInput): string {
    const obj = object(input, 'input');
    const userId = str(obj, 'user_id');
    const shape = obj.shape ?? 'mentions';
    if (typeof shape !== 'string' || !POISON_SHAPES.has(shape)) bad('shape must be "mentions", "body" or "payload"');
    const chatId = optStr(obj, 'chat_id') ?? this.ctx.directory.chatsOf(userId)[0]?.id ?? 'chat-poison';
    const messageId = this.ctx.ids.messageId();
    const good = { body: { fragments: [{ kind: 'text', text: 'poison' }] }, context: { mentions: [], reply: null } };
    const payload =
      shape === 'payload'
        ? 'not an object'
        : shape === 'body'
          ? { message_id: messageId, message_mode: 'normal', message: { ...good, body: 17 } }
          : { message_id: messageId, message_mode: 'normal', message: { ...good, context: { mentions: [{ user_id: { nested: [1] } }, 42, [null], true], reply: 'x' } } };
    const frame = {
      version: PROTOCOL_VERSION,
      event: 'message.send',
      trace_id: `poison-${this.ctx.ids.ulid()}`,
      emitted_at: this.ctx.now(),
      chat_id: chatId,
      chat_type: 'direct',
      sender: { id: 'usr_poison', type: 'direct', nick_name: 'Poison' },
      payload,
    };
    if (obj.durable === false) {
      for (const session of this.ctx.sessions.ofUser(userId)) writeWithDseq(this.ctx, session, frame);
    } else {
      this.ctx.inbox.upsert(userId, {
        message_id: messageId,
        event: 'message.send',
        kind: 'poison',
        chat_id: chatId,
        origin_user_id: undefined,
        origin_device_id: undefined,
        target_device_id: undefined,
        stream_merged: false,
        frame,
        live_skip: undefined,
      });
    }
    return messageId;
  }

  sendRaw(target: DeviceRef, frame: string | Record<string, unknown>): number {
    const text = typeof frame === 'string' ? frame : JSON.stringify(object(frame, 'frame'));
    let reached = 0;
    for (const session of this.sessions(target)) if (session.write(text)) reached++;
    return reached;
  }

  withholdReplayDone(input: WithholdReplayDoneInput = {}): void {
    const obj = object(input, 'input');
    this.ctx.faults.withholdReplayDone({ ...faultTarget(obj), count: int(obj, 'count', 1) });
  }

  halfOpen(target: DeviceRef): number {
    const sessions = this.sessions(target);
    for (const session of sessions) session.silent = true;
    return sessions.length;
  }

  failHandshake(input: FailHandshakeInput = {}): void {
    const obj = object(input, 'input');
    this.ctx.faults.failHandshake({ user_id: optStr(obj, 'user_id'), count: int(obj, 'count', 1), mode: obj.mode === undefined ? undefined : dropMode(obj.mode) });
  }

  refuseAuth(input: RefuseAuthInput): void {
    const obj = object(input, 'input');
    this.ctx.faults.refuseAuth({ reason: str(obj, 'reason'), user_id: optStr(obj, 'user_id'), count: int(obj, 'count', 1) });
  }

  echoToken(input: EchoTokenInput = {}): void {
    const obj = object(input, 'input');
    const via = obj.via ?? 'hello-fail';
    if (via !== 'hello-fail' && via !== 'close') bad('via must be "hello-fail" or "close"');
    this.ctx.faults.echoToken({ user_id: optStr(obj, 'user_id'), count: int(obj, 'count', 1), via });
  }

  failMedia(input: FailMediaInput = {}): void {
    const obj = object(input, 'input');
    this.ctx.faults.failMedia({ count: int(obj, 'count', 1), status: int(obj, 'status', 100), code: int(obj, 'code', 1), msg: optStr(obj, 'msg') });
  }

  clearFaults(): void {
    this.ctx.faults.clear();
    for (const session of this.ctx.sessions.every()) {
      session.dropAfter = undefined;
      if (session.v2) session.v2.skip = 0;
    }
  }

  faults(): FaultSnapshot {
    return this.ctx.faults.snapshot();
  }

  devices(): DeviceInfo[] {
    return this.ctx.sessions.authenticated().map((s) => s.info());
  }

  inbox(userId: string): InboxRowInfo[] {
    return this.ctx.inbox.rows(str({ userId }, 'userId')).map((row) => ({
      seq: row.seq,
      message_id: row.message_id,
      event: row.event,
      ...(row.chat_id !== undefined ? { chat_id: row.chat_id } : {}),
      ...(row.target_device_id !== undefined ? { target_device_id: row.target_device_id } : {}),
      ...(row.origin_device_id !== undefined ? { origin_device_id: row.origin_device_id } : {}),
      stream_merged: row.stream_merged,
      stored_at: row.stored_at,
      frame: row.frame,
    }));
  }

  cursors(userId: string): Record<string, number> {
    return this.ctx.inbox.cursorsOf(str({ userId }, 'userId'));
  }

  readWatermarks(userId: string): Record<string, number> {
    return this.ctx.watermarks.of(str({ userId }, 'userId'));
  }

  received(filter: { user_id?: string; device_id?: string; event?: string } = {}): ReceivedFrame[] {
    return this.ctx.received.list(filter);
  }

  media(): MediaObjectInfo[] {
    return this.mediaService?.list() ?? [];
  }

  sweep(): void {
    sweepAckSilence(this.ctx);
    sweepRetention(this.ctx);
  }

  prune(userId: string, input: PruneInput): number {
    const obj = object(input, 'input');
    const keep = int(obj, 'keep_last');
    const through = int(obj, 'through_seq');
    if (keep === undefined && through === undefined) bad('give keep_last or through_seq');
    return this.ctx.inbox.prune(str({ userId }, 'userId'), { keep_last: keep, through_seq: through });
  }

  on<K extends keyof DevHubEventMap>(event: K, listener: (value: DevHubEventMap[K]) => void): this {
    this.ctx.events.on(event, listener);
    return this;
  }

  off<K extends keyof DevHubEventMap>(event: K, listener: (value: DevHubEventMap[K]) => void): this {
    this.ctx.events.off(event, listener);
    return this;
  }

  waitFor<K extends keyof DevHubEventMap>(event: K, predicate: (value: DevHubEventMap[K]) => boolean = () => true, timeoutMs = 5000): Promise<DevHubEventMap[K]> {
    return new Promise((resolve, reject) => {
      const listener = (value: DevHubEventMap[K]): void => {
        if (!predicate(value)) return;
        clearTimeout(timer);
        this.ctx.events.off(event, listener);
        resolve(value);
      };
      const timer = setTimeout(() => {
        this.ctx.events.off(event, listener);
        reject(new DevHubError('WAIT_TIMEOUT', `no '${event}' event matched within ${timeoutMs} ms`));
      }, timeoutMs);
      this.ctx.events.on(event, listener);
    });
  }
}
