import { afterEach, describe, expect, it } from 'vitest';
import { type FakeOpenAi, startFakeOpenAi } from '../fakes/fake-openai.js';
import { type FakeFailure, type FakeTelegram, startFakeTelegram } from '../fakes/fake-telegram.js';
import { deleteKeys, type QueueMode, waitFor } from '../gateway/e2e/gateway-kit.js';
import {
  removeDirs,
  startTelegramGateway,
  type TelegramGateway,
  telegramHome,
} from '../platforms/telegram/telegram-gateway-kit.js';

const USERS = [7101, 7102, 7103, 7104, 7105];
const YAML = ['gateway:', `  allowed_users: [${USERS.map((id) => `"telegram:${id}"`).join(', ')}]`].join(
  '\n',
);

/**
 * The platform fails the answer's send in each way Telegram does: 429 with `retry_after`, 500s,
 * a slow answer, and a send carried out whose connection drops before the answer. Every message
 * gets its answer; only the dropped send may show twice (the bot cannot know it went through, and
 * Telegram has no idempotency key: a possible duplicate beats a silent loss, see
 * docs/operations-delivery.md).
 */
describe.each<QueueMode>(['embedded', 'bullmq'])('platform faults on the answer send (%s)', (mode) => {
  let model: FakeOpenAi | undefined;
  let fake: FakeTelegram | undefined;
  let running: TelegramGateway | undefined;
  let dirs: ReturnType<typeof telegramHome> | undefined;

  afterEach(async () => {
    await running?.gw.stop();
    await fake?.close();
    await model?.close();
    if (dirs !== undefined) {
      removeDirs(dirs.home, dirs.workdir);
      if (mode === 'bullmq') await deleteKeys(`${dirs.redisPrefix}*`);
    }
  });

  it('answers every message, once unless the send was dropped after it went through', async () => {
    model = await startFakeOpenAi();
    model.respond = (request) => {
      const messages = request.body['messages'] as { role: string; content: unknown }[];
      const text = String([...messages].reverse().find((m) => m.role === 'user')?.content ?? '');
      return { content: `answer to ${/m-\d+/.exec(text)?.[0] ?? '?'}` };
    };
    fake = await startFakeTelegram();
    dirs = telegramHome(YAML);
    const faults: Record<number, FakeFailure> = {
      7101: { code: 429, description: 'Too Many Requests: retry after 1', retryAfter: 1 },
      7102: { code: 500, description: 'Internal Server Error', times: 2 },
      7103: { code: 0, description: 'slow', delayMs: 2_000 },
      7104: { code: 0, description: 'dropped', dropAfterAccept: true },
    };
    for (const [chat, failure] of Object.entries(faults)) {
      fake.failNext('sendMessage', {
        ...failure,
        when: (payload) =>
          Number(payload['chat_id']) === Number(chat) && String(payload['text']).startsWith('answer'),
      });
    }
    running = await startTelegramGateway({ fake, model, mode, ...dirs });
    const telegram = fake;
    const answers = (chat: number) =>
      telegram
        .messages(chat)
        .map((m) => m.text)
        .filter((text) => text.startsWith('answer') || text.startsWith('⚠️'));
    USERS.forEach((id, index) => {
      telegram.sendText({ chatId: id, from: { id, first_name: `U${index}` }, text: `hello m-${index}` });
    });
    await waitFor(() => USERS.every((id) => answers(id).length > 0), 30_000);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    // The faults were hit: the refused and the dropped sends were tried again.
    const sends = (chat: number) =>
      telegram.callsOf('sendMessage').filter((call) => Number(call.payload['chat_id']) === chat).length;
    for (const chat of [7101, 7102, 7104]) expect(sends(chat), `sends to ${chat}`).toBeGreaterThan(1);
    USERS.forEach((id, index) => {
      const got = answers(id);
      expect(got[0], `chat ${id}`).toBe(`answer to m-${index}`);
      if (id === 7104) expect(got.length, 'the dropped send').toBeLessThanOrEqual(2);
      else expect(got, `chat ${id}`).toEqual([`answer to m-${index}`]);
    });
  }, 60_000);
});
