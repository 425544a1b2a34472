/**
 * `dictionary-apply`: one node for the group app-data dictionary. The operation (config or `msg.operation`)
 * picks one of create, apply, describe, read, read-user-data, write, write-user-data, validate-welcome, expiry;
 * lib/dictionary does all the work. A rejection reaches Catch nodes with its code through `done(err)`.
 */
import type { Node, NodeAPI, NodeDef, NodeMessageInFlow } from 'node-red';
import { toHex } from '../lib/bytes';
import { CommitRejectedError, DictionaryError, WelcomeRejectedError } from '../lib/dictionary/errors';
import { dictionaryToJson, parseDictionaryInput } from '../lib/dictionary/json-form';
import { isOperationName, OPERATIONS, runOperation } from '../lib/dictionary/operations';
import { quoteValue } from '../lib/quote-value';
import { fail } from './shared/fail';
import { NodeStatusReporter } from './shared/status';

interface DictionaryApplyDef extends NodeDef {
  operation: string;
  actor: string;
  output: 'buffer' | 'json' | 'hex';
}

type Msg = NodeMessageInFlow & Record<string, unknown>;

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Uint8Array);
}

export = function (RED: NodeAPI) {
  function DictionaryApplyNode(this: Node, config: DictionaryApplyDef) {
    RED.nodes.createNode(this, config);
    const status = new NodeStatusReporter(this, RED._('dictionary-apply.status.done'), RED._('dictionary-apply.status.failed'));
    const output = config.output === 'json' || config.output === 'hex' ? config.output : 'buffer';

    this.on('input', (input, send, done) => {
      const msg = input as Msg;
      try {
        const operation = msg.operation ?? config.operation;
        if (!isOperationName(operation)) {
          throw new DictionaryError('INVALID_ARGUMENT', `operation must be one of ${OPERATIONS.join(', ')}; got '${quoteValue(operation)}'`);
        }
        // msg.payload holds the operation's parameters; the documented msg properties override them.
        const request: Record<string, unknown> = { ...(isPlainObject(msg.payload) ? msg.payload : {}) };
        for (const key of ['dictionary', 'proposals', 'actor', 'external'] as const) {
          if (msg[key] !== undefined) request[key] = msg[key];
        }
        if (request.actor === undefined && config.actor) request.actor = config.actor;
        const result = runOperation(operation, request);
        if (result.dictionary) {
          msg.dictionary =
            output === 'buffer' ? Buffer.from(result.dictionary) : output === 'hex' ? toHex(result.dictionary) : dictionaryToJson(parseDictionaryInput(result.dictionary));
        }
        if (result.proposals) msg.proposals = result.proposals.map((p) => Buffer.from(p));
        if (result.changes) msg.changes = result.changes;
        msg.summary = result.summary;
        msg.payload = result.payload;
        status.passed();
        send(msg);
        done();
      } catch (err) {
        if (err instanceof CommitRejectedError || err instanceof WelcomeRejectedError) msg.rejection = { code: err.code, reason: err.reason, rule: err.rule };
        fail(err, status, done);
      }
    });
  }
  RED.nodes.registerType('dictionary-apply', DictionaryApplyNode);
};
