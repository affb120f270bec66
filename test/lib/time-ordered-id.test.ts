import { validate, version } from 'uuid';
import { describe, expect, it } from 'vitest';
import { createTimeOrderedIdSource, timeOrderedId } from '../../src/lib/time-ordered-id.js';

/** The 48-bit millisecond timestamp at the front of a UUIDv7. */
const msecsOf = (id: string) => Number.parseInt(id.replaceAll('-', '').slice(0, 12), 16);

describe('timeOrderedId', () => {
  it('makes valid, unique UUIDv7s that sort in the order they were made, across pool refills', () => {
    const before = Date.now();
    const ids = Array.from({ length: 5_000 }, () => timeOrderedId());
    const after = Date.now();
    for (const id of ids.slice(0, 50)) {
      expect(validate(id)).toBe(true);
      expect(version(id)).toBe(7);
    }
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual(ids);
    expect(msecsOf(ids[0] ?? '')).toBeGreaterThanOrEqual(before);
    expect(msecsOf(ids.at(-1) ?? '')).toBeLessThanOrEqual(after);
  });

  it('counts up within one millisecond and keeps order when the clock steps back', () => {
    let clock = 1_700_000_000_000;
    let fills = 0;
    const next = createTimeOrderedIdSource({
      now: () => clock,
      fillRandom: (bytes) => {
        fills += 1;
        // The same bytes on every refill: order must come from the counter, not from luck.
        bytes.fill(0xa5);
      },
    });
    const sameMs = Array.from({ length: 600 }, () => next());
    clock -= 5_000; // an NTP step back
    const afterStepBack = Array.from({ length: 3 }, () => next());
    clock += 10_000;
    const later = next();
    const ids = [...sameMs, ...afterStepBack, later];
    expect(fills).toBe(3); // 256 ids per refill
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual(ids);
    expect(msecsOf(sameMs[0] ?? '')).toBe(1_700_000_000_000);
    expect(msecsOf(afterStepBack[2] ?? '')).toBe(1_700_000_000_000);
    expect(msecsOf(later)).toBe(1_700_000_005_000);
  });
});
