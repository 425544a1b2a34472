/**
 * The status of one hub-in or hub-out node: the shared connection's state, and while connected, this node's own
 * counts (and the code of its last failure) after it, e.g. "connected · 12 sent, 1 failed (chat_not_found)".
 * It stands in for `NodeStatusReporter` wherever `fail()` takes one.
 */
import type { Node } from 'node-red';
import { NodeStatusReporter } from '../shared/status';
import type { StatusView } from './status-view';

export class HubNodeStatus extends NodeStatusReporter {
  private view: StatusView = { state: 'idle', fill: 'grey', shape: 'ring', text: '' };
  private ok = 0;
  private errors = 0;
  private lastError: string | undefined;

  constructor(
    private readonly target: Pick<Node, 'status'>,
    private readonly nounText: string,
  ) {
    super(target, nounText);
  }

  /** A new connection state (from the hub-config). */
  connection(view: StatusView): void {
    this.view = view;
    this.render();
  }

  override passed(count = 1): void {
    this.ok += count;
    this.lastError = undefined;
    this.render();
  }

  override failed(code: string): void {
    this.errors += 1;
    this.lastError = code;
    this.render();
  }

  override get counts(): { ok: number; errors: number } {
    return { ok: this.ok, errors: this.errors };
  }

  private render(): void {
    const { fill, shape, text, state } = this.view;
    if (state !== 'connected' || (this.ok === 0 && this.errors === 0)) {
      this.target.status({ fill, shape, text });
      return;
    }
    const errors = this.errors > 0 ? `, ${this.errors} failed` : '';
    const last = this.lastError ? ` (${this.lastError})` : '';
    this.target.status({ fill: this.lastError ? 'red' : fill, shape: this.lastError ? 'ring' : shape, text: `${text} · ${this.ok} ${this.nounText}${errors}${last}` });
  }
}
