/** Real discord.js clients against the fake, for the fake's own tests; every client is destroyed. */
import { once } from 'node:events';
import {
  ChannelType,
  Client,
  type ClientEvents,
  type ClientOptions,
  Events,
  GatewayIntentBits,
  Partials,
  type TextChannel,
} from 'discord.js';
import { type FakeDiscord, type FakeDiscordOptions, startFakeDiscord } from '../fake-discord.js';

/** The intents the Discord adapter asks for (issue 22): guilds, guild messages, content, DMs. */
export const ADAPTER_INTENTS = [
  GatewayIntentBits.Guilds,
  GatewayIntentBits.GuildMessages,
  GatewayIntentBits.MessageContent,
  GatewayIntentBits.DirectMessages,
];

export interface DiscordKit {
  fake: FakeDiscord;
  /** A client on the fake (not logged in); destroyed by `close`. */
  client(options?: Partial<ClientOptions>): Client;
  /** A client logged in and past ClientReady. */
  ready(options?: Partial<ClientOptions>): Promise<Client>;
  /** `error` and `shardError` events of every client (a healthy run has none). */
  readonly clientErrors: Error[];
  /** Client errors and errors the fake threw itself: what a clean test leaves empty. */
  problems(): unknown[];
  close(): Promise<void>;
}

export async function startDiscordKit(options: FakeDiscordOptions = {}): Promise<DiscordKit> {
  const fake = await startFakeDiscord({ heartbeatIntervalMs: 250, ...options });
  const clients: Client[] = [];
  const clientErrors: Error[] = [];
  const client = (overrides: Partial<ClientOptions> = {}) => {
    const made = new Client({
      intents: ADAPTER_INTENTS,
      partials: [Partials.Channel],
      ...overrides,
      rest: { api: fake.apiRoot, ...overrides.rest },
    });
    made.on(Events.Error, (error) => clientErrors.push(error));
    made.on(Events.ShardError, (error) => clientErrors.push(error));
    clients.push(made);
    return made;
  };
  return {
    fake,
    client,
    clientErrors,
    problems: () => [...fake.internalErrors, ...clientErrors],
    async ready(overrides) {
      const made = client(overrides);
      const ready = once(made, Events.ClientReady);
      await made.login(fake.token);
      await ready;
      return made;
    },
    async close() {
      for (const made of clients) await made.destroy();
      await fake.close();
    },
  };
}

/** The next `event` of a client that `filter` accepts, with its arguments (rejects after `timeoutMs`). */
export function next<K extends keyof ClientEvents>(
  client: Client,
  event: K,
  filter: (...args: ClientEvents[K]) => boolean = () => true,
  timeoutMs = 5000,
): Promise<ClientEvents[K]> {
  return new Promise((resolve, reject) => {
    const listener = (...args: ClientEvents[K]) => {
      if (!filter(...args)) return;
      clearTimeout(timer);
      client.off(event, listener);
      resolve(args);
    };
    const timer = setTimeout(() => {
      client.off(event, listener);
      reject(new Error(`no ${String(event)} within ${timeoutMs} ms`));
    }, timeoutMs);
    client.on(event, listener);
  });
}

/** A guild text channel from the client's cache (throws when it is not one). */
export function textChannel(client: Client, channelId: string): TextChannel {
  const channel = client.channels.cache.get(channelId);
  if (channel?.type !== ChannelType.GuildText)
    throw new Error(`channel ${channelId} is not a cached text channel`);
  return channel;
}

/** One action row of primary buttons as raw JSON (discord.js' builders would refuse the bad ones first). */
export function buttonRow(...ids: string[]) {
  return [
    { type: 1, components: ids.map((id) => ({ type: 2, style: 1, custom_id: id, label: id.slice(0, 80) })) },
  ];
}
