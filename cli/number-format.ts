/**
 * Durations and shares for people, with no other imports: `cubist solve`'s progress line uses them, and loading
 * control-format.ts (proto, gRPC) for two functions would cost a single-machine solve ~40 ms of start.
 */

/** A duration for people: `850ms`, `45s`, `12m05s`, `3h04m`, `2d03h`; "?" for a negative or non-finite one. */
export function formatDuration(seconds: number): string {
  if (!Number.isFinite(seconds) || seconds < 0) return "?";
  if (seconds < 1) return `${Math.round(seconds * 1000)}ms`;
  if (seconds < 60) return seconds < 10 ? `${seconds.toFixed(1)}s` : `${Math.round(seconds)}s`;
  const s = Math.round(seconds);
  const two = (n: number): string => String(n).padStart(2, "0");
  if (s < 3600) return `${Math.floor(s / 60)}m${two(s % 60)}s`;
  if (s < 86400) return `${Math.floor(s / 3600)}h${two(Math.floor((s % 3600) / 60))}m`;
  return `${Math.floor(s / 86400)}d${two(Math.floor((s % 86400) / 3600))}h`;
}

/** A share as a percentage: never 100% before it is complete, nor 0.0% once something closed. */
export function formatPercent(fraction: number, digits = 1): string {
  const p = Math.max(0, Math.min(1, Number.isFinite(fraction) ? fraction : 0)) * 100;
  // Never show 100% for a run that is not complete, nor 0.0% once something closed.
  let text = p.toFixed(digits);
  if (p < 100 && Number(text) >= 100) text = (100 - 10 ** -digits).toFixed(digits);
  if (p > 0 && Number(text) === 0) text = `<${(10 ** -digits).toFixed(digits)}`;
  return `${text}%`;
}
