import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createTypingKeeper } from '../../../src/gateway/delivery/typing-keeper.js';
import type { PlatformAdapter } from '../../../src/platforms/adapter.js';
import { createTestAdapter } from '../../../src/platforms/test-adapter/create-test-adapter.js';
import { silentLogger } from '../../helpers/test-config.js';

const TO = { chatId: 'c1' };

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('typing keeper', () => {
  it('shows typing at once and refreshes it every interval', async () => {
    const adapter = createTestAdapter();
    const keeper = createTypingKeeper(adapter, TO, { logger: silentLogger });
    expect(adapter.typing).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(3999);
    expect(adapter.typing).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(adapter.typing).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(8000);
    expect(adapter.typing).toHaveLength(4);
    expect(adapter.typing[0]).toEqual(TO);
    keeper.stop();
  });

  it('pauses while a prompt waits, resumes at once, and stops for good', async () => {
    const adapter = createTestAdapter();
    const keeper = createTypingKeeper(adapter, TO, { logger: silentLogger, intervalMs: 1000 });
    keeper.pause();
    keeper.pause();
    await vi.advanceTimersByTimeAsync(5000);
    expect(adapter.typing).toHaveLength(1);
    keeper.resume();
    expect(adapter.typing).toHaveLength(2);
    keeper.resume(); // not paused: nothing more
    expect(adapter.typing).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(1000);
    expect(adapter.typing).toHaveLength(3);
    keeper.stop();
    keeper.stop();
    keeper.resume();
    await vi.advanceTimersByTimeAsync(10_000);
    expect(adapter.typing).toHaveLength(3);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('swallows transient failures and keeps going', async () => {
    const adapter = createTestAdapter();
    adapter.failNext({ on: 'typing', code: 'unavailable', times: 2 });
    const keeper = createTypingKeeper(adapter, TO, { logger: silentLogger, intervalMs: 1000 });
    await vi.advanceTimersByTimeAsync(3000);
    expect(adapter.typing).toHaveLength(2); // calls 1 and 2 failed, 3 and 4 went through
    keeper.stop();
  });

  it('stops trying when the platform refuses for good', async () => {
    const adapter = createTestAdapter();
    adapter.failNext({ on: 'typing', code: 'forbidden' });
    createTypingKeeper(adapter, TO, { logger: silentLogger, intervalMs: 1000 });
    await vi.advanceTimersByTimeAsync(5000);
    expect(adapter.typing).toHaveLength(0);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('survives an adapter that throws synchronously, and never overlaps calls', async () => {
    let calls = 0;
    const base = createTestAdapter();
    const throwing: PlatformAdapter = {
      ...base,
      sendTyping: () => {
        calls += 1;
        throw new Error('not even a promise');
      },
    };
    const keeper = createTypingKeeper(throwing, TO, { logger: silentLogger, intervalMs: 1000 });
    await vi.advanceTimersByTimeAsync(2000);
    expect(calls).toBe(3);
    keeper.stop();

    let pending = 0;
    const slow: PlatformAdapter = {
      ...base,
      sendTyping: () => {
        pending += 1;
        return new Promise<void>(() => {});
      },
    };
    const second = createTypingKeeper(slow, TO, { logger: silentLogger, intervalMs: 1000 });
    await vi.advanceTimersByTimeAsync(5000);
    expect(pending).toBe(1); // the first call never settled: no pile-up
    second.stop();
  });

  it('does nothing where the platform has no typing indicator', async () => {
    let calls = 0;
    const base = createTestAdapter({ limits: { supportsTyping: false } });
    const counting: PlatformAdapter = {
      ...base,
      sendTyping: async () => {
        calls += 1;
      },
    };
    const keeper = createTypingKeeper(counting, TO, { logger: silentLogger });
    await vi.advanceTimersByTimeAsync(10_000);
    keeper.resume();
    expect(calls).toBe(0);
  });

  it('stops by itself after the safety limit', async () => {
    const adapter = createTestAdapter();
    createTypingKeeper(adapter, TO, { logger: silentLogger, intervalMs: 1000, maxDurationMs: 3500 });
    await vi.advanceTimersByTimeAsync(10_000);
    expect(adapter.typing).toHaveLength(4); // at 0, 1, 2 and 3 s
    expect(vi.getTimerCount()).toBe(0);
  });
});
