import OpenAI from 'openai';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { abortTurn, TurnAbortedError } from '../../../src/gateway/queue/turn-abort.js';
import { type Harness, message, requestMessages, turnHarness } from './turn-test-kit.js';

let h: Harness;
beforeEach(async () => {
  h = await turnHarness();
});
afterEach(async () => {
  await h.close();
});

function terminalTypes() {
  return h.rec.terminal().map((entry) => entry.type);
}

describe('turn runner: model failures', () => {
  it('retries a 500 and answers', async () => {
    h.fake.script({ status: 500, error: 'boom' }, { content: 'recovered' });
    await h.run([message('e1', 'hi')]);
    expect(terminalTypes()).toEqual(['final']);
    expect(h.rec.finals()[0]!.text).toBe('recovered');
    expect(h.fake.requests).toHaveLength(2);
    expect(h.rec.progress().filter((event) => event.kind === 'model_retry')).toHaveLength(1);
  });

  it('honours retry-after on 429 and retries a dropped connection', async () => {
    h.fake.script(
      { status: 429, error: 'slow down', headers: { 'retry-after-ms': '5' } },
      { destroy: true },
      { content: 'finally' },
    );
    await h.run([message('e1', 'hi')]);
    expect(h.rec.finals()[0]!.text).toBe('finally');
    const retries = h.rec.progress().filter((event) => event.kind === 'model_retry');
    expect(retries.map((event) => (event.kind === 'model_retry' ? event.reason : ''))).toEqual([
      'rate_limited',
      'connection',
    ]);
    expect(retries[0]).toMatchObject({ delayMs: 5 });
  });

  it('gives a clear failure when the model stays unreachable', async () => {
    h.fake.respond = () => ({ status: 503, error: 'overloaded' });
    await h.run([message('e1', 'hi')]);
    expect(terminalTypes()).toEqual(['failed']);
    const failed = h.rec.failures()[0]!;
    expect(failed.code).toBe('model_unreachable');
    expect(failed.message).toMatch(/HTTP 503.*after 3 tries/);
    expect(failed.message).not.toMatch(/\n\s+at /);
    expect(h.fake.requests).toHaveLength(3);
    // The user's message is kept for the next turn.
    expect((await h.transcript()).map((m) => m.role)).toEqual(['user']);
  });

  it('retries a stream gone silent mid-answer for model.timeout_ms, but lets a model think first', async () => {
    // A client like createModelClient's, with a short timeout (the harness' own has the SDK default).
    let baseURL = '';
    const stalling = await turnHarness({
      deps: { clientFactory: () => new OpenAI({ apiKey: 'test-key', baseURL, maxRetries: 0, timeout: 300 }) },
    });
    try {
      baseURL = stalling.fake.baseURL;
      // Thinking before the first token is not a stall, however long (here 3× the timeout).
      stalling.fake.script({ content: 'Thought it through.', thinkMs: 900 });
      await stalling.run([message('e0', 'think first')]);
      expect(stalling.rec.finals()[0]!.text).toBe('Thought it through.');
      expect(stalling.rec.progress().filter((event) => event.kind === 'model_retry')).toEqual([]);
      expect(stalling.fake.requests).toHaveLength(1);

      stalling.fake.script(
        { content: 'This answer stops half-way through.', stallAfterChars: 10 },
        { content: 'The whole answer.' },
      );
      const started = Date.now();
      await stalling.run([message('e1', 'hi')]);
      expect(stalling.rec.finals()[1]!.text).toBe('The whole answer.');
      const retries = stalling.rec.progress().filter((event) => event.kind === 'model_retry');
      expect(retries.map((event) => (event.kind === 'model_retry' ? event.reason : ''))).toEqual(['stalled']);
      expect(Date.now() - started).toBeLessThan(30_000);

      stalling.fake.respond = () => ({ content: 'Never finished, every time.', stallAfterChars: 5 });
      await stalling.run([message('e2', 'again')]);
      const failed = stalling.rec.failures()[0]!;
      expect(failed.code).toBe('model_unreachable');
      expect(failed.message).toMatch(/stopped sending mid-answer \(nothing for 300 ms\).*after \d tries/);
    } finally {
      await stalling.close();
    }
  }, 60_000);

  it('does not retry a refusal such as 401', async () => {
    h.fake.script({ status: 401, error: 'bad key' });
    await h.run([message('e1', 'hi')]);
    const failed = h.rec.failures()[0]!;
    expect(failed.code).toBe('model_error');
    expect(failed.message).toContain('OPENAI_API_KEY');
    expect(failed.message).not.toContain('test-key');
    expect(h.fake.requests).toHaveLength(1);
  });
});

describe('turn runner: aborts and crash recovery', () => {
  it('an interrupt mid-tool stops the tool, answers its call and ends with one failure', async () => {
    h.fake.script({ content: '', toolCalls: [{ id: 'c1', name: 'block_tool', arguments: '{}' }] });
    const controller = new AbortController();
    const running = h.run([message('e1', 'block')], { signal: controller.signal });
    await h.kit.blockStarted;
    abortTurn(controller, 'interrupt');
    await running;
    expect(terminalTypes()).toEqual(['failed']);
    expect(h.rec.failures()[0]!.code).toBe('interrupted');
    const transcript = await h.transcript();
    expect(transcript.map((m) => m.role)).toEqual(['user', 'assistant', 'tool']);
    expect(transcript[2]!.content).toContain('stopped');
    expect(h.fake.requests).toHaveLength(1);
  });

  it('an abort during the model call reaches the request', async () => {
    h.fake.script({ hang: true });
    const controller = new AbortController();
    const running = h.run([message('e1', 'hi')], { signal: controller.signal });
    while (h.fake.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    abortTurn(controller, 'interrupt');
    await running;
    expect(h.rec.failures().map((event) => event.code)).toEqual(['interrupted']);
  });

  it('a shutdown while the answer streams stores none of the cut-off text', async () => {
    h.fake.script({ content: 'The first words of a long answer that never ends.', stallAfterChars: 16 });
    const controller = new AbortController();
    const seen: string[] = [];
    const running = h.run([message('e1', 'hi')], { turnId: 'cut-1', signal: controller.signal });
    while (!h.rec.progress().some((event) => event.kind === 'text_delta')) {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    for (const event of h.rec.progress()) if (event.kind === 'text_delta') seen.push(event.text);
    expect(seen.join('')).toBe('The first words ');
    abortTurn(controller, 'shutdown');
    await expect(running).rejects.toBeInstanceOf(TurnAbortedError);
    // The SDK ends an aborted stream as if it were complete; the runner must not take that for
    // the answer: the transcript keeps only the user's message, for the retry.
    expect((await h.transcript()).map((m) => m.role)).toEqual(['user']);
    expect(h.rec.terminal()).toEqual([]);
  });

  it('after a crash mid-step the retry runs only the missing calls and answers once', async () => {
    h.fake.script({
      content: '',
      toolCalls: [
        { id: 'a', name: 'echo_text', arguments: '{"text":"first"}' },
        { id: 'b', name: 'block_tool', arguments: '{}' },
      ],
    });
    const controller = new AbortController();
    const first = h.run([message('e1', 'two tools')], { turnId: 'crash-1', signal: controller.signal });
    await h.kit.blockStarted;
    abortTurn(controller, 'shutdown'); // what a dying worker looks like to the handler
    await expect(first).rejects.toBeInstanceOf(TurnAbortedError);
    expect(h.rec.terminal()).toEqual([]);
    expect((await h.transcript()).map((m) => m.role)).toEqual(['user', 'assistant', 'tool']);

    h.kit.releaseBlock();
    h.fake.script({ content: 'all done' });
    await h.run([message('e1', 'two tools')], { turnId: 'crash-1', attempt: 2 });
    expect(terminalTypes()).toEqual(['final']);
    expect(h.rec.finals()[0]).toMatchObject({ turnId: 'crash-1', text: 'all done' });
    expect(h.kit.runs.get('echo_text')).toBe(1);
    expect(h.kit.runs.get('block_tool')).toBe(2);
    expect(h.fake.requests).toHaveLength(2);
    const transcript = await h.transcript();
    expect(transcript.filter((m) => m.role === 'user')).toHaveLength(1);
    expect(transcript.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'tool', 'assistant']);
    expect(
      requestMessages(h.fake, 1)
        .filter((m) => m['role'] === 'tool')
        .map((m) => m['tool_call_id']),
    ).toEqual(['a', 'b']);

    // A third run (say the delivery failed after the answer was stored) re-emits it, no model call.
    h.rec.clear();
    await h.run([message('e1', 'two tools')], { turnId: 'crash-1', attempt: 3 });
    expect(terminalTypes()).toEqual(['final']);
    expect(h.rec.finals()[0]!.text).toBe('all done');
    expect(h.fake.requests).toHaveLength(2);
  });

  it('a shutdown during the model call leaves the turn for a retry with nothing written twice', async () => {
    h.fake.script({ hang: true });
    const controller = new AbortController();
    const first = h.run([message('e1', 'hi')], { turnId: 'crash-2', signal: controller.signal });
    while (h.fake.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    abortTurn(controller, 'shutdown');
    await expect(first).rejects.toBeInstanceOf(TurnAbortedError);
    h.fake.script({ content: 'answer' });
    await h.run([message('e1', 'hi')], { turnId: 'crash-2', attempt: 2 });
    expect(terminalTypes()).toEqual(['final']);
    expect((await h.transcript()).map((m) => m.role)).toEqual(['user', 'assistant']);
  });

  it('a terminal sink that throws makes the handler throw, and the retry sends the same answer', async () => {
    let fail = true;
    const finals: string[] = [];
    await h.close();
    h = await turnHarness({
      deps: {
        events: {
          progress: () => {},
          parked: () => {},
          failed: () => {},
          final: (event) => {
            if (fail) {
              fail = false;
              throw new Error('delivery down');
            }
            finals.push(event.text);
          },
        },
      },
    });
    h.fake.script({ content: 'once' });
    await expect(h.run([message('e1', 'hi')], { turnId: 't' })).rejects.toThrow('delivery down');
    await h.run([message('e1', 'hi')], { turnId: 't', attempt: 2 });
    expect(finals).toEqual(['once']);
    expect(h.fake.requests).toHaveLength(1);
  });
});
