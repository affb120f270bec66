import { randomFillSync } from 'node:crypto';
import { v7 } from 'uuid';

/** Random bytes fetched per refill: enough for this many ids. */
const IDS_PER_REFILL = 256;
const ID_BYTES = 16;

export interface TimeOrderedIdOptions {
  /** Milliseconds since the epoch (default `Date.now`). */
  readonly now?: () => number;
  /** Fills the array with random bytes (default `crypto.randomFillSync`). */
  readonly fillRandom?: (bytes: Uint8Array) => void;
}

/**
 * A source of UUIDv7s (RFC 9562): a millisecond timestamp, then a 32-bit counter seeded with 31
 * random bits each new millisecond and counted up within it (the RFC's monotonic method, as
 * `uuid`'s own `v7()` does), then random bits. Ids from one source sort in the order they were
 * made, also when the clock steps back.
 *
 * Unlike a bare `v7()`, which asks webcrypto for 16 bytes per id (a measurable share of a turn,
 * which mints four ids), the random bytes come from a pool filled 4 KiB at a time, as Node's own
 * `randomUUID()` does.
 */
export function createTimeOrderedIdSource(options: TimeOrderedIdOptions = {}): () => string {
  const now = options.now ?? Date.now;
  const fillRandom = options.fillRandom ?? randomFillSync;
  let pool: Uint8Array | undefined;
  let offset = 0;
  let lastMsecs = Number.NEGATIVE_INFINITY;
  let sequence = 0;
  return () => {
    if (pool === undefined || offset === pool.length) {
      pool ??= new Uint8Array(IDS_PER_REFILL * ID_BYTES);
      fillRandom(pool);
      offset = 0;
    }
    const random = pool.subarray(offset, offset + ID_BYTES);
    offset += ID_BYTES;
    const msecs = now();
    if (msecs > lastMsecs) {
      lastMsecs = msecs;
      sequence =
        (((random[6] ?? 0) & 0x7f) << 24) |
        ((random[7] ?? 0) << 16) |
        ((random[8] ?? 0) << 8) |
        (random[9] ?? 0);
    } else {
      sequence = (sequence + 1) | 0;
      // The 32-bit counter wrapped: borrow the next millisecond rather than repeat an id.
      if (sequence === 0) lastMsecs += 1;
    }
    return v7({ random, msecs: lastMsecs, seq: sequence });
  };
}

/** The process' shared source (see `createTimeOrderedIdSource`). */
export const timeOrderedId: () => string = createTimeOrderedIdSource();
