/**
 * Node status in one place: counts of what went through, or the code of the last failure.
 * Texts stay short because the editor shows them under the node; both words come from the node's locale.
 */
import type { Node } from 'node-red';

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
    this.node.status({ fill, shape, text });
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
    this.node.status(this.lastError ? { fill: 'red', shape: 'ring', text: this.countsText() } : { fill: 'green', shape: 'dot', text: this.countsText() });
  }
}
