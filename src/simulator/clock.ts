/**
 * The simulator's logical clock. Every timestamp is an offset from a fixed base time, never the wall
 * clock, so responses are byte-identical across runs; each epoch moves "now" forward by one day.
 */
export const BASE_TIME_MS = Date.UTC(2026, 0, 5, 0, 0, 0);
export const SECOND = 1000;
export const MINUTE = 60 * SECOND;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;

/** The logical "now" of an epoch. */
export function epochNow(epoch: number): number {
  return BASE_TIME_MS + epoch * DAY;
}

export function iso(ms: number): string {
  return new Date(ms).toISOString();
}
