/**
 * Fixed-window rate limit of request starts (`request.rate_limit_*`, as Vector's service
 * layer does it): a window opens at the first request after the previous one ended.
 */
import type { SchedulerLike } from 'rxjs';

/** Counts request starts per window; retries are not counted (they never ask it). */
export class RateLimiter {
  private windowEnd = -Infinity;
  private used = 0;
  constructor(
    private readonly num: number,
    private readonly windowMs: number,
    private readonly scheduler: SchedulerLike,
  ) {}

  /** Takes one start if the window allows; else returns the ms until the window ends. */
  take(): true | number {
    const now = this.scheduler.now();
    if (now >= this.windowEnd) {
      this.windowEnd = now + this.windowMs;
      this.used = 0;
    }
    if (this.used < this.num) {
      this.used++;
      return true;
    }
    return this.windowEnd - now;
  }
}
