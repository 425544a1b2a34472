/**
 * Newline-delimited input with a bound: a line past `maxLineBytes` can neither be kept (memory the peer chooses)
 * nor resynchronised, so the splitter reports it once and takes nothing more; the caller closes that connection.
 * Chunks are held as they came until the newline, so a line arriving in many pieces is copied once.
 */
export class LineSplitter {
  private parts: Buffer[] = [];
  private held = 0;
  private overflowed = false;

  constructor(
    private readonly maxLineBytes: number,
    private readonly onLine: (line: string) => void,
    private readonly onOverflow: () => void,
  ) {}

  push(chunk: Buffer): void {
    let start = 0;
    while (!this.overflowed) {
      const nl = chunk.indexOf(0x0a, start);
      const end = nl < 0 ? chunk.length : nl;
      if (this.held + (end - start) > this.maxLineBytes) {
        this.overflowed = true;
        this.parts = [];
        this.held = 0;
        this.onOverflow();
        return;
      }
      if (nl < 0) {
        if (end > start) {
          this.parts.push(chunk.subarray(start, end));
          this.held += end - start;
        }
        return;
      }
      const piece = chunk.subarray(start, end);
      const line = this.parts.length === 0 ? piece.toString('utf8') : Buffer.concat([...this.parts, piece]).toString('utf8');
      this.parts = [];
      this.held = 0;
      start = nl + 1;
      this.onLine(line.endsWith('\r') ? line.slice(0, -1) : line);
    }
  }
}
