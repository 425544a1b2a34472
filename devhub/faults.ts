/**
 * Hub-wide fault rules set through the admin interface: refuse or end handshakes, withhold or delay `message.ack`,
 * withhold `replay.done`, echo the presented token in a refusal, fail media uploads. Each rule has a budget (`count`, unlimited by default) and is consumed
 * as it fires. Per-connection faults (drop after N frames, skip a dseq, half-open) live on the session itself.
 */
import type {
  AckFaultInput,
  DelayAcksInput,
  DropMode,
  EchoTokenInput,
  FailHandshakeInput,
  FailMediaInput,
  FaultSnapshot,
  FaultTarget,
  RefuseAuthInput,
  WithholdReplayDoneInput,
} from './types';

interface Budgeted {
  remaining: number;
}

type AckAction = { kind: 'send' } | { kind: 'withhold' } | { kind: 'delay'; ms: number };

function matches(target: FaultTarget, userId: string, deviceId: string): boolean {
  return (target.user_id === undefined || target.user_id === userId) && (target.device_id === undefined || target.device_id === deviceId);
}

function take<T extends Budgeted>(list: T[], pick: (rule: T) => boolean): T | undefined {
  const index = list.findIndex(pick);
  if (index < 0) return undefined;
  const rule = list[index];
  rule.remaining--;
  if (rule.remaining <= 0) list.splice(index, 1);
  return rule;
}

function budget(count: number | undefined): number {
  return count === undefined ? Number.POSITIVE_INFINITY : Math.max(0, Math.floor(count));
}

export class FaultBook {
  private refuse: Array<RefuseAuthInput & Budgeted> = [];
  private withhold: Array<AckFaultInput & Budgeted> = [];
  private delay: Array<DelayAcksInput & Budgeted> = [];
  private media: Array<FailMediaInput & Budgeted> = [];
  private replayDone: Array<WithholdReplayDoneInput & Budgeted> = [];
  private handshakes: Array<FailHandshakeInput & Budgeted> = [];
  private echoes: Array<EchoTokenInput & Budgeted> = [];

  refuseAuth(input: RefuseAuthInput): void {
    this.refuse.push({ ...input, remaining: budget(input.count) });
  }

  withholdAcks(input: AckFaultInput): void {
    this.withhold.push({ ...input, remaining: budget(input.count) });
  }

  delayAcks(input: DelayAcksInput): void {
    this.delay.push({ ...input, remaining: budget(input.count) });
  }

  withholdReplayDone(input: WithholdReplayDoneInput): void {
    this.replayDone.push({ ...input, remaining: budget(input.count) });
  }

  failHandshake(input: FailHandshakeInput): void {
    this.handshakes.push({ ...input, remaining: budget(input.count) });
  }

  echoToken(input: EchoTokenInput): void {
    this.echoes.push({ ...input, remaining: budget(input.count) });
  }

  failMedia(input: FailMediaInput): void {
    this.media.push({ ...input, remaining: input.count === undefined ? 1 : budget(input.count) });
  }

  /** The refusal reason for this handshake, consuming one unit of the matching rule. */
  takeAuthRefusal(userId: string | undefined): string | undefined {
    return take(this.refuse, (r) => r.user_id === undefined || r.user_id === userId)?.reason;
  }

  /** Where this handshake's refusal echoes its token, if a rule says so (consumes one unit). */
  takeTokenEcho(userId: string | undefined): 'hello-fail' | 'close' | undefined {
    const rule = take(this.echoes, (r) => r.user_id === undefined || r.user_id === userId);
    return rule ? (rule.via ?? 'hello-fail') : undefined;
  }

  /** What to do with one `message.ack` to this device. */
  ackAction(userId: string, deviceId: string): AckAction {
    if (take(this.withhold, (r) => matches(r, userId, deviceId))) return { kind: 'withhold' };
    const delayed = take(this.delay, (r) => matches(r, userId, deviceId));
    return delayed ? { kind: 'delay', ms: delayed.ms } : { kind: 'send' };
  }

  /** True when this replay's `replay.done` is to be withheld (consumes one unit). */
  takeReplayDoneWithhold(userId: string, deviceId: string): boolean {
    return take(this.replayDone, (r) => matches(r, userId, deviceId)) !== undefined;
  }

  /** How to end this authenticated handshake instead of `hello-ok`, if a rule says so (consumes one unit). */
  takeHandshakeFailure(userId: string): DropMode | undefined {
    const rule = take(this.handshakes, (r) => r.user_id === undefined || r.user_id === userId);
    return rule ? (rule.mode ?? 'end') : undefined;
  }

  takeMediaFailure(): { status: number; code: number; msg: string } | undefined {
    const rule = take(this.media, () => true);
    return rule ? { status: rule.status ?? 500, code: rule.code ?? 50001, msg: rule.msg ?? 'upload failed' } : undefined;
  }

  clear(): void {
    this.refuse = [];
    this.withhold = [];
    this.delay = [];
    this.media = [];
    this.replayDone = [];
    this.handshakes = [];
    this.echoes = [];
  }

  snapshot(): FaultSnapshot {
    // JSON has no Infinity; an unlimited budget reads as -1.
    const out = <T extends Budgeted>(list: T[]) => list.map((r) => ({ ...r, remaining: Number.isFinite(r.remaining) ? r.remaining : -1 }));
    return {
      refuse_auth: out(this.refuse),
      withhold_acks: out(this.withhold),
      delay_acks: out(this.delay),
      fail_media: out(this.media),
      withhold_replay_done: out(this.replayDone),
      fail_handshake: out(this.handshakes),
      echo_token: out(this.echoes),
    };
  }
}
