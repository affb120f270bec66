/** A positive integer from the environment variable `name` (a bench's count or size), else `fallback`. */
export function envInt(name: string, fallback: number): number {
  const raw = process.env[name];
  const value = raw === undefined || raw === '' ? Number.NaN : Number(raw);
  return Number.isInteger(value) && value > 0 ? value : fallback;
}
