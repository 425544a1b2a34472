/**
 * The status of one hub-in or hub-out node: the shared connection's state, and while connected, this node's own
 * counts (and the code of its last failure) after it, e.g. "connected · 12 sent, 1 failed (chat_not_found)".
 * It stands in for `NodeStatusReporter` wherever `fail()` takes one.
 */
import { NodeStatusReporter } from '../shared/status';
import type { StatusView } from './status-view';

export class HubNodeStatus extends NodeStatusReporter {
  private view: StatusView = { state: 'idle', fill: 'grey', shape: 'ring', text: '' };

  /** A new connection state (from the hub-config). */
  connection(view: StatusView): void {
    this.view = view;
    this.render();
  }

  protected override render(): void {
    const { fill, shape, text, state } = this.view;
    if (state !== 'connected' || (this.okCount === 0 && this.errorCount === 0)) {
      this.show({ fill, shape, text });
      return;
    }
    this.show({ fill: this.lastError ? 'red' : fill, shape: this.lastError ? 'ring' : shape, text: `${text} · ${this.countsText()}` });
  }
}
