/** Delay before the retry that follows failure number `failures` (1-based): base, 2×base, 4×base … capped. */
export function backoffDelay(failures: number, baseMs: number, maxMs: number): number {
  const exponent = Math.max(0, Math.min(failures - 1, 30));
  return Math.min(maxMs, baseMs * 2 ** exponent);
}
