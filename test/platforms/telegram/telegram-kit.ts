import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Fastify, { type FastifyInstance } from 'fastify';
import { type Logger, pino } from 'pino';
import type { Config } from '../../../src/config/config-schema.js';
import type { InboundEvent, InboundResult } from '../../../src/platforms/adapter.js';
import {
  createTelegramAdapter,
  type TelegramAdapter,
} from '../../../src/platforms/telegram/create-telegram-adapter.js';
import type { WebhookHandler } from '../../../src/platforms/telegram/webhook-route.js';
import { type FakeTelegram, type FakeUser, startFakeTelegram } from '../../fakes/fake-telegram.js';
import { makeTempHome, testConfig } from '../../helpers/test-config.js';
import type { AdapterHarness, PlatformAck } from '../adapter-conformance.js';

export const ANN: FakeUser = { id: 4242, first_name: 'Ann', username: 'ann' };
export const WEBHOOK_SECRET = 'whs-0123456789abcdef';

/** Log lines written by a logger, as raw JSON text (what would reach a file or terminal). */
export interface CapturedLogs {
  readonly logger: Logger;
  readonly lines: string[];
}

/** A pino logger without any redaction of its own, so tests see exactly what the adapter logs. */
export function captureLogs(): CapturedLogs {
  const lines: string[] = [];
  const logger = pino({ level: 'debug' }, { write: (line: string) => void lines.push(line) });
  return { logger, lines };
}

export interface TelegramSetup {
  readonly fake: FakeTelegram;
  readonly adapter: TelegramAdapter;
  readonly config: Config;
  readonly home: string;
  readonly logs: CapturedLogs;
  /** The server carrying `/telegram/webhook` (webhook mode). */
  readonly app: FastifyInstance | undefined;
  close(): Promise<void>;
}

/**
 * A Telegram adapter on real grammY against a fresh fake Bot API, in polling or webhook mode
 * (then served by its own fastify on a random port). `yaml` goes under `platforms.telegram`.
 */
export async function setupTelegram(
  mode: 'polling' | 'webhook',
  options: { yaml?: string; fake?: FakeTelegram; home?: string; env?: Record<string, string> } = {},
): Promise<TelegramSetup> {
  const fake = options.fake ?? (await startFakeTelegram());
  const temp = options.home === undefined ? makeTempHome('hermes-tg-') : undefined;
  const home = options.home ?? temp?.home ?? '';
  if (options.yaml !== undefined) {
    writeFileSync(join(home, 'config.yaml'), `platforms:\n  telegram:\n${options.yaml}\n`);
  }
  const config = testConfig(home, {
    TELEGRAM_BOT_TOKEN: fake.token,
    TELEGRAM_API_ROOT: `${fake.apiRoot}/`,
    ...options.env,
  });
  const logs = captureLogs();
  let app: FastifyInstance | undefined;
  let webhookUrl: string | undefined;
  let bound: WebhookHandler | undefined;
  if (mode === 'webhook') {
    app = Fastify();
    app.post('/telegram/webhook', (request, reply) =>
      bound === undefined ? reply.code(503).send() : bound(request, reply),
    );
    webhookUrl = `${await app.listen({ host: '127.0.0.1', port: 0 })}/telegram/webhook`;
  }
  const adapter = createTelegramAdapter({
    config,
    logger: logs.logger,
    token: fake.token,
    mode,
    backoffMs: 20,
    ...(webhookUrl !== undefined ? { webhookUrl, webhookSecret: WEBHOOK_SECRET } : {}),
  });
  bound = adapter.handleWebhook;
  return {
    fake,
    adapter,
    config,
    home,
    logs,
    app,
    async close() {
      await adapter.stop();
      await app?.close();
      if (options.fake === undefined) await fake.close();
      temp?.cleanup();
    },
  };
}

/** The conformance suite's view of a Telegram adapter and its fake Bot API. */
export async function telegramHarness(mode: 'polling' | 'webhook'): Promise<AdapterHarness> {
  const setup = await setupTelegram(mode);
  const { fake } = setup;
  let last: number | undefined;
  let attempt = 0;
  const emitted = async (updateId: number): Promise<PlatformAck> => {
    last = updateId;
    attempt = 1;
    return fake.outcome(updateId, 1);
  };
  const opMethod = { send: 'sendMessage', prompt: 'sendMessage', edit: 'editMessageText' } as const;
  return {
    adapter: setup.adapter,
    chat: { chatId: String(ANN.id), chatType: 'dm' },
    userId: String(ANN.id),
    missingMessageId: '999999',
    emitText: (text) => emitted(fake.sendText({ chatId: ANN.id, from: ANN, text })),
    emitAction: (messageId, data) => emitted(fake.click({ messageId: Number(messageId), from: ANN, data })),
    redeliverLast: async () => {
      if (last === undefined) throw new Error('nothing emitted yet');
      fake.redeliver(last);
      attempt += 1;
      return fake.outcome(last, attempt);
    },
    shownMessage: async (messageId) => {
      const message = fake.message(Number(messageId));
      return message === undefined
        ? undefined
        : {
            text: message.text,
            choices: message.buttons.flat().map((b) => ({ label: b.text, data: b.data })),
          };
    },
    typingShown: async () => fake.callsOf('sendChatAction').length,
    actionNotices: async () =>
      fake
        .callsOf('answerCallbackQuery')
        .map((call) => call.payload['text'])
        .filter((text): text is string => typeof text === 'string'),
    commandMenu: async () => fake.commands?.map((c) => ({ name: c.command, description: c.description })),
    rateLimitNext: async (op, retryAfterMs) =>
      fake.failNext(opMethod[op], {
        code: 429,
        description: `Too Many Requests: retry after ${retryAfterMs / 1000}`,
        retryAfter: retryAfterMs / 1000,
      }),
    close: () => setup.close(),
  };
}

/** A sink that records events and answers as told (accepted by default). */
export function recordingSink() {
  const events: InboundEvent[] = [];
  let answer: (event: InboundEvent) => Promise<InboundResult> = async () => ({ status: 'accepted' });
  return {
    events,
    answerWith(next: (event: InboundEvent) => Promise<InboundResult>) {
      answer = next;
    },
    sink: async (event: InboundEvent): Promise<InboundResult> => {
      events.push(event);
      return answer(event);
    },
  };
}

/** A promise with its resolve function, to hold a sink call until the test lets it go. */
export function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve: () => void = () => undefined;
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}
