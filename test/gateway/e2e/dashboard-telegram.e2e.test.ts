import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type FakeOpenAi, startFakeOpenAi } from '../../fakes/fake-openai.js';
import { type FakeTelegram, startFakeTelegram } from '../../fakes/fake-telegram.js';
import {
  removeDirs,
  startTelegramGateway,
  type TelegramGateway,
  telegramHome,
} from '../../platforms/telegram/telegram-gateway-kit.js';
import { ANN } from '../../platforms/telegram/telegram-kit.js';
import { waitFor } from './gateway-kit.js';
import { runsApi } from './runs-kit.js';

function terminalCall(command: string) {
  return { content: '', toolCalls: [{ name: 'terminal', arguments: JSON.stringify({ command }) }] };
}

describe('the operator dashboard and a chat platform (Telegram fake, embedded queue)', () => {
  let model: FakeOpenAi;
  let fake: FakeTelegram;
  let dirs: ReturnType<typeof telegramHome>;
  let running: TelegramGateway | undefined;

  beforeAll(async () => {
    model = await startFakeOpenAi();
  });
  afterAll(async () => {
    await model.close();
  });
  beforeEach(async () => {
    fake = await startFakeTelegram();
    dirs = telegramHome('gateway:\n  allowed_users: ["telegram:4242"]');
  });
  afterEach(async () => {
    await running?.gw.stop();
    running = undefined;
    await fake.close();
    removeDirs(dirs.home, dirs.workdir);
    model.reset();
  });

  async function start() {
    running = await startTelegramGateway({ fake, model, mode: 'embedded', ...dirs });
    // No dashboard token: the test's loopback client is the operator.
    return runsApi(`${running.gw.baseURL.replace(/\/v1$/, '')}/ui/api`);
  }

  it('shows a chat turn parked on a command; without a dashboard token the operator may deny it but not approve it, and the chat gets its answer', async () => {
    const ui = await start();
    mkdirSync(join(dirs.workdir, 'build'));
    model.script(terminalCall('rm -rf build'), { content: 'Kept the build folder.' });
    fake.sendText({ chatId: ANN.id, from: ANN, text: 'remove build' });
    await waitFor(() => fake.messages(ANN.id).some((m) => m.buttons.length > 0));
    const shown = fake.messages(ANN.id).find((m) => m.buttons.length > 0);
    const promptId = shown?.messageId ?? -1;
    const onceData = shown?.buttons[0]?.[0]?.data ?? '';
    const overview = (await ui.call('GET', '/overview')).body;
    const [approval] = overview['approvals'] as Array<Record<string, unknown>>;
    expect(approval).toMatchObject({
      command: 'rm -rf build',
      platform: 'telegram',
      chatId: String(ANN.id),
      userId: String(ANN.id),
    });
    const sessions = overview['sessions'] as Array<Record<string, unknown>>;
    expect(sessions).toEqual([
      expect.objectContaining({ platform: 'telegram', user: String(ANN.id), state: 'waiting_for_approval' }),
    ]);
    const health = overview['health'] as Array<Record<string, unknown>>;
    expect(health.find((check) => check['name'] === 'platform:telegram')).toMatchObject({ ok: true });

    // Loopback without a token could be the agent's own command: approving needs the token.
    const refused = await ui.call('POST', `/approvals/${String(approval?.['id'])}/decision`, {
      choice: 'once',
    });
    expect(refused.status).toBe(403);
    expect((refused.body['error'] as Record<string, unknown>)['type']).toBe('operator_token_required');
    // So does reading a conversation.
    const transcript = await ui.call(
      'GET',
      `/sessions/${encodeURIComponent(String(sessions[0]?.['key']))}/transcript`,
    );
    expect(transcript.status).toBe(403);
    const decided = await ui.call('POST', `/approvals/${String(approval?.['id'])}/decision`, {
      choice: 'deny',
    });
    expect(decided.body).toEqual({ status: 'recorded' });
    await waitFor(() => fake.messages(ANN.id).some((m) => m.text === 'Kept the build folder.'));
    expect(existsSync(join(dirs.workdir, 'build'))).toBe(true);
    // The prompt in the chat says who decided, and its buttons are gone; a stale press is refused.
    expect(fake.message(promptId)?.text).toMatch(/operator/);
    expect(fake.message(promptId)?.buttons).toEqual([]);
    const click = fake.click({ messageId: promptId, from: ANN, data: onceData });
    await fake.outcome(click);
    expect(fake.callsOf('answerCallbackQuery').at(-1)?.payload['text']).toMatch(/already decided/i);
  }, 60_000);

  it('shows a session as running while its turn runs', async () => {
    const ui = await start();
    model.script({ hang: true });
    fake.sendText({ chatId: ANN.id, from: ANN, text: 'think hard' });
    await waitFor(() => model.requests.length === 1);
    const sessions = (await ui.call('GET', '/sessions')).body['sessions'] as Array<Record<string, unknown>>;
    expect(sessions).toEqual([expect.objectContaining({ platform: 'telegram', state: 'running' })]);
    expect(((await ui.call('GET', '/health')).body['queue'] as Record<string, unknown>)['activeTurns']).toBe(
      1,
    );
  }, 60_000);
});
