/** A per-session budget (the contract's "token-bucket budgets per attached device"): `take(n)` spends n or nothing. */
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

  take(n = 1): boolean {
    const now = this.now();
    // A clock that steps back must not mint tokens.
    this.tokens = Math.min(this.burst, this.tokens + (Math.max(0, now - this.at) * this.ratePerS) / 1000);
    this.at = now;
    if (this.tokens < n) return false;
    this.tokens -= n;
    return true;
  }
}
