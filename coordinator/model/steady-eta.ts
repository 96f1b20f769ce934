/**
 * The one ETA a run shows: the tree-size estimate's seconds (coordinator/model/work-estimate.ts), or the
 * closed-weight ETA (coordinator/model/rate.ts) before the first tree estimate, smoothed so that it holds still.
 *
 * A raw ETA jumps whenever a heavy-tailed tree estimate arrives or leaves, or a burst of verdicts moves the rate:
 * on a steady run it swung 3x within minutes. The smoothed ETA counts down with the clock between readings and
 * moves towards each new reading by a share that grows with the time since the last one (an exponential moving
 * average), taken on the logarithm so that a reading twice as long pulls as hard as one half as long. Its time
 * constant is a quarter of the time left (between 10 s and 10 minutes): a week-long run's ETA moves over minutes, a
 * five-minute run's over a minute. A lasting change reaches the ETA within a few time constants; a reading that comes
 * and goes moves it a little. Pure: the caller passes the time.
 */

/** The time constant: this share of the ETA, within [ETA_TAU_MIN_MS, ETA_TAU_MS]. */
export const ETA_TAU_SHARE = 0.25;
export const ETA_TAU_MIN_MS = 10 * 1000;
export const ETA_TAU_MS = 10 * 60 * 1000;

export class SteadyEta {
  private seconds = -1;
  private at = 0;

  /**
   * Takes a raw ETA (seconds; negative: unknown) read at `now` and returns the smoothed one (-1 until the first
   * known reading). An unknown reading keeps the ETA counting down.
   */
  update(now: number, rawSeconds: number): number {
    if (this.seconds < 0) {
      if (rawSeconds < 0 || !Number.isFinite(rawSeconds)) return -1;
      this.seconds = rawSeconds;
      this.at = now;
      return this.seconds;
    }
    const dt = Math.max(0, now - this.at);
    this.at = Math.max(this.at, now);
    // Between readings the ETA counts down with the clock (never below one second: the run is not over).
    const predicted = Math.max(1, this.seconds - dt / 1000);
    if (rawSeconds < 0 || !Number.isFinite(rawSeconds)) {
      this.seconds = predicted;
      return this.seconds;
    }
    const tau = Math.max(ETA_TAU_MIN_MS, Math.min(ETA_TAU_MS, ETA_TAU_SHARE * predicted * 1000));
    const share = 1 - Math.exp(-dt / tau);
    const raw = Math.max(1, rawSeconds);
    this.seconds = Math.exp(Math.log(predicted) + share * (Math.log(raw) - Math.log(predicted)));
    return this.seconds;
  }

  /** Forgets the ETA (the run was paused: the time it stood still is no progress), so the next reading starts afresh. */
  reset(): void {
    this.seconds = -1;
    this.at = 0;
  }
}
