/**
 * The project's one rate limiter: `burst` tokens, refilled at `ratePerS`, on an injected clock. Used for what may go
 * into the mesh (the send policy's rate) and for each attached device's budget (the gateway-daemon).
 */
export class TokenBucket {
  private tokens: number;
  private at: number;

  constructor(
    private readonly ratePerS: number,
    private readonly burst: number,
    private readonly now: () => number,
  ) {
    this.tokens = burst;
    this.at = now();
  }

  /** Spends `n` tokens when there are that many: true; otherwise spends nothing: false. */
  take(n = 1): boolean {
    return this.wait(n) === 0;
  }

  /** 0 when `n` tokens were spent; otherwise the milliseconds until they will be there (nothing spent). */
  wait(n = 1): number {
    const now = this.now();
    // A clock that steps back must not mint tokens.
    this.tokens = Math.min(this.burst, this.tokens + (Math.max(0, now - this.at) * this.ratePerS) / 1000);
    this.at = now;
    if (this.tokens >= n) {
      this.tokens -= n;
      return 0;
    }
    return Math.max(1, Math.ceil(((n - this.tokens) * 1000) / this.ratePerS));
  }
}
