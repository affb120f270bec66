import { PlatformError } from '../adapter.js';
import type { TestFailure, TestOperation } from './test-adapter-types.js';

interface PlannedFailure {
  readonly failure: TestFailure;
  readonly ops: ReadonlySet<TestOperation>;
  remaining: number;
  /** Matching calls still to let through before failing. */
  pass: number;
}

export interface FailurePlan {
  add(failure: TestFailure): void;
  clear(): void;
  /** The failure for this call, consumed; undefined when the call should succeed. */
  take(op: TestOperation): { error: PlatformError; afterEffect: boolean } | undefined;
}

/** Programmed failures of a test adapter, used in the order they were added. */
export function createFailurePlan(): FailurePlan {
  const planned: PlannedFailure[] = [];
  return {
    add: (failure) => {
      const on = failure.on ?? 'send';
      const times = failure.times ?? 1;
      const after = failure.after ?? 0;
      if (!Number.isInteger(times) || times < 1)
        throw new RangeError('failNext: times must be a positive integer');
      if (!Number.isInteger(after) || after < 0)
        throw new RangeError('failNext: after must be an integer >= 0');
      planned.push({
        failure,
        ops: new Set(typeof on === 'string' ? [on] : on),
        remaining: times,
        pass: after,
      });
    },
    clear: () => {
      planned.length = 0;
    },
    take: (op) => {
      const index = planned.findIndex((entry) => entry.ops.has(op));
      const entry = planned[index];
      if (entry === undefined) return undefined;
      if (entry.pass > 0) {
        entry.pass -= 1;
        return undefined;
      }
      entry.remaining -= 1;
      if (entry.remaining <= 0) planned.splice(index, 1);
      const { code, retryAfterMs, maybeDelivered } = entry.failure;
      const error = new PlatformError(code, `test adapter: programmed ${code} failure on ${op}`, {
        ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
        maybeDelivered: maybeDelivered === true,
      });
      return { error, afterEffect: maybeDelivered === true };
    },
  };
}
