/**
 * Node status in one place: counts of what went through, or the code of the last failure.
 * Texts stay short because the editor shows them under the node; both words come from the node's locale.
 * Every text goes out printable (lib/printable.ts): a code or a connection reason can come from a hub.
 */
import type { Node, NodeStatus } from 'node-red';
import { printable } from '../../lib/printable';

export class NodeStatusReporter {
  protected okCount = 0;
  protected errorCount = 0;
  protected lastError: string | undefined;

  constructor(
    protected readonly node: Pick<Node, 'status'>,
    /** What a success is called, e.g. "decoded". */
    private readonly noun: string,
    /** What a failure is called, e.g. "failed". */
    private readonly failedWord: string,
  ) {}

  /** Counts a success and shows the running totals. */
  passed(count = 1): void {
    this.okCount += count;
    this.lastError = undefined;
    this.render();
  }

  /** Counts a failure and shows its code beside the totals. */
  failed(code: string): void {
    this.errorCount += 1;
    this.lastError = code;
    this.render();
  }

  /** Shows a free text, e.g. a connection state. */
  set(fill: 'red' | 'green' | 'yellow' | 'blue' | 'grey', shape: 'ring' | 'dot', text: string): void {
    this.show({ fill, shape, text });
  }

  clear(): void {
    this.node.status({});
  }

  get counts(): { ok: number; errors: number } {
    return { ok: this.okCount, errors: this.errorCount };
  }

  /** "12 decoded, 1 failed (BAD_LENGTH)": the totals, and the code of the last failure while it is the latest news. */
  protected countsText(): string {
    const errors = this.errorCount > 0 ? `, ${this.errorCount} ${this.failedWord}` : '';
    const last = this.lastError ? ` (${this.lastError})` : '';
    return `${this.okCount} ${this.noun}${errors}${last}`;
  }

  protected render(): void {
    this.show(this.lastError ? { fill: 'red', shape: 'ring', text: this.countsText() } : { fill: 'green', shape: 'dot', text: this.countsText() });
  }

  /** The one place a status reaches the node. */
  protected show(status: NodeStatus): void {
    this.node.status(typeof status.text === 'string' ? { ...status, text: printable(status.text) } : status);
  }
}
