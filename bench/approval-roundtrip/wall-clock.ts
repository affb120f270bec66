/**
 * Wall-clock time in milliseconds with sub-millisecond resolution, comparable with bash's
 * `$EPOCHREALTIME` (both are the system's real-time clock). `anchor()` re-reads the offset
 * between `Date.now()` and the monotonic `performance.now()` at the instant Date.now() ticks over
 * to a new millisecond (a spin of at most 1 ms), so drift between the two clocks over a long run
 * does not creep into the figures; call it before each measurement.
 */
export function createWallClock() {
  let offset = Date.now() - performance.now();
  return {
    anchor(): void {
      const start = Date.now();
      let tick = start;
      while (tick === start) tick = Date.now();
      offset = tick - performance.now();
    },
    now(): number {
      return offset + performance.now();
    },
  };
}

export type WallClock = ReturnType<typeof createWallClock>;
