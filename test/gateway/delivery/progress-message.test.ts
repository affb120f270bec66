import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createProgressMessage, type ProgressMode } from '../../../src/gateway/delivery/progress-message.js';
import type { TurnProgress } from '../../../src/gateway/turn/turn-events.js';
import type { PlatformLimits } from '../../../src/platforms/adapter.js';
import { createTestAdapter } from '../../../src/platforms/test-adapter/create-test-adapter.js';
import { silentLogger } from '../../helpers/test-config.js';

const TO = { chatId: 'c1' };
let calls = 0;

function started(tool: string, preview: string, emoji = '💻'): TurnProgress {
  calls += 1;
  return { kind: 'tool_started', toolCallId: `call-${calls}`, tool, emoji, preview };
}

function setup(mode: ProgressMode, limits: Partial<PlatformLimits> = {}) {
  const adapter = createTestAdapter({ limits });
  const progress = createProgressMessage(adapter, TO, { mode, logger: silentLogger, throttleMs: 1500 });
  return { adapter, progress };
}

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('tool progress message', () => {
  it('sends one message at the first tool call and edits it at most once per throttle window', async () => {
    const { adapter, progress } = setup('all');
    progress.update(started('terminal', 'ls -la'));
    await vi.advanceTimersByTimeAsync(0);
    expect(adapter.texts()).toEqual(['💻 terminal: ls -la']);

    for (const file of ['a.ts', 'b.ts', 'c.ts', 'd.ts']) progress.update(started('read_file', file, '📄'));
    await vi.advanceTimersByTimeAsync(1499);
    expect(adapter.edits).toHaveLength(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(adapter.edits).toHaveLength(1);
    expect(adapter.texts()).toEqual([
      [
        '💻 terminal: ls -la',
        '📄 read_file: a.ts',
        '📄 read_file: b.ts',
        '📄 read_file: c.ts',
        '📄 read_file: d.ts',
      ].join('\n'),
    ]);
    expect(adapter.sent).toHaveLength(1);

    await progress.finish(); // nothing new: no edit
    expect(adapter.edits).toHaveLength(1);
    progress.update(started('terminal', 'late'));
    await vi.advanceTimersByTimeAsync(5000);
    expect(adapter.edits).toHaveLength(1);
  });

  it('always flushes the final state on finish, without waiting for the window', async () => {
    const { adapter, progress } = setup('all');
    progress.update(started('terminal', 'make'));
    await vi.advanceTimersByTimeAsync(0);
    progress.update(started('terminal', 'make test'));
    await progress.finish();
    expect(adapter.texts()).toEqual(['💻 terminal: make\n💻 terminal: make test']);
    expect(adapter.edits).toHaveLength(1);
    expect(vi.getTimerCount()).toBe(0);
    await progress.finish(); // idempotent
  });

  it('shows a line per distinct tool in mode new', async () => {
    const { adapter, progress } = setup('new');
    progress.update(started('terminal', 'ls'));
    progress.update(started('web_search', 'hermes agent', '🔍'));
    progress.update(started('terminal', 'pwd'));
    progress.update(started('terminal', 'git  status\n--short'));
    await progress.finish();
    expect(adapter.texts()).toEqual(['💻 terminal: git status --short (×3)\n🔍 web_search: hermes agent']);
    expect(adapter.sent).toHaveLength(1);
  });

  it('ignores events that are not tool starts', async () => {
    const { adapter, progress } = setup('all');
    progress.update({ kind: 'text_delta', text: 'Hello' });
    progress.update({ kind: 'model_retry', attempt: 1, delayMs: 10, reason: 'x' });
    await progress.finish();
    expect(adapter.sent).toEqual([]);
  });

  it('shows nothing in mode off or where messages cannot be edited', async () => {
    for (const [mode, limits] of [
      ['off', {}],
      ['all', { supportsEdit: false }],
    ] as const) {
      const { adapter, progress } = setup(mode, limits);
      progress.update(started('terminal', 'ls'));
      await progress.finish();
      expect(adapter.sent).toEqual([]);
    }
  });

  it('keeps the newest lines that fit the message limit', async () => {
    const { adapter, progress } = setup('all', { maxMessageLength: 60 });
    for (let index = 0; index < 10; index += 1) progress.update(started('terminal', `cmd ${index}`));
    await progress.finish();
    const [text] = adapter.texts();
    expect(text?.length).toBeLessThanOrEqual(60);
    expect(text?.split('\n')[0]).toMatch(/^… \d+ earlier$/);
    expect(text?.endsWith('💻 terminal: cmd 9')).toBe(true);
  });

  it('shortens long previews', async () => {
    const { adapter, progress } = setup('all');
    progress.update(started('terminal', 'x'.repeat(200)));
    await progress.finish();
    expect(adapter.texts()[0]).toBe(`💻 terminal: ${'x'.repeat(59)}…`);
  });

  it('waits out a rate limit on an edit, and stops after the message disappeared', async () => {
    const { adapter, progress } = setup('all');
    progress.update(started('terminal', 'one'));
    await vi.advanceTimersByTimeAsync(0);
    adapter.failNext({ on: 'edit', code: 'rate_limited', retryAfterMs: 5000 });
    progress.update(started('terminal', 'two'));
    await vi.advanceTimersByTimeAsync(1500); // edit refused: rate limited
    expect(adapter.edits).toHaveLength(0);
    await vi.advanceTimersByTimeAsync(4999);
    expect(adapter.edits).toHaveLength(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(adapter.texts()).toEqual(['💻 terminal: one\n💻 terminal: two']);

    adapter.failNext({ on: 'edit', code: 'not_found' });
    progress.update(started('terminal', 'three'));
    await vi.advanceTimersByTimeAsync(1500);
    progress.update(started('terminal', 'four'));
    await progress.finish();
    expect(adapter.edits).toHaveLength(1);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('gives up quietly when the first message cannot be sent', async () => {
    const { adapter, progress } = setup('all');
    adapter.failNext({ code: 'forbidden' });
    progress.update(started('terminal', 'one'));
    await vi.advanceTimersByTimeAsync(0);
    progress.update(started('terminal', 'two'));
    await progress.finish();
    expect(adapter.sent).toEqual([]);
  });
});
