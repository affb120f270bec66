import type { ToolServices } from './tool-services.js';
import type { CheckFn, CheckResult, CheckScope } from './tool-types.js';

export interface Availability {
  readonly available: boolean;
  readonly reason?: string;
}

export interface CheckCacheOptions {
  readonly now?: () => number;
  /** How long a result is reused, ms (default 30 s). */
  readonly ttlMs?: number;
  /** A failure this soon after a success is a blip: re-probed next time, not cached (default 60 s). */
  readonly graceMs?: number;
  readonly onFailure?: (fn: CheckFn, reason: string) => void;
}

interface Entry {
  availability: Availability;
  at: number;
}

/**
 * Caches availability probes per probe function. Within one `round` each distinct function runs
 * at most once, however many tools share it.
 */
export class CheckCache {
  /** Per scope (attended, unattended): a probe may answer differently for each. */
  readonly #entries = [new Map<CheckFn, Entry>(), new Map<CheckFn, Entry>()] as const;
  readonly #lastSuccess = [new Map<CheckFn, number>(), new Map<CheckFn, number>()] as const;
  readonly #now: () => number;
  readonly #ttl: number;
  readonly #grace: number;
  readonly #onFailure: CheckCacheOptions['onFailure'];

  constructor(options: CheckCacheOptions = {}) {
    this.#now = options.now ?? Date.now;
    this.#ttl = options.ttlMs ?? 30_000;
    this.#grace = options.graceMs ?? 60_000;
    this.#onFailure = options.onFailure;
  }

  /** Starts a lookup round: returns a function that probes each distinct fn once. */
  round(services: ToolServices, scope: CheckScope = { unattended: false }): (fn: CheckFn) => Availability {
    const seen = new Map<CheckFn, Availability>();
    return (fn) => {
      const known = seen.get(fn);
      if (known !== undefined) return known;
      const result = this.#get(fn, services, scope);
      seen.set(fn, result);
      return result;
    };
  }

  invalidate(): void {
    for (const entries of this.#entries) entries.clear();
  }

  #get(fn: CheckFn, services: ToolServices, scope: CheckScope): Availability {
    const slot = scope.unattended ? 1 : 0;
    const entries = this.#entries[slot];
    const lastSuccesses = this.#lastSuccess[slot];
    const now = this.#now();
    const cached = entries.get(fn);
    if (cached !== undefined && now - cached.at < this.#ttl) return cached.availability;
    const fresh = probe(fn, services, scope);
    if (fresh.available) {
      lastSuccesses.set(fn, now);
      entries.set(fn, { availability: fresh, at: now });
      return fresh;
    }
    const lastSuccess = lastSuccesses.get(fn);
    if (lastSuccess !== undefined && now - lastSuccess < this.#grace) {
      entries.delete(fn);
      return { available: true };
    }
    entries.set(fn, { availability: fresh, at: now });
    this.#onFailure?.(fn, fresh.reason ?? 'unavailable');
    return fresh;
  }
}

function probe(fn: CheckFn, services: ToolServices, scope: CheckScope): Availability {
  let result: CheckResult;
  try {
    result = fn(services, scope);
  } catch (error) {
    return {
      available: false,
      reason: `availability check failed: ${(error as Error)?.message ?? String(error)}`,
    };
  }
  if (result === true) return { available: true };
  if (result === false) return { available: false, reason: 'availability check returned false' };
  if (typeof result === 'object' && result !== null) {
    return result.ok
      ? { available: true }
      : { available: false, reason: result.reason ?? 'availability check returned false' };
  }
  return { available: false, reason: 'availability check returned an unexpected value' };
}
