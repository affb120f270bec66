import { describe, expect, it } from 'vitest';
import type { StoredMessage } from '../../../src/gateway/store/gateway-store.js';
import { fitContextBudget } from '../../../src/gateway/turn/fit-context-budget.js';
import { PENDING_RESULT, toModelBlocks } from '../../../src/gateway/turn/to-model-blocks.js';

let seq = 0;
function msg(partial: Partial<StoredMessage> & Pick<StoredMessage, 'role'>): StoredMessage {
  seq += 1;
  return {
    sessionId: 's',
    seq,
    content: null,
    toolCalls: undefined,
    toolCallId: undefined,
    name: undefined,
    promptTokens: undefined,
    completionTokens: undefined,
    createdAt: 0,
    ...partial,
  };
}
const call = (id: string, name = 'echo_text') => ({
  id,
  type: 'function' as const,
  function: { name, arguments: '{}' },
});

describe('toModelBlocks', () => {
  it('keeps results with their call, fills a missing one, and turns a late result into a note', () => {
    const blocks = toModelBlocks([
      msg({ role: 'user', content: 'go' }),
      msg({ role: 'assistant', toolCalls: [call('a'), call('b', 'terminal')] }),
      msg({ role: 'tool', toolCallId: 'a', content: 'A', name: 'echo_text' }),
      msg({ role: 'user', content: 'meanwhile' }),
      msg({ role: 'assistant', content: 'hi' }),
      msg({ role: 'tool', toolCallId: 'b', content: 'B', name: 'terminal' }),
      msg({ role: 'tool', toolCallId: 'zzz', content: '?', name: 'ghost' }),
    ]);
    const messages = blocks.flatMap((block) => block.messages);
    expect(messages).toEqual([
      { role: 'user', content: 'go' },
      { role: 'assistant', content: null, tool_calls: [call('a'), call('b', 'terminal')] },
      { role: 'tool', tool_call_id: 'a', content: 'A' },
      { role: 'tool', tool_call_id: 'b', content: PENDING_RESULT },
      { role: 'user', content: 'meanwhile' },
      { role: 'assistant', content: 'hi' },
      { role: 'user', content: expect.stringContaining('earlier terminal call (b)') },
      { role: 'user', content: expect.stringContaining('earlier ghost call (zzz)') },
    ]);
    expect(blocks.map((block) => block.user)).toEqual([true, false, true, false, false, false]);
  });
});

describe('fitContextBudget', () => {
  const big = 'x'.repeat(3_000);
  function history(turns: number): StoredMessage[] {
    const out: StoredMessage[] = [];
    for (let index = 0; index < turns; index += 1) {
      out.push(msg({ role: 'user', content: `request ${index} ${big}` }));
      out.push(msg({ role: 'assistant', toolCalls: [call(`c${index}`)] }));
      out.push(msg({ role: 'tool', toolCallId: `c${index}`, content: big }));
      out.push(msg({ role: 'assistant', content: `answer ${index}` }));
    }
    return out;
  }

  it('sends everything, without a marker, when it fits', () => {
    const fitted = fitContextBudget(toModelBlocks(history(2)), { budgetChars: 100_000, systemChars: 100 });
    expect(fitted.omitted).toBe(0);
    expect(fitted.marker).toBeUndefined();
    expect(fitted.messages).toHaveLength(8);
  });

  it('drops whole blocks from the start with a marker and a digest of the dropped requests', () => {
    const fitted = fitContextBudget(toModelBlocks(history(10)), { budgetChars: 20_000, systemChars: 1_000 });
    expect(fitted.omitted).toBeGreaterThan(0);
    expect(fitted.messages[0]).toEqual({ role: 'user', content: fitted.marker });
    expect(fitted.marker).toContain(`The ${fitted.omitted} oldest messages`);
    expect(fitted.marker).toContain('- request 0');
    expect(fitted.messages[1]!.role).not.toBe('tool');
    const size = fitted.messages.reduce((sum, m) => sum + String(m.content ?? '').length, 0);
    expect(size).toBeLessThanOrEqual(19_000);
  });

  it('keeps the latest user message even when the steps after it fill the budget', () => {
    const transcript = [
      ...history(1),
      msg({ role: 'user', content: 'the task' }),
      ...Array.from({ length: 6 }, (_, index) => [
        msg({ role: 'assistant', toolCalls: [call(`s${index}`)] }),
        msg({ role: 'tool', toolCallId: `s${index}`, content: big }),
      ]).flat(),
    ];
    const fitted = fitContextBudget(toModelBlocks(transcript), { budgetChars: 12_000, systemChars: 0 });
    expect(fitted.messages[1]).toEqual({ role: 'user', content: 'the task' });
    expect(fitted.messages.at(-1)).toMatchObject({ role: 'tool', tool_call_id: 's5' });
  });

  it('cuts the middle of a single message that alone exceeds the budget', () => {
    const fitted = fitContextBudget(
      toModelBlocks([msg({ role: 'user', content: `start ${'y'.repeat(50_000)} end` })]),
      {
        budgetChars: 12_000,
        systemChars: 0,
      },
    );
    const content = String(fitted.messages.at(-1)!.content);
    expect(content.startsWith('start')).toBe(true);
    expect(content.endsWith('end')).toBe(true);
    expect(content.length).toBeLessThan(12_000);
    expect(fitted.marker).toContain('cut from the middle');
  });
});
