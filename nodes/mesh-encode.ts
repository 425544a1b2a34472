/**
 * `mesh-encode`: an application message (the JSON floor's field names in `msg.payload`) to a mesh frame.
 * Composition, validation, encoding and BLE fragmentation are lib/mesh's; this file reads config and `msg`.
 *
 * Per-message overrides: `msg.format` (`json` / `binary`, when the node's format is "from msg.format") and
 * `msg.mtu` (the peer's reported MTU, when fragmenting).
 */
import type { Node, NodeAPI, NodeDef, NodeMessageInFlow } from 'node-red';
import { CodedError } from '../lib/coded-error';
import { encodeFragments, fragmentSizeForMtu } from '../lib/mesh/ble-fragment';
import { composeMessage } from '../lib/mesh/composer';
import { isInternalContent } from '../lib/mesh/control-prefixes';
import { encodeFrame, type FrameFormat } from '../lib/mesh/frame';
import { parseJsonPlain } from '../lib/mesh/json-plain';
import { quoteValue } from '../lib/quote-value';
import { fail } from './shared/fail';
import { NodeStatusReporter } from './shared/status';

interface MeshEncodeDef extends NodeDef {
  /** `json`, `binary`, or `msg` (take `msg.format`, JSON when absent). */
  format?: string;
  fragment?: boolean;
  /** The peer's reported MTU (ATT_MTU − 3); empty means none reported (185-byte fragments). */
  mtu?: string | number;
  /** `messages`: one output message per fragment; `array`: one message whose payload is the array. */
  fragmentOutput?: string;
}

interface MeshEncodeMessage extends NodeMessageInFlow {
  format?: unknown;
  mtu?: unknown;
  messageId?: string;
  fragment?: { messageId: string; index: number; total: number };
}

function optionalNumber(value: unknown): number | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  const n = Number(value);
  return Number.isFinite(n) ? n : undefined;
}

export = function (RED: NodeAPI) {
  function MeshEncodeNode(this: Node, config: MeshEncodeDef): void {
    RED.nodes.createNode(this, config);
    const status = new NodeStatusReporter(this, RED._('mesh-encode.status.encoded'), RED._('mesh-encode.status.failed'));
    const formatSetting = config.format === 'binary' || config.format === 'msg' ? config.format : 'json';
    const fragment = config.fragment === true;
    const mtuSetting = optionalNumber(config.mtu);
    const asArray = config.fragmentOutput === 'array';

    this.on('input', (msg: MeshEncodeMessage, send, done) => {
      try {
        let format: FrameFormat = formatSetting === 'msg' ? 'json' : formatSetting;
        if (formatSetting === 'msg' && msg.format !== undefined) {
          if (msg.format !== 'json' && msg.format !== 'binary') {
            throw new CodedError('BAD_FORMAT', RED._('mesh-encode.errors.bad-format', { format: quoteValue(msg.format) }));
          }
          format = msg.format;
        }
        const input = typeof msg.payload === 'string' ? parseJsonPlain(msg.payload) : msg.payload;
        const message = composeMessage(input);
        // A reserved prefix makes the content protocol traffic (control-messages.md: refused on every public send
        // surface); this node composes application messages, the protocol layer builds its own frames.
        if (isInternalContent(message.content)) {
          throw new CodedError('RESERVED_CONTENT', RED._('mesh-encode.errors.reserved-content', { start: quoteValue(message.content.slice(0, 24)) }));
        }
        const frame = Buffer.from(encodeFrame(message, format));
        const messageId = message.id.toString();
        msg.format = format;
        msg.messageId = messageId;
        if (!fragment) {
          msg.payload = frame;
          status.passed();
          send(msg);
          done();
          return;
        }
        const mtu = msg.mtu === undefined ? mtuSetting : optionalNumber(msg.mtu);
        if (msg.mtu !== undefined && mtu === undefined) throw new CodedError('BAD_MTU', RED._('mesh-encode.errors.bad-mtu'));
        const fragments = encodeFragments(frame, messageId, fragmentSizeForMtu(mtu)).map((f) => Buffer.from(f.buffer, f.byteOffset, f.byteLength));
        if (asArray) {
          msg.payload = fragments;
          status.passed();
          send(msg);
        } else {
          // Clone before the payload goes in, so that no clone deep-copies the application's input object.
          msg.payload = null;
          const out = fragments.map((payload, index) => {
            const copy = (index === fragments.length - 1 ? msg : RED.util.cloneMessage(msg)) as MeshEncodeMessage;
            copy.payload = payload;
            copy.fragment = { messageId, index, total: fragments.length };
            return copy;
          });
          status.passed();
          send([out]);
        }
        done();
      } catch (err) {
        fail(err, status, done);
      }
    });
  }

  RED.nodes.registerType('mesh-encode', MeshEncodeNode);
};
