/**
 * A node's log, printable: what a node writes with `log`/`warn`/`error`/`debug` often quotes the mesh or a hub
 * (a stream id, a server's reason, a warning of the media service), and Node-RED writes it to its log as is, where a
 * newline would forge a line. Every node logs through this (lib/printable.ts escapes the controls).
 */
import type { Node } from 'node-red';
import { printable } from '../../lib/printable';

export interface NodeLog {
  debug(text: string): void;
  info(text: string): void;
  warn(text: string): void;
  error(text: string): void;
}

export function nodeLog(node: Pick<Node, 'debug' | 'log' | 'warn' | 'error'>): NodeLog {
  return {
    debug: (text) => node.debug(printable(text)),
    info: (text) => node.log(printable(text)),
    warn: (text) => node.warn(printable(text)),
    error: (text) => node.error(printable(text)),
  };
}
