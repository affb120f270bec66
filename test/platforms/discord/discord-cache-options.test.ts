import { ChannelType, Client, type DMChannel, type User } from 'discord.js';
import { afterEach, describe, expect, it } from 'vitest';
import {
  DISCORD_CACHED_USERS,
  discordCacheOptions,
} from '../../../src/platforms/discord/discord-cache-options.js';

/** discord.js's own managers, fed the way its gateway handlers feed them (`_add` is internal). */
interface Adds<T> {
  _add(data: unknown): T;
}

const id = (n: number) => String(100_000_000_000_000_000n + BigInt(n));

describe('discordCacheOptions', () => {
  let client: Client | undefined;
  afterEach(async () => {
    await client?.destroy();
  });

  function messageData(n: number, channelId: string) {
    return {
      id: id(500_000 + n),
      channel_id: channelId,
      author: { id: id(n), username: `user${n}`, discriminator: '0' },
      content: 'x'.repeat(4_000),
      timestamp: new Date(0).toISOString(),
      type: 0,
      mentions: [],
      attachments: [],
      embeds: [],
    };
  }

  /** A DM channel, then as many users and messages as the bound plus 500, as gateway events add them. */
  function fill(options: ConstructorParameters<typeof Client>[0]): DMChannel {
    client = new Client(options);
    const channel = (client.channels as unknown as Adds<DMChannel>)._add({
      id: id(900_000),
      type: ChannelType.DM,
      recipients: [{ id: id(1), username: 'user1', discriminator: '0' }],
    });
    const users = client.users as unknown as Adds<User>;
    const messages = channel.messages as unknown as Adds<unknown>;
    for (let n = 0; n < DISCORD_CACHED_USERS + 500; n += 1) {
      users._add(messageData(n, channel.id).author);
      messages._add(messageData(n, channel.id));
    }
    return channel;
  }

  it('keeps no message and a bounded number of users, however many arrive', () => {
    const channel = fill({ intents: [], ...discordCacheOptions() });
    expect(channel.messages.cache.size).toBe(0);
    expect(client?.users.cache.size).toBe(DISCORD_CACHED_USERS);
    // The newest stay: the author of the message being read is always there.
    expect(client?.users.cache.has(id(DISCORD_CACHED_USERS + 499))).toBe(true);
  });

  it("discord.js's defaults would have kept them (the test measures something)", () => {
    const channel = fill({ intents: [] });
    expect(channel.messages.cache.size).toBe(200);
    expect(client?.users.cache.size).toBeGreaterThan(DISCORD_CACHED_USERS);
  });
});
