/**
 * `mesh-decode`: a mesh frame (Buffer, or a string of base64 or JSON floor text) to a message object, the codec
 * sniffed from the first byte. With reassembly on, BLE fragments (`OP…`) are collected across input messages by
 * lib/mesh's bounded reassembler and the completed frame is decoded; whole frames still pass straight through.
 * Sealed content (`__MLS_ENC__…`) is read into its parts on `msg.envelope`, naming the form that arrived.
 */
import type { Node, NodeAPI, NodeDef, NodeMessageInFlow } from 'node-red';
import { FragmentReassembler, isFragment } from '../lib/mesh/ble-fragment';
import { decodeFrameWithFormat } from '../lib/mesh/frame';
import { frameBytesFromInput } from '../lib/mesh/frame-input';
import { plainMlsEnvelopeOf, type PlainMlsEnvelope } from '../lib/mesh/mls-envelope';
import { toPlain } from '../lib/mesh/plain';
import { senderVerifiedFromPeer } from '../lib/mesh/sender-verified';
import { fail } from './shared/fail';
import { NodeStatusReporter } from './shared/status';

interface MeshDecodeDef extends NodeDef {
  reassemble?: boolean;
}

interface MeshDecodeMessage extends NodeMessageInFlow {
  format?: string;
  messageId?: string;
  /** Input: the address the link authenticated for the neighbour that delivered the frame (the flow vouches for it). */
  peerAddress?: unknown;
  senderVerified?: boolean;
  /** For `__MLS_ENC__` content: which of the three forms arrived and its parts (nothing is decrypted). */
  envelope?: PlainMlsEnvelope;
}

/** How often idle assemblies are released on a quiet link (each push also expires them). */
const SWEEP_INTERVAL_MS = 5_000;

export = function (RED: NodeAPI) {
  function MeshDecodeNode(this: Node, config: MeshDecodeDef): void {
    RED.nodes.createNode(this, config);
    const status = new NodeStatusReporter(this, RED._('mesh-decode.status.decoded'), RED._('mesh-decode.status.failed'));
    const reassembler = config.reassemble === true ? new FragmentReassembler() : undefined;
    const sweeper = reassembler ? setInterval(() => reassembler.sweep(), SWEEP_INTERVAL_MS) : undefined;
    sweeper?.unref();

    this.on('input', (msg: MeshDecodeMessage, send, done) => {
      try {
        const inputs = reassembler && Array.isArray(msg.payload) ? msg.payload : [msg.payload];
        const frames: Uint8Array[] = [];
        for (let i = 0; i < inputs.length; i++) {
          const bytes = frameBytesFromInput(inputs[i]);
          if (!reassembler || !isFragment(bytes)) {
            frames.push(bytes);
            continue;
          }
          const result = reassembler.push(bytes);
          if (result.status === 'complete') frames.push(result.frame);
          else if (i === inputs.length - 1) {
            status.set('blue', 'ring', RED._('mesh-decode.status.assembling', { received: result.received, total: result.total }));
          }
        }
        // Decode everything before sending anything, so that a bad frame fails the whole input message.
        const decoded = frames.map((frame) => decodeFrameWithFormat(frame));
        if (decoded.length === 0) {
          done();
          return;
        }
        const out = decoded.map(({ message, format }, index) => {
          const target = (index === decoded.length - 1 ? msg : RED.util.cloneMessage({ ...msg, payload: null })) as MeshDecodeMessage;
          target.payload = toPlain(message);
          target.format = format;
          target.messageId = message.id.toString();
          target.senderVerified = senderVerifiedFromPeer(message, msg.peerAddress);
          const envelope = plainMlsEnvelopeOf(message);
          if (envelope !== undefined) target.envelope = envelope;
          else delete target.envelope;
          return target;
        });
        status.passed(out.length);
        send(out.length === 1 ? out[0] : [out]);
        done();
      } catch (err) {
        fail(err, status, done);
      }
    });

    this.on('close', (_removed: boolean, done: () => void) => {
      if (sweeper) clearInterval(sweeper);
      reassembler?.clear();
      done();
    });
  }

  RED.nodes.registerType('mesh-decode', MeshDecodeNode);
};
