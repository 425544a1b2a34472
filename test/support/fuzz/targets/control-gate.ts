/**
 * The control-plane gate on mutated signed control frames: each input is a frame (binary or JSON) and one of five
 * receive contexts; it goes through `decodeFrame`, then `checkControlGate`. Mutations hit the bytes, or the fields the
 * gate reads (signature, public key, sender, content, hop count, id, recipient) before the frame is re-encoded.
 *
 * Beyond "only MeshDecodeError": a frame the gate accepts as signed must carry exactly the signed fields (sender, id,
 * recipient, content) of a frame its sender really signed, so no mutation forges a control message; an unsigned
 * frame may pass only as the relay-answer exemption, and ungated content only when it has no gated prefix.
 */
import { toBase64 } from '../../../../lib/bytes';
import { CTRL_PK_METADATA_KEY, CTRL_SIG_METADATA_KEY } from '../../../../lib/mesh/canonical-payload';
import { checkControlGate, type ControlGateContext } from '../../../../lib/mesh/control-gate';
import { isGatedControlContent, isRelayAnswerContent } from '../../../../lib/mesh/control-prefixes';
import { controlIdentityFromPrivateKey, signControlMessage } from '../../../../lib/mesh/control-signature';
import { decodeFrame, encodeFrame } from '../../../../lib/mesh/frame';
import { createMessage, type MeshMessage } from '../../../../lib/mesh/message';
import { MessageId } from '../../../../lib/mesh/message-id';
import { concatBytes, type FuzzRng, mutateBytes, mutateJson } from '../engine';
import { FuzzInvariantError, type FuzzSession, type FuzzTarget, type Verdict } from '../runner';
import { meshOwn } from './mesh-frames';

export type ControlGateInput = { bytes: Uint8Array; context: number };

const CONTENTS = ['__CONN_REQ__{"hello":1}', '__GRP_RENAME__Kitchen', '__GROUP_CREATED__{"g":"x"}', '__SVC_REQ__q', '__GRP_MLS_COMMIT__AAAA'];
const PREFIXES = ['__CONN_REQ__', '__CONN_ACC__', '__GROUP_INFO__', '__GRP_ROLE_CHG__', '__MLS_ENC__', '__SVC_', '__CONN_REQ_', '__conn_req__', ''];

function signedFields(m: Pick<MeshMessage, 'sender' | 'id' | 'recipient' | 'content'>): string {
  return JSON.stringify([m.sender, m.id.toString(), m.recipient, m.content]);
}

export const controlGateTarget: FuzzTarget<ControlGateInput> = {
  name: 'control-gate',
  about: 'decodeFrame then checkControlGate on mutated signed control frames; no accepted frame may differ from one its sender signed',
  own: meshOwn,
  start(rng: FuzzRng): FuzzSession<ControlGateInput> {
    const identities = [0, 1, 2].map(() => controlIdentityFromPrivateKey(rng.bytes(32)));
    const originals: MeshMessage[] = [];
    const signed = new Set<string>();
    for (const identity of identities) {
      for (const content of CONTENTS) {
        const message = createMessage({
          id: MessageId.fromBytes(rng.bytes(16)),
          sender: identity.address,
          recipient: rng.pick([...identities.map((i) => i.address), 'broadcast']),
          app_id: 'app',
          priority: 'high',
          ttl: 8,
          hop_count: rng.pick([0, 0, 2]),
          timestamp: 1_700_000_000_000n,
          content,
        });
        const s = signControlMessage(message, identity.privateKey);
        originals.push(s);
        signed.add(signedFields(s));
      }
    }
    // Unsigned relay answers: what the exemption lets through over the internet with no transport peer.
    originals.push(
      createMessage({
        id: MessageId.fromBytes(rng.bytes(16)),
        sender: 'relay',
        recipient: identities[0].address,
        app_id: 'app',
        priority: 'medium',
        ttl: 8,
        hop_count: 1,
        timestamp: 1_700_000_000_000n,
        content: '__GROUP_INFO__{}',
      }),
    );
    const contexts: ControlGateContext[] = [
      { transport: 'ble' },
      { transport: 'internet' },
      { transport: 'ble', requireTransportIdentity: true },
      { transport: 'ble', transportPeerId: 'carrier' },
      { transport: 'ble' }, // transportPeerId: the frame's original sender, set per input
    ];
    const corpus = originals.map((m) => encodeFrame(m, rng.chance(0.7) ? 'binary' : 'json'));
    const gateOutcomes: Record<string, number> = { signed: 0, exempt: 0, ungated: 0 };
    let lastSender = '';

    const mutateFields = (m: MeshMessage): MeshMessage => {
      let out: MeshMessage = { ...m, metadata: new Map(m.metadata) };
      const other = rng.pick(originals);
      const rounds = 1 + rng.below(2);
      for (let r = 0; r < rounds; r++) {
        switch (rng.below(9)) {
          case 0: {
            const sig = out.metadata.get(CTRL_SIG_METADATA_KEY) ?? '';
            out.metadata.set(CTRL_SIG_METADATA_KEY, Buffer.from(mutateBytes(rng, Buffer.from(sig, 'latin1'))).toString('latin1'));
            break;
          }
          case 1: {
            const key = rng.pick([CTRL_SIG_METADATA_KEY, CTRL_PK_METADATA_KEY]);
            const value = other.metadata.get(key);
            if (value === undefined || rng.chance(0.3)) out.metadata.delete(key);
            else out.metadata.set(key, value);
            break;
          }
          case 2:
            out.metadata.set(CTRL_PK_METADATA_KEY, rng.chance(0.5) ? toBase64(rng.bytes(rng.pick([31, 32, 33]))) : toBase64(identities[rng.below(3)].publicKey));
            break;
          case 3:
            out = { ...out, sender: rng.chance(0.5) ? other.sender : Buffer.from(mutateBytes(rng, Buffer.from(out.sender, 'latin1'))).toString('latin1') };
            break;
          case 4:
            out = { ...out, content: rng.pick(PREFIXES) + out.content.replace(/^__[A-Z_]+?__/, '') };
            break;
          case 5:
            out = { ...out, content: out.content + rng.pick([' ', '\u0000', 'x', 'é']) };
            break;
          case 6:
            out = { ...out, hop_count: rng.pick([0, 1, 7]) };
            break;
          case 7:
            out = { ...out, id: rng.chance(0.5) ? other.id : MessageId.fromBytes(rng.bytes(16)) };
            break;
          default:
            out = { ...out, recipient: other.recipient };
        }
      }
      return out;
    };

    return {
      next: (): ControlGateInput => {
        const n = rng.below(originals.length);
        lastSender = originals[n].sender;
        const context = rng.below(contexts.length);
        if (rng.chance(0.6)) {
          try {
            return { bytes: encodeFrame(mutateFields(originals[n]), rng.chance(0.7) ? 'binary' : 'json'), context };
          } catch {
            // a field this side refuses to send; fall through to a byte mutation
          }
        }
        const frame = corpus[n];
        return { bytes: frame[0] === 0x7b && rng.chance(0.5) ? mutateJson(rng, frame, corpus) : mutateBytes(rng, frame, corpus), context };
      },
      feed: (input): Verdict => {
        const message = decodeFrame(input.bytes);
        const context = input.context === 4 ? { transport: 'ble' as const, transportPeerId: lastSender } : contexts[input.context];
        const result = checkControlGate(message, context);
        if (!result.accepted) return { accepted: false, code: result.reason };
        if (!result.gated) {
          if (isGatedControlContent(message.content)) throw new FuzzInvariantError('gated content passed as ungated');
          gateOutcomes.ungated++;
        } else if (result.signed) {
          if (!signed.has(signedFields(message))) throw new FuzzInvariantError(`a signed control frame was accepted with fields nobody signed: ${signedFields(message)}`);
          gateOutcomes.signed++;
        } else {
          if (!(context.transport === 'internet' && context.transportPeerId === undefined && isRelayAnswerContent(message.content))) {
            throw new FuzzInvariantError('an unsigned control frame passed outside the relay-answer exemption');
          }
          gateOutcomes.exempt++;
        }
        return { accepted: true };
      },
      show: (input) => concatBytes(new Uint8Array(Buffer.from(`ctx${input.context}:`, 'latin1')), input.bytes),
      figures: () => ({ ...gateOutcomes }),
    };
  },
};
