/**
 * Node status in one place: counts of what went through, or the code of the last failure.
 * Texts stay short because the editor shows them under the node.
 */
import type { Node } from 'node-red';

export class NodeStatusReporter {
  private okCount = 0;
  private errorCount = 0;

  constructor(
    private readonly node: Pick<Node, 'status'>,
    private readonly noun: string,
  ) {}

  /** Counts a success and shows the running totals. */
  passed(count = 1): void {
    this.okCount += count;
    this.show('green', 'dot');
  }

  /** Counts a failure and shows its code beside the totals. */
  failed(code: string): void {
    this.errorCount += 1;
    this.show('red', 'ring', code);
  }

  /** Shows a free text, e.g. a connection state. */
  set(fill: 'red' | 'green' | 'yellow' | 'blue' | 'grey', shape: 'ring' | 'dot', text: string): void {
    this.node.status({ fill, shape, text });
  }

  clear(): void {
    this.node.status({});
  }

  get counts(): { ok: number; errors: number } {
    return { ok: this.okCount, errors: this.errorCount };
  }

  private show(fill: 'green' | 'red', shape: 'dot' | 'ring', lastError?: string): void {
    const base = `${this.okCount} ${this.noun}`;
    const errors = this.errorCount > 0 ? `, ${this.errorCount} failed` : '';
    this.node.status({ fill, shape, text: lastError ? `${base}${errors} (${lastError})` : `${base}${errors}` });
  }
}
