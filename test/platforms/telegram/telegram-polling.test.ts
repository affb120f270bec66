import { afterEach, describe, expect, it } from 'vitest';
import { createTelegramAdapter } from '../../../src/platforms/telegram/create-telegram-adapter.js';
import { sanitizeText } from '../../../src/platforms/telegram/telegram-errors.js';
import type { FakeUser } from '../../fakes/fake-telegram.js';
import { waitFor } from '../../gateway/e2e/gateway-kit.js';
import { makeTempHome, testConfig } from '../../helpers/test-config.js';
import {
  ANN,
  captureLogs,
  deferred,
  recordingSink,
  setupTelegram,
  type TelegramSetup,
} from './telegram-kit.js';

const BEN: FakeUser = { id: 5353, first_name: 'Ben' };

describe('telegram long polling', () => {
  let setup: TelegramSetup | undefined;
  afterEach(async () => {
    const lines = setup?.logs.lines ?? [];
    const token = setup?.fake.token ?? '';
    await setup?.close();
    setup = undefined;
    for (const line of lines) expect(line).not.toContain(token);
  });

  async function polling(yaml?: string) {
    setup = await setupTelegram('polling', yaml !== undefined ? { yaml } : {});
    const recorder = recordingSink();
    return { ...setup, recorder };
  }

  it('deletes a webhook when it starts, then confirms updates only once the gateway took them', async () => {
    const { fake, adapter, recorder } = await polling();
    await fetch(`${fake.apiRoot}/bot${fake.token}/setWebhook`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ url: 'https://old.example/hook' }),
    });
    let calls = 0;
    recorder.answerWith(async () => {
      calls += 1;
      if (calls === 1) throw new Error('store is down');
      return { status: 'accepted' };
    });
    await adapter.start(recorder.sink);
    expect(fake.callsOf('deleteWebhook')).toHaveLength(1);
    expect(fake.webhook).toBeUndefined();
    const first = fake.sendText({ chatId: ANN.id, from: ANN, text: 'one' });
    expect(await fake.outcome(first, 1)).toBe('not_acknowledged');
    expect(await fake.outcome(first, 2)).toBe('acknowledged');
    const second = fake.sendText({ chatId: ANN.id, from: ANN, text: 'two' });
    expect(await fake.outcome(second, 1)).toBe('acknowledged');
    expect(recorder.events.map((e) => e.eventId)).toEqual([String(first), String(first), String(second)]);
    expect(fake.attempts(first)).toBe(2);
    const offsets = fake.callsOf('getUpdates').map((c) => c.payload['offset']);
    expect(offsets).toContain(second + 1);
  });

  it('skips an update that keeps failing after max_update_failures, and logs it', async () => {
    const { fake, adapter, recorder, logs } = await polling('    max_update_failures: 2');
    recorder.answerWith(async (event) => {
      if (event.kind === 'message' && event.text === 'poison') throw new Error('cannot store this');
      return { status: 'accepted' };
    });
    await adapter.start(recorder.sink);
    const bad = fake.sendText({ chatId: ANN.id, from: ANN, text: 'poison' });
    const good = fake.sendText({ chatId: BEN.id, from: BEN, text: 'fine' });
    expect(await fake.outcome(bad, 2)).toBe('acknowledged');
    // The other chat's update was handled at once but confirmed only with the one below it.
    await waitFor(() => fake.callsOf('getUpdates').some((c) => c.payload['offset'] === good + 1));
    expect(recorder.events.filter((e) => e.kind === 'message' && e.text === 'fine')).toHaveLength(1);
    expect(logs.lines.some((l) => l.includes('skipped after repeated failures'))).toBe(true);
    expect(fake.attempts(bad)).toBe(2);
  });

  it('keeps order within a chat, lets other chats and button presses pass a slow one, and hands nothing over twice', async () => {
    const { fake, adapter, recorder } = await polling();
    const hold = deferred();
    recorder.answerWith(async (event) => {
      if (event.kind === 'message' && event.text === 'slow') await hold.promise;
      return { status: 'accepted' };
    });
    await adapter.start(recorder.sink);
    const slow = fake.sendText({ chatId: ANN.id, from: ANN, text: 'slow' });
    await waitFor(() => recorder.events.length === 1);
    const after = fake.sendText({ chatId: ANN.id, from: ANN, text: 'after' });
    const other = fake.sendText({ chatId: BEN.id, from: BEN, text: 'other chat' });
    const click = fake.click({ messageId: 1, from: ANN, data: 'ea:once:abcd1234' });
    expect(await fake.outcome(other)).toBe('not_acknowledged'); // still below the slow one's offset
    try {
      await waitFor(() => recorder.events.length === 3);
      const ids = recorder.events.map((e) => e.eventId);
      expect(ids[0]).toBe(String(slow));
      expect(new Set(ids.slice(1))).toEqual(new Set([String(other), String(click)]));
      // The poll returned the slow update again while it was in flight: it is not handed over twice.
      await waitFor(() => fake.attempts(slow) >= 2);
    } finally {
      hold.resolve();
    }
    await waitFor(() => recorder.events.length === 4);
    await waitFor(() => fake.callsOf('getUpdates').some((c) => c.payload['offset'] === click + 1));
    expect(recorder.events.map((e) => e.eventId).at(-1)).toBe(String(after));
    expect(recorder.events).toHaveLength(4);
  });

  it('reports a 409 conflict clearly, keeps retrying, and recovers without crashing', async () => {
    const { fake, adapter, recorder, logs } = await polling();
    fake.failNext('getUpdates', {
      code: 409,
      description:
        'Conflict: terminated by other getUpdates request; make sure that only one bot instance is running',
      times: 1_000,
    });
    await adapter.start(recorder.sink);
    await waitFor(async () => (await adapter.health()).ok === false);
    expect((await adapter.health()).reason).toMatch(/another instance is polling/);
    const conflictLines = logs.lines.filter((l) => l.includes('another instance is polling'));
    expect(conflictLines).toHaveLength(1);
    fake.clearFailures();
    const id = fake.sendText({ chatId: ANN.id, from: ANN, text: 'still there?' });
    expect(await fake.outcome(id)).toBe('acknowledged');
    await waitFor(async () => (await adapter.health()).ok);
  });

  it('keeps the token out of logs and error texts when Telegram cannot be reached', async () => {
    const { home, cleanup } = makeTempHome();
    const token = '987654321:AAsecretTokenThatMustNeverLeak_abcdef';
    const logs = captureLogs();
    const adapter = createTelegramAdapter({
      config: testConfig(home, { TELEGRAM_BOT_TOKEN: token }),
      logger: logs.logger,
      token,
      apiRoot: 'http://127.0.0.1:1',
      mode: 'polling',
      backoffMs: 10,
    });
    try {
      await adapter.start(recordingSink().sink);
      const health = await adapter.health();
      expect(health.ok).toBe(false);
      const error = await adapter.sendText({ chatId: '42' }, { text: 'hi' }).catch((e: unknown) => e);
      expect(error).toMatchObject({ code: 'unavailable', maybeDelivered: false });
      expect(String((error as Error).message)).not.toContain(token);
      expect(JSON.stringify(error)).not.toContain(token);
      await waitFor(() => logs.lines.length >= 1);
      for (const line of logs.lines) expect(line).not.toContain(token);
      expect(health.reason).not.toContain(token);
    } finally {
      await adapter.stop();
      cleanup();
    }
  });

  it('sanitizes token-bearing URLs in error texts', () => {
    const token = '111:AAbbb';
    expect(sanitizeText(`request to http://h/bot${token}/getMe failed (${token})`, token)).toBe(
      'request to http://h/bot[redacted]/getMe failed ([redacted])',
    );
    expect(sanitizeText('GET /botXYZ:abc/file/x', 'other')).toBe('GET /bot[redacted]/file/x');
  });
});
