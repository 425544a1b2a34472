/**
 * Hub-wide fault rules set through the admin interface: refuse handshakes, withhold or delay `message.ack`, fail media
 * uploads. Each rule has a budget (`count`, unlimited by default) and is consumed as it fires. Per-connection faults
 * (drop after N frames, skip a dseq) live on the session itself.
 */
import type {
  AckFaultInput,
  DelayAcksInput,
  FailMediaInput,
  FaultSnapshot,
  FaultTarget,
  RefuseAuthInput,
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

  refuseAuth(input: RefuseAuthInput): void {
    this.refuse.push({ ...input, remaining: budget(input.count) });
  }

  withholdAcks(input: AckFaultInput): void {
    this.withhold.push({ ...input, remaining: budget(input.count) });
  }

  delayAcks(input: DelayAcksInput): void {
    this.delay.push({ ...input, remaining: budget(input.count) });
  }

  failMedia(input: FailMediaInput): void {
    this.media.push({ ...input, remaining: input.count === undefined ? 1 : budget(input.count) });
  }

  /** The refusal reason for this handshake, consuming one unit of the matching rule. */
  takeAuthRefusal(userId: string | undefined): string | undefined {
    return take(this.refuse, (r) => r.user_id === undefined || r.user_id === userId)?.reason;
  }

  /** What to do with one `message.ack` to this device. */
  ackAction(userId: string, deviceId: string): AckAction {
    if (take(this.withhold, (r) => matches(r, userId, deviceId))) return { kind: 'withhold' };
    const delayed = take(this.delay, (r) => matches(r, userId, deviceId));
    return delayed ? { kind: 'delay', ms: delayed.ms } : { kind: 'send' };
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
  }

  snapshot(): FaultSnapshot {
    // JSON has no Infinity; an unlimited budget reads as -1.
    const out = <T extends Budgeted>(list: T[]) => list.map((r) => ({ ...r, remaining: Number.isFinite(r.remaining) ? r.remaining : -1 }));
    return { refuse_auth: out(this.refuse), withhold_acks: out(this.withhold), delay_acks: out(this.delay), fail_media: out(this.media) };
  }
}
