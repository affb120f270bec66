import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from '../../../src/config/config-schema.js';
import type { InboundEvent } from '../../../src/platforms/adapter.js';
import {
  createDiscordAdapter,
  type DiscordAdapter,
  type DiscordAdapterOptions,
} from '../../../src/platforms/discord/create-discord-adapter.js';
import type { AttemptOutcome } from '../../../src/platforms/discord/event-dispatcher.js';
import { type FakeDiscord, type FakeDiscordOptions, startFakeDiscord } from '../../fakes/fake-discord.js';
import { makeTempHome, testConfig } from '../../helpers/test-config.js';
import { type AdapterHarness, type PlatformAck, runAdapterConformance } from '../adapter-conformance.js';
import { type CapturedLogs, captureLogs, recordingSink } from '../telegram/telegram-kit.js';

export { captureLogs, recordingSink };

/** No 5-second pause between two IDENTIFYs (discord.js' default throttle), so a re-identify is quick. */
export const NO_IDENTIFY_THROTTLE = {
  ws: { buildIdentifyThrottler: () => ({ waitForIdentify: async () => undefined }) },
} as const;

export interface DiscordSetup {
  readonly fake: FakeDiscord;
  readonly adapter: DiscordAdapter;
  readonly config: Config;
  readonly home: string;
  readonly logs: CapturedLogs;
  /** Every hand-over attempt the adapter reported, in order. */
  readonly attempts: { eventId: string; outcome: AttemptOutcome }[];
  close(): Promise<void>;
}

/**
 * A Discord adapter on real discord.js against a fresh fake Discord (REST + gateway). `yaml` goes
 * under `platforms.discord`; `env` adds environment settings.
 */
export async function setupDiscord(
  options: {
    yaml?: string;
    env?: Record<string, string>;
    fake?: FakeDiscord;
    fakeOptions?: FakeDiscordOptions;
    adapter?: Partial<DiscordAdapterOptions>;
  } = {},
): Promise<DiscordSetup> {
  const fake = options.fake ?? (await startFakeDiscord({ heartbeatIntervalMs: 250, ...options.fakeOptions }));
  const temp = makeTempHome('hermes-dc-');
  if (options.yaml !== undefined) {
    writeFileSync(join(temp.home, 'config.yaml'), `platforms:\n  discord:\n${options.yaml}\n`);
  }
  const config = testConfig(temp.home, {
    DISCORD_BOT_TOKEN: fake.token,
    DISCORD_API_ROOT: fake.apiRoot,
    ...options.env,
  });
  const logs = captureLogs();
  const attempts: { eventId: string; outcome: AttemptOutcome }[] = [];
  const adapter = createDiscordAdapter({
    config,
    logger: logs.logger,
    token: fake.token,
    backoffMs: 20,
    startWaitMs: 5_000,
    clientOptions: NO_IDENTIFY_THROTTLE,
    observe: (eventId, outcome) => attempts.push({ eventId, outcome }),
    ...options.adapter,
  });
  return {
    fake,
    adapter,
    config,
    home: temp.home,
    logs,
    attempts,
    async close() {
      await adapter.stop();
      if (options.fake === undefined) await fake.close();
      temp.cleanup();
    },
  };
}

/** The adapter's first reported outcome for `eventId` after `from` attempts were seen. */
export async function outcomeOf(setup: DiscordSetup, eventId: string, from: number): Promise<PlatformAck> {
  const seen = await poll(
    () => setup.attempts.slice(from).find((a) => a.eventId === eventId),
    `a hand-over of ${eventId}`,
  );
  return seen.outcome === 'failed' ? 'not_acknowledged' : 'acknowledged';
}

/** `probe`'s first truthy value (awaited), checked every 10 ms (for state outside the fake). */
export async function poll<T>(
  probe: () => T | undefined | null | false | '' | 0 | Promise<T | undefined | null | false | '' | 0>,
  what: string,
  timeoutMs = 5000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`waited ${timeoutMs} ms for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** The conformance suite's view of the Discord adapter and its fake (alice in her DM with the bot). */
export async function discordHarness(): Promise<AdapterHarness> {
  const setup = await setupDiscord({ env: { DISCORD_COMMAND_SYNC: 'guild' } });
  const { fake } = setup;
  const alice = fake.seed.users.alice;
  const dm = fake.dmChannel(alice.id);
  let last: { eventId: string; redeliver: () => void } | undefined;
  const opRoute = {
    send: 'POST /channels/:channel_id/messages',
    prompt: 'POST /channels/:channel_id/messages',
    edit: 'PATCH /channels/:channel_id/messages/:message_id',
  } as const;
  const emitMessage = async (text: string): Promise<PlatformAck> => {
    const from = setup.attempts.length;
    const message = fake.dm({ authorId: alice.id, content: text });
    const payload = fake.gateway.dispatches.filter((d) => d.t === 'MESSAGE_CREATE').at(-1)?.d;
    last = { eventId: message.id, redeliver: () => fake.dispatch('MESSAGE_CREATE', payload) };
    return outcomeOf(setup, message.id, from);
  };
  return {
    adapter: setup.adapter,
    chat: { chatId: dm.id, chatType: 'dm' },
    userId: alice.id,
    missingMessageId: '1000000000000000001',
    emitText: emitMessage,
    emitAction: async (messageId, data) => {
      const from = setup.attempts.length;
      const click = fake.click({ messageId, userId: alice.id, customId: data });
      last = { eventId: click.id, redeliver: () => undefined };
      await fake.waitFor(() => click.acknowledged, 'the click acknowledged');
      return outcomeOf(setup, click.id, from);
    },
    redeliverLast: async () => {
      if (last === undefined) throw new Error('nothing emitted yet');
      const from = setup.attempts.length;
      last.redeliver();
      return outcomeOf(setup, last.eventId, from);
    },
    shownMessage: async (messageId) => {
      const message = fake.message(messageId);
      if (message === undefined || message.deleted) return undefined;
      const embed = message.embeds[0] as { description?: string } | undefined;
      return {
        text: message.content !== '' ? message.content : (embed?.description ?? ''),
        choices: fake.buttons(messageId).map((b) => ({ label: b.label ?? '', data: b.customId ?? '' })),
      };
    },
    typingShown: async () => fake.typing(dm.id).length,
    actionNotices: async () =>
      fake
        .messages(dm.id, alice.id)
        .filter((m) => m.ephemeralTo === alice.id)
        .map((m) => m.content),
    commandMenu: async () => {
      await fake.waitFor(() => fake.commands(fake.seed.guildId).length > 0, 'guild commands');
      return fake.commands(fake.seed.guildId).map((c) => ({ name: c.name, description: c.description }));
    },
    rateLimitNext: async (op, retryAfterMs) =>
      fake.failNext(opRoute[op], { status: 429, retryAfter: retryAfterMs / 1000 }),
    close: () => setup.close(),
  };
}

export type { InboundEvent };
export { runAdapterConformance };
