import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { createOrderedDispatcher } from '../../../src/platforms/shared/ordered-dispatcher.js';

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

/** The outcome of a dispatch. */
const outcome = async (result: Promise<{ readonly outcome: string }>) => (await result).outcome;

function dispatcherWithLogs(maxFailures = 3) {
  const lines: string[] = [];
  const logger = pino({ level: 'debug' }, { write: (line: string) => void lines.push(line) });
  const dispatcher = createOrderedDispatcher({
    logger,
    what: 'test event',
    maxFailures,
    describeError: (error) => (error as Error).message,
  });
  return { dispatcher, lines };
}

describe('createOrderedDispatcher', () => {
  it('runs one lane in dispatch order, while other lanes and lane-less jobs do not wait', async () => {
    const { dispatcher } = dispatcherWithLogs();
    const order: string[] = [];
    const gate = deferred();
    const first = dispatcher.dispatch('1', () => ({
      lane: 'chat-a',
      run: async () => {
        await gate.promise;
        order.push('a1');
      },
    }));
    const second = dispatcher.dispatch('2', () => ({
      lane: 'chat-a',
      run: async () => void order.push('a2'),
    }));
    const other = dispatcher.dispatch('3', () => ({
      lane: 'chat-b',
      run: async () => void order.push('b1'),
    }));
    const click = dispatcher.dispatch('4', () => ({ run: async () => void order.push('click') }));
    expect(await outcome(other)).toBe('done');
    expect(await outcome(click)).toBe('done');
    // Neither waited for chat-a's first event.
    expect([...order].sort()).toEqual(['b1', 'click']);
    gate.resolve();
    expect(await Promise.all([outcome(first), outcome(second)])).toEqual(['done', 'done']);
    expect(order.slice(2)).toEqual(['a1', 'a2']);
  });

  it('runs an id once: in flight it shares the outcome, after success it is done at once', async () => {
    const { dispatcher } = dispatcherWithLogs();
    let runs = 0;
    const gate = deferred();
    const job = () => ({
      run: async () => {
        runs += 1;
        await gate.promise;
      },
    });
    const a = dispatcher.dispatch('7', job);
    const b = dispatcher.dispatch('7', job);
    gate.resolve();
    expect(await Promise.all([outcome(a), outcome(b)])).toEqual(['done', 'done']);
    expect(await outcome(dispatcher.dispatch('7', job))).toBe('done');
    expect(runs).toBe(1);
  });

  it('reports failures for redelivery, then skips the event on purpose and tells the user once', async () => {
    const { dispatcher, lines } = dispatcherWithLogs(3);
    let told = 0;
    const failing = () => ({
      lane: 'chat',
      run: async () => {
        throw new Error('sink down');
      },
      giveUp: async () => {
        told += 1;
      },
    });
    expect(await outcome(dispatcher.dispatch('9', failing))).toBe('failed');
    expect(await outcome(dispatcher.dispatch('9', failing))).toBe('failed');
    expect(told).toBe(0);
    expect(await outcome(dispatcher.dispatch('9', failing))).toBe('done');
    expect(told).toBe(1);
    expect(lines.filter((line) => line.includes('not accepted; it will be delivered again'))).toHaveLength(2);
    expect(lines.some((line) => line.includes('test event skipped after repeated failures'))).toBe(true);
    // Skipped means done: a later redelivery of the same id runs nothing.
    expect(await outcome(dispatcher.dispatch('9', failing))).toBe('done');
    expect(told).toBe(1);
  });

  it("hands back the job's answer (a callback answered in the response), to a duplicate in flight too", async () => {
    const { dispatcher } = dispatcherWithLogs(1);
    const gate = deferred();
    const job = () => ({
      run: async () => {
        await gate.promise;
        return { toast: 'Approved' };
      },
    });
    const first = dispatcher.dispatch('click-1', job);
    const again = dispatcher.dispatch('click-1', job);
    gate.resolve();
    expect(await first).toEqual({ outcome: 'done', answer: { toast: 'Approved' } });
    expect(await again).toEqual({ outcome: 'done', answer: { toast: 'Approved' } });
    const failing = () => ({
      run: async (): Promise<{ toast: string }> => {
        throw new Error('down');
      },
      giveUp: async () => ({ toast: 'Sorry' }),
    });
    expect(await dispatcher.dispatch('click-2', failing)).toEqual({
      outcome: 'done',
      answer: { toast: 'Sorry' },
    });
  });

  it('an adapter that is not ready fails the event without counting it', async () => {
    const { dispatcher } = dispatcherWithLogs(1);
    expect(await outcome(dispatcher.dispatch('5', () => undefined))).toBe('failed');
    expect(await outcome(dispatcher.dispatch('5', () => undefined))).toBe('failed');
    let ran = false;
    const job = () => ({
      run: async () => {
        ran = true;
      },
    });
    expect(await outcome(dispatcher.dispatch('5', job))).toBe('done');
    expect(ran).toBe(true);
  });

  it('idle() waits for every event in flight', async () => {
    const { dispatcher } = dispatcherWithLogs();
    const gate = deferred();
    let finished = false;
    void dispatcher.dispatch('1', () => ({
      lane: 'x',
      run: async () => {
        await gate.promise;
        finished = true;
      },
    }));
    const idle = dispatcher.idle();
    gate.resolve();
    await idle;
    expect(finished).toBe(true);
  });
});
