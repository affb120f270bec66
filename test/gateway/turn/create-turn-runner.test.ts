import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { decodeMarker } from '../../../src/gateway/turn/message-marker.js';
import { type Harness, message, ORIGIN, requestMessages, SESSION_KEY, turnHarness } from './turn-test-kit.js';

let h: Harness;
afterEach(async () => {
  await h?.close();
});

/** Exactly one terminal event in total, and it is of this kind. */
function expectOneOutcome(kind: 'final' | 'parked' | 'failed') {
  const terminal = h.rec.terminal();
  expect(terminal.map((entry) => entry.type)).toEqual([kind]);
  return terminal[0]!.event;
}

describe('turn runner: answers', () => {
  beforeEach(async () => {
    h = await turnHarness();
  });

  it('answers a plain message and persists both sides before answering', async () => {
    h.fake.script({ content: 'Hello Ann!' });
    await h.run([message('e1', 'hi')], { turnId: 't1' });
    const final = expectOneOutcome('final');
    expect(final).toMatchObject({
      turnId: 't1',
      sessionKey: SESSION_KEY,
      text: 'Hello Ann!',
      origin: ORIGIN,
    });

    const body = h.fake.requests[0]!.body;
    expect(h.fake.requests[0]!.headers['content-type']).toBe('application/json');
    expect(body['stream']).toBe(true);
    expect(body['stream_options']).toEqual({ include_usage: true });
    expect(body['model']).toBe('fake-model');
    const messages = requestMessages(h.fake, 0);
    expect(messages[0]!['role']).toBe('system');
    expect(String(messages[0]!['content'])).toContain('Telegram');
    expect(String(messages[0]!['content'])).toMatch(/started on \d{4}-\d{2}-\d{2}/);
    expect(messages.slice(1)).toEqual([{ role: 'user', content: 'hi' }]);
    const toolNames = (body['tools'] as Array<{ function: { name: string } }>).map(
      (tool) => tool.function.name,
    );
    expect(toolNames).toEqual(expect.arrayContaining(['echo_text', 'terminal', 'clarify', 'session_search']));

    const transcript = await h.transcript();
    expect(transcript.map((m) => [m.role, m.content])).toEqual([
      ['user', 'hi'],
      ['assistant', 'Hello Ann!'],
    ]);
    expect(decodeMarker(transcript[0]!.name)).toEqual({ turnId: 't1', eventId: 'e1' });
    expect(decodeMarker(transcript[1]!.name)).toEqual({ turnId: 't1' });
    expect(transcript[1]!.promptTokens).toBe(10);
  });

  it('runs a tool loop: each step persisted, the result sent back, one final answer', async () => {
    h.fake.script(
      { content: '', toolCalls: [{ id: 'c1', name: 'echo_text', arguments: '{"text":"ping"}' }] },
      { content: 'The tool said ping.' },
    );
    await h.run([message('e1', 'use the tool')]);
    expect(expectOneOutcome('final')).toMatchObject({ text: 'The tool said ping.' });
    expect(h.kit.runs.get('echo_text')).toBe(1);
    const second = requestMessages(h.fake, 1);
    expect(second.at(-2)).toMatchObject({ role: 'assistant', tool_calls: [{ id: 'c1' }] });
    expect(second.at(-1)).toEqual({ role: 'tool', tool_call_id: 'c1', content: 'echo: ping' });
    expect((await h.transcript()).map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
    const progress = h.rec.progress().filter((event) => event.kind.startsWith('tool_'));
    expect(progress).toEqual([
      expect.objectContaining({ kind: 'tool_started', tool: 'echo_text', emoji: '📣', preview: 'ping' }),
      expect.objectContaining({ kind: 'tool_finished', tool: 'echo_text', ok: true }),
    ]);
  });

  it('streams text deltas and puts tool-call argument pieces together', async () => {
    const long = 'This answer arrives in many small pieces over the stream, one after another.';
    h.fake.script(
      {
        content: '',
        toolCalls: [{ id: 'c1', name: 'echo_text', arguments: '{"text":"split into bits"}' }],
        argumentChunkSize: 3,
      },
      { content: long },
    );
    await h.run([message('e1', 'go')]);
    expect(expectOneOutcome('final')).toMatchObject({ text: long });
    const deltas = h.rec.progress().filter((event) => event.kind === 'text_delta');
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.map((event) => (event.kind === 'text_delta' ? event.text : '')).join('')).toBe(long);
    expect(requestMessages(h.fake, 1).at(-1)).toMatchObject({ content: 'echo: split into bits' });
  });

  it('runs read-only calls of one step in parallel, others alone and in order', async () => {
    h.fake.script(
      {
        content: '',
        toolCalls: [
          { id: 'r1', name: 'slow_read', arguments: '{"key":"a"}' },
          { id: 'r2', name: 'slow_read', arguments: '{"key":"b"}' },
          { id: 'w1', name: 'echo_text', arguments: '{"text":"after"}' },
        ],
      },
      { content: 'done' },
    );
    await h.run([message('e1', 'read both')]);
    expectOneOutcome('final');
    expect(h.kit.maxActive()).toBe(2);
    const results = requestMessages(h.fake, 1).filter((m) => m['role'] === 'tool');
    expect(results.map((m) => m['tool_call_id'])).toEqual(['r1', 'r2', 'w1']);
    expect(results.map((m) => m['content'])).toEqual(['value of a', 'value of b', 'echo: after']);
  });

  it('gives the model an error result for a tool that does not exist', async () => {
    h.fake.script(
      { content: '', toolCalls: [{ id: 'c1', name: 'launch_rockets', arguments: '{}' }] },
      { content: 'Sorry, I cannot do that.' },
    );
    await h.run([message('e1', 'launch')]);
    expectOneOutcome('final');
    const result = requestMessages(h.fake, 1).at(-1)!;
    expect(result['role']).toBe('tool');
    expect(String(result['content'])).toContain('Unknown tool');
  });

  it('steers: messages taken at a tool boundary join the turn before the next model call', async () => {
    h.fake.script(
      { content: '', toolCalls: [{ id: 'c1', name: 'echo_text', arguments: '{"text":"x"}' }] },
      { content: 'Done, and noted the extra request.' },
    );
    await h.run([message('e1', 'first')], { steering: [[message('e2', 'also this')]] });
    expectOneOutcome('final');
    const second = requestMessages(h.fake, 1);
    expect(second.at(-1)).toEqual({ role: 'user', content: 'also this' });
    expect(second.at(-2)).toMatchObject({ role: 'tool', tool_call_id: 'c1' });
    const transcript = await h.transcript();
    expect(decodeMarker(transcript.find((m) => m.content === 'also this')!.name)).toMatchObject({
      eventId: 'e2',
    });
  });

  it("tags every event with the turn's inbound event ids, steered ones included from when they join", async () => {
    h.fake.script(
      { content: '', toolCalls: [{ id: 'c1', name: 'echo_text', arguments: '{"text":"x"}' }] },
      { content: 'Done.' },
    );
    await h.run([message('e1', 'first')], { steering: [[message('e2', 'also this')]] });
    const started = h.rec.progress().find((event) => event.kind === 'tool_started');
    expect(started?.eventIds).toEqual(['e1']);
    expect(h.rec.finals()[0]?.eventIds).toEqual(['e1', 'e2']);
  });

  it('handles a batch of queued messages in order, all persisted before the model is called', async () => {
    h.fake.script({ content: 'Both read.' });
    await h.run([message('e1', 'one'), message('e2', 'two')]);
    expectOneOutcome('final');
    expect(requestMessages(h.fake, 0).slice(1)).toEqual([
      { role: 'user', content: 'one' },
      { role: 'user', content: 'two' },
    ]);
  });

  it('fails with a clear event, not a crash, on a malformed origin', async () => {
    await h.run([{ ...message('e1', 'hi'), payload: { platform: 'telegram' } }]);
    const failed = expectOneOutcome('failed');
    expect(failed).toMatchObject({ code: 'invalid_request', origin: undefined });
    expect((failed as { message: string }).message).toContain('origin is malformed');
    expect(h.fake.requests).toHaveLength(0);
  });

  it('fails clearly on an unknown toolset', async () => {
    await h.run([message('e1', 'hi', { toolset: 'no-such-toolset' })]);
    expect(expectOneOutcome('failed')).toMatchObject({ code: 'invalid_request' });
  });

  it('sends images of the current message to the model and notes them in the transcript', async () => {
    h.fake.script({ content: 'A cat.' });
    await h.run([message('e1', 'what is this?', { images: [{ url: 'https://example.com/cat.png' }] })]);
    expectOneOutcome('final');
    expect(requestMessages(h.fake, 0).at(-1)).toEqual({
      role: 'user',
      content: [
        { type: 'text', text: 'what is this?\n[1 image attached]' },
        { type: 'image_url', image_url: { url: 'https://example.com/cat.png' } },
      ],
    });
  });

  it('names the sender in shared chats', async () => {
    h.fake.script({ content: 'Hi all.' });
    const key = 'agent:main:discord:group:g1:42';
    await h.run([
      {
        ...message('e1', 'hello', { platform: 'discord', chatType: 'group', chatId: 'g1' }),
        sessionKey: key,
      },
    ]);
    expectOneOutcome('final');
    expect(requestMessages(h.fake, 0).at(-1)).toEqual({ role: 'user', content: '[Ann] hello' });
    expect(String(requestMessages(h.fake, 0)[0]!['content'])).toContain('Discord');
  });
});

describe('turn runner: limits', () => {
  it('stops at agent.max_turns with a clear final message', async () => {
    h = await turnHarness({ yaml: 'agent:\n  max_turns: 2\n' });
    h.fake.respond = () => ({
      content: '',
      toolCalls: [{ name: 'echo_text', arguments: '{"text":"again"}' }],
    });
    await h.run([message('e1', 'loop forever')]);
    const final = expectOneOutcome('final') as { text: string };
    expect(final.text).toContain('agent.max_turns');
    expect(h.fake.requests).toHaveLength(2);
    expect(h.kit.runs.get('echo_text')).toBe(2);
  });

  it('fails clearly when no model is configured', async () => {
    h = await turnHarness({ noModel: true });
    await h.run([message('e1', 'hi')]);
    const failed = expectOneOutcome('failed') as { code: string; message: string };
    expect(failed.code).toBe('no_model');
    expect(failed.message).toContain('OPENAI_BASE_URL');
  });

  it('loads at most maxLoadedMessages of a long transcript, never starting on a tool result', async () => {
    h = await turnHarness({ deps: { maxLoadedMessages: 5 } });
    const session = await h.store.getOrCreateSession(SESSION_KEY);
    // Exactly the limit: the whole transcript, nothing said to be left out.
    await h.store.appendMessages(session.sessionId, [
      { role: 'user', content: 'q0' },
      { role: 'assistant', content: 'a0' },
      { role: 'user', content: 'q1' },
      { role: 'assistant', content: 'a1' },
    ]);
    h.fake.script({ content: 'first' }, { content: 'second' });
    await h.run([message('e1', 'q2')]);
    expect(requestMessages(h.fake, 0).slice(1)).toEqual([
      { role: 'user', content: 'q0' },
      { role: 'assistant', content: 'a0' },
      { role: 'user', content: 'q1' },
      { role: 'assistant', content: 'a1' },
      { role: 'user', content: 'q2' },
    ]);
    // Over the limit (12 stored), with a tool result where the last-5 window would start:
    // the window begins after it, and the model is told older messages were left out.
    await h.store.appendMessages(session.sessionId, [
      {
        role: 'assistant',
        content: null,
        toolCalls: [{ id: 't1', type: 'function', function: { name: 'echo_text', arguments: '{}' } }],
      },
      { role: 'tool', content: 'echoed', toolCallId: 't1', name: 'echo_text' },
      { role: 'assistant', content: 'a3' },
      { role: 'user', content: 'q4' },
      { role: 'assistant', content: 'a4' },
      { role: 'user', content: 'q5' },
    ]);
    await h.run([message('e2', 'q6')]);
    const second = requestMessages(h.fake, 1);
    expect(
      second.some((m) => /oldest messages of this conversation were left out/.test(String(m['content']))),
    ).toBe(true);
    expect(second.some((m) => m['role'] === 'tool')).toBe(false);
    expect(second.slice(-5)).toEqual([
      { role: 'assistant', content: 'a3' },
      { role: 'user', content: 'q4' },
      { role: 'assistant', content: 'a4' },
      { role: 'user', content: 'q5' },
      { role: 'user', content: 'q6' },
    ]);
  });

  it('leaves old turns out with a marker when the conversation exceeds the context budget', async () => {
    h = await turnHarness({ yaml: 'agent:\n  context_budget_chars: 12000\n' });
    const session = await h.store.getOrCreateSession(SESSION_KEY);
    const filler = 'lorem ipsum '.repeat(100);
    for (let index = 0; index < 12; index += 1) {
      await h.store.appendMessages(session.sessionId, [
        { role: 'user', content: `old request ${index}: ${filler}` },
        {
          role: 'assistant',
          content: null,
          toolCalls: [
            { id: `old${index}`, type: 'function', function: { name: 'echo_text', arguments: '{}' } },
          ],
        },
        { role: 'tool', content: filler, toolCallId: `old${index}`, name: 'echo_text' },
        { role: 'assistant', content: `old answer ${index}` },
      ]);
    }
    h.fake.script({ content: 'fits' });
    await h.run([message('e1', 'the newest question')]);
    expectOneOutcome('final');
    const messages = requestMessages(h.fake, 0);
    const chars = messages.reduce((sum, m) => sum + JSON.stringify(m['content'] ?? '').length, 0);
    expect(chars).toBeLessThanOrEqual(12_000);
    expect(messages[1]).toMatchObject({ role: 'user' });
    expect(String(messages[1]!['content'])).toMatch(/oldest messages of this conversation were left out/);
    expect(String(messages[1]!['content'])).toContain('old request 0');
    expect(messages.at(-1)).toEqual({ role: 'user', content: 'the newest question' });
    // Never an orphan tool message: each follows its assistant call.
    messages.forEach((m, index) => {
      if (m['role'] !== 'tool') return;
      let back = index - 1;
      while (messages[back]!['role'] === 'tool') back -= 1;
      const calls = messages[back]!['tool_calls'] as Array<{ id: string }>;
      expect(calls.map((call) => call.id)).toContain(m['tool_call_id']);
    });
  });
});

describe('turn runner: system prompt, metrics, resume entry point', () => {
  it('puts a memory snapshot in the system prompt, frozen for the session', async () => {
    h = await turnHarness({ memory: true });
    const memory = h.registry.services.memoryStore!;
    await memory.add('telegram.42', 'user', 'Prefers short answers.');
    h.fake.script({ content: 'a' }, { content: 'b' });
    await h.run([message('e1', 'one')]);
    await memory.add('telegram.42', 'user', 'Lives in Lisbon.');
    await h.run([message('e2', 'two')]);
    const first = String(requestMessages(h.fake, 0)[0]!['content']);
    const second = String(requestMessages(h.fake, 1)[0]!['content']);
    expect(first).toContain('Prefers short answers.');
    expect(second).toBe(first);
    expect(second).not.toContain('Lisbon');
  });

  it('reports turn, model and tool metrics to the observer', async () => {
    const seen: string[] = [];
    h = await turnHarness({
      deps: {
        observer: {
          turnEnded: (info) => seen.push(`turn:${info.outcome}`),
          modelCall: (info) => seen.push(`model:${info.outcome}`),
          toolCall: (info) => seen.push(`tool:${info.tool}:${info.outcome}`),
        },
      },
    });
    h.fake.script(
      { status: 502, error: 'bad gateway' },
      { content: '', toolCalls: [{ name: 'echo_text', arguments: '{"text":"m"}' }] },
      { content: 'done' },
    );
    await h.run([message('e1', 'measure')]);
    expect(seen).toEqual(['model:retry', 'model:ok', 'tool:echo_text:ok', 'model:ok', 'turn:final']);
  });

  it('resume() submits one resume item per park, deduped by its event id', async () => {
    const submitted: string[] = [];
    h = await turnHarness({
      deps: {
        submit: async (item) => {
          const duplicate = submitted.includes(item.eventId);
          submitted.push(item.eventId);
          return { status: duplicate ? 'duplicate' : 'started' };
        },
      },
    });
    h.fake.script({ content: '', toolCalls: [{ id: 'q', name: 'clarify', arguments: '{"question":"?"}' }] });
    await h.run([message('e1', 'ask me')], { turnId: 'pk' });
    const parked = h.rec.parks()[0]!;
    expect(await h.runner.resume({ turnId: 'pk', parkId: parked.parkId, answer: 'x' })).toMatchObject({
      status: 'submitted',
      item: {
        kind: 'resume',
        sessionKey: SESSION_KEY,
        payload: { turnId: 'pk', parkId: parked.parkId, answer: 'x' },
      },
    });
    expect((await h.runner.resume({ turnId: 'pk', answer: 'y' })).status).toBe('duplicate');
    expect((await h.runner.resume({ turnId: 'nope' })).status).toBe('not_parked');
  });
});
