/**
 * The tag hub-out puts on each durable send (`SendInput.tag`, stored in the client's outbox row): the node's id,
 * the input's `_msgid` and the action. After a restart the answer to such a send arrives as a bare client event;
 * the tag is how the right node recognises it and reports it on output 2 with the `_msgid` it was given.
 */
import type { SendTag } from '../../lib/hub';

export interface OutTag {
  node: string;
  msgid: string;
  action: string;
}

export function sendTag(nodeId: string, msgid: unknown, action: string): SendTag {
  return { hub_out: nodeId, msgid: typeof msgid === 'string' ? msgid : '', action };
}

/** The hub-out tag of an answer, or undefined when the send was not made by a hub-out node. */
export function readOutTag(tag: SendTag | undefined): OutTag | undefined {
  if (typeof tag !== 'object' || tag === null || Array.isArray(tag)) return undefined;
  const { hub_out: node, msgid, action } = tag;
  if (typeof node !== 'string' || typeof msgid !== 'string' || typeof action !== 'string') return undefined;
  return { node, msgid, action };
}
