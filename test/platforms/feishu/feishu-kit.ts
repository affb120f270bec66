import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Fastify, { type FastifyInstance } from 'fastify';
import type { Config } from '../../../src/config/config-schema.js';
import {
  createFeishuAdapter,
  type FeishuAdapter,
} from '../../../src/platforms/feishu/create-feishu-adapter.js';
import { feishuSettings } from '../../../src/platforms/feishu/feishu-settings.js';
import { FEISHU_WEBHOOK_PREFIX } from '../../../src/platforms/feishu/webhook-route.js';
import type { Ingress } from '../../../src/platforms/ingress.js';
import {
  type CallbackResponse,
  type DeliverOptions,
  type FakeLark,
  type FakeLarkOptions,
  type LarkEventEnvelope,
  rateLimited,
  startFakeLark,
} from '../../fakes/fake-lark.js';
import { makeTempHome, testConfig } from '../../helpers/test-config.js';
import type { AdapterHarness, PlatformAck } from '../adapter-conformance.js';
import { type CapturedLogs, captureLogs } from '../telegram/telegram-kit.js';

export type FeishuMode = 'webhook' | 'websocket';

export interface FeishuSetup {
  readonly fake: FakeLark;
  readonly adapter: FeishuAdapter;
  readonly config: Config;
  readonly home: string;
  readonly logs: CapturedLogs;
  /** `http://127.0.0.1:port/feishu/webhook` (webhook mode). */
  readonly webhookUrl: string | undefined;
  /** Delivers an event the way the mode does; `acknowledged` when Lark would consider it taken. */
  deliver(
    payload: object,
    options?: DeliverOptions,
  ): Promise<{ ack: PlatformAck; response?: CallbackResponse }>;
  close(): Promise<void>;
}

/** The fake Lark of a mode: webhook deliveries encrypted and signed; quick reconnects. */
export function fakeOptions(mode: FeishuMode): FakeLarkOptions {
  return {
    ...(mode === 'webhook' ? { encryptKey: 'feishu-test-encrypt-key' } : {}),
    wsClientConfig: { ReconnectNonce: 0, ReconnectInterval: 0.05 },
  };
}

/** The env naming a fake Lark app (webhook mode checks both the encrypt key and the token). */
export function feishuEnv(fake: FakeLark, mode: FeishuMode): Record<string, string> {
  return {
    FEISHU_APP_ID: fake.appId,
    FEISHU_APP_SECRET: fake.appSecret,
    FEISHU_DOMAIN: fake.domain,
    FEISHU_CONNECTION_MODE: mode,
    FEISHU_VERIFICATION_TOKEN: fake.verificationToken,
    ...(fake.encryptKey !== undefined ? { FEISHU_ENCRYPT_KEY: fake.encryptKey } : {}),
  };
}

/**
 * A Feishu adapter on the real SDK against a fresh fake Lark: webhook mode served by its own
 * fastify on a random port, or the long connection. `yaml` goes under `platforms.feishu`.
 */
export async function setupFeishu(
  mode: FeishuMode,
  options: {
    yaml?: string;
    env?: Record<string, string>;
    fake?: FakeLarkOptions;
    /** A fake started by the test (its users known before the config); closed by the test. */
    lark?: FakeLark;
  } = {},
): Promise<FeishuSetup> {
  const fake = options.lark ?? (await startFakeLark(options.fake ?? fakeOptions(mode)));
  const temp = makeTempHome('hermes-feishu-');
  if (options.yaml !== undefined) {
    writeFileSync(join(temp.home, 'config.yaml'), `platforms:\n  feishu:\n${options.yaml}\n`);
  }
  const config = testConfig(temp.home, { ...feishuEnv(fake, mode), ...options.env });
  const settings = feishuSettings(config);
  if (settings === undefined) throw new Error('feishu not configured');
  const logs = captureLogs();
  const adapter = createFeishuAdapter({ config, settings, logger: logs.logger, backoffMs: 20 });
  let app: FastifyInstance | undefined;
  let webhookUrl: string | undefined;
  if (mode === 'webhook') {
    app = Fastify();
    const routes = adapter.routes;
    if (routes === undefined) throw new Error('webhook mode without routes');
    await app.register(
      async (scope) => {
        await routes.register(scope, { ingress: {} as Ingress, deliverToChat: undefined });
      },
      { prefix: FEISHU_WEBHOOK_PREFIX },
    );
    webhookUrl = `${await app.listen({ host: '127.0.0.1', port: 0 })}/feishu/webhook`;
  }
  return {
    fake,
    adapter,
    config,
    home: temp.home,
    logs,
    webhookUrl,
    async deliver(payload, deliverOptions) {
      if (webhookUrl !== undefined) {
        const response = await fake.deliverWebhook(webhookUrl, payload, deliverOptions);
        return { ack: response.status === 200 ? 'acknowledged' : 'not_acknowledged', response };
      }
      const ack = await fake.pushEvent(payload as LarkEventEnvelope);
      return { ack: ack.acknowledged && ack.code === 200 ? 'acknowledged' : 'not_acknowledged' };
    },
    async close() {
      await adapter.stop();
      await app?.close();
      if (options.lark === undefined) await fake.close();
      temp.cleanup();
    },
  };
}

const dataOf = (value: unknown): string =>
  typeof value === 'object' && value !== null && 'hermes' in value ? String(value.hermes) : '';

/** The conformance suite's view of a Feishu adapter and its fake Lark. */
export async function feishuHarness(mode: FeishuMode): Promise<AdapterHarness> {
  const setup = await setupFeishu(mode);
  const { fake } = setup;
  const ann = fake.user('Ann');
  const dm = fake.dm(ann);
  let last: object | undefined;
  const emit = async (payload: object): Promise<PlatformAck> => {
    last = payload;
    return (await setup.deliver(payload)).ack;
  };
  const route = { send: 'im.message.create', prompt: 'im.message.create', edit: 'im.message.patch' } as const;
  return {
    adapter: setup.adapter,
    chat: { chatId: dm.chatId, chatType: 'dm' },
    userId: ann.openId,
    missingMessageId: 'om_00000000000000000000000000000000',
    emitText: (text) => emit(fake.userSends({ from: ann, chat: dm, text }).event),
    emitAction: (messageId, data) =>
      emit(fake.clickEvent({ messageId, operator: ann, value: { hermes: data } })),
    redeliverLast: async () => {
      if (last === undefined) throw new Error('nothing emitted yet');
      return (await setup.deliver(last)).ack;
    },
    shownMessage: async (messageId) => {
      const message = fake.message(messageId);
      return message === undefined
        ? undefined
        : {
            text: message.text,
            choices: message.buttons.map((b) => ({ label: b.text, data: dataOf(b.value) })),
          };
    },
    typingShown: async () => 0,
    actionNotices: async () =>
      fake.clicks.map((click) => click.toast?.content).filter((text): text is string => text !== undefined),
    commandMenu: async () => undefined,
    rateLimitNext: async (op, retryAfterMs) => fake.failNext(route[op], rateLimited(retryAfterMs / 1000)),
    close: () => setup.close(),
  };
}
