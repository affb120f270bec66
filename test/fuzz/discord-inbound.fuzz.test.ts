import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { translateInteraction } from '../../src/platforms/discord/translate-interaction.js';
import { type FakeDiscord, startFakeDiscord } from '../fakes/fake-discord.js';
import { type FuzzGateway, startFuzzGateway } from './fuzz-gateway.js';
import {
  field,
  fuzzRuns,
  fuzzTimeout,
  hostileText,
  maybeHugeText,
  startFuzzWatch,
  wrongValue,
} from './fuzz-kit.js';

/**
 * Discord has no inbound HTTP endpoint here: events arrive over the gateway WebSocket. So the
 * fake Discord dispatches hostile MESSAGE_CREATE and INTERACTION_CREATE payloads to a real
 * gateway (discord.js plus our adapter), and `translateInteraction` gets raw payloads directly.
 * No crash or unhandled rejection, no stall, bounded memory, and a normal DM is still answered.
 */
const snowflake = fc.bigInt({ min: 1n, max: 2n ** 63n }).map(String);

describe('fuzz: Discord inbound events', () => {
  let discord: FakeDiscord;
  let kit: FuzzGateway;
  let alice: string;
  let dm: string;
  beforeAll(async () => {
    discord = await startFakeDiscord({ heartbeatIntervalMs: 250, keepDispatches: 50 });
    alice = discord.seed.users.alice.id;
    kit = await startFuzzGateway({ discord, allowedUsers: [`discord:${alice}`] });
    dm = discord.dmChannel(alice).id;
    await discord.waitFor(() => discord.calls.length > 0, 'the adapter connected');
  }, 60_000);
  afterAll(async () => {
    await kit?.close();
    await discord?.close();
  });

  // Discord never calls a person a bot: under Alice's id no `bot: true` (discord.js would keep it
  // in its user cache, and the closing DM would be skipped as a bot's, whatever the adapter does).
  const author = () =>
    fc.oneof(
      fc.record(
        { id: fc.constant(alice), username: field(hostileText), discriminator: field(hostileText) },
        { requiredKeys: ['id'] },
      ),
      fc.record(
        {
          id: field(snowflake),
          username: field(hostileText),
          bot: field(fc.boolean()),
          discriminator: field(hostileText),
        },
        { requiredKeys: [] },
      ),
    );
  const messageCreate = () =>
    fc.record(
      {
        id: field(snowflake),
        channel_id: field(fc.oneof(fc.constant(dm), snowflake)),
        guild_id: field(fc.option(snowflake, { nil: undefined })),
        author: field(author()),
        content: field(maybeHugeText),
        timestamp: field(fc.constant(new Date(0).toISOString())),
        type: field(fc.constantFrom(0, 19, 21, 7)),
        mentions: field(fc.array(author(), { maxLength: 2 })),
        attachments: field(
          fc.array(
            fc.record(
              {
                id: field(snowflake),
                filename: field(hostileText),
                size: field(fc.nat()),
                url: field(hostileText),
              },
              { requiredKeys: [] },
            ),
            { maxLength: 2 },
          ),
        ),
        embeds: field(fc.array(wrongValue, { maxLength: 2 })),
      },
      { requiredKeys: [] },
    );
  const interaction = () =>
    fc.record(
      {
        id: field(snowflake),
        application_id: field(fc.oneof(fc.constant(discord.applicationId), snowflake)),
        type: field(fc.constantFrom(1, 2, 3, 4, 5)),
        token: field(hostileText),
        channel_id: field(fc.oneof(fc.constant(dm), snowflake)),
        channel: field(
          fc.record({ id: field(snowflake), type: field(fc.constantFrom(0, 1, 11)) }, { requiredKeys: [] }),
        ),
        user: field(author()),
        message: field(fc.record({ id: field(snowflake) }, { requiredKeys: [] })),
        data: field(
          fc.record(
            {
              custom_id: field(hostileText),
              component_type: field(fc.constantFrom(2, 3)),
              name: field(fc.oneof(fc.constantFrom('new', 'help', 'approve', 'status'), hostileText)),
              type: field(fc.constant(1)),
              options: field(
                fc.array(fc.record({ name: field(hostileText), value: field(maybeHugeText) }), {
                  maxLength: 3,
                }),
              ),
            },
            { requiredKeys: [] },
          ),
        ),
      },
      { requiredKeys: [] },
    );

  it(
    'translateInteraction takes any payload without throwing or stalling',
    async () => {
      const watch = startFuzzWatch<unknown>();
      let ran = 0;
      await fc.assert(
        fc.asyncProperty(fc.oneof(interaction(), wrongValue), async (raw) => {
          const translated = await watch.time(raw, () => translateInteraction(raw, 0));
          ran += 1;
          if (ran === 20) await watch.markBaseline();
          expect(['action', 'command', 'skip']).toContain(translated.kind);
        }),
        { numRuns: fuzzRuns() },
      );
      await watch.finish((raw) => translateInteraction(raw, 0));
    },
    fuzzTimeout(10),
  );

  // Over the fake's WebSocket the timing depends on the machine: run by `npm run test:fuzz` (and
  // whenever FUZZ_RUNS is set), not by the default `npm test`.
  it.runIf(process.env['FUZZ_RUNS'] !== undefined)(
    'hostile gateway events reach discord.js and the adapter; a normal DM is still answered',
    async () => {
      interface Dispatch {
        readonly t: string;
        readonly d: unknown;
      }
      const event: fc.Arbitrary<Dispatch> = fc.oneof(
        { weight: 3, arbitrary: messageCreate().map((d) => ({ t: 'MESSAGE_CREATE', d })) },
        { weight: 2, arbitrary: interaction().map((d) => ({ t: 'INTERACTION_CREATE', d })) },
        {
          weight: 1,
          arbitrary: fc
            .record({
              t: fc.constantFrom('MESSAGE_CREATE', 'INTERACTION_CREATE', 'THREAD_CREATE', 'MESSAGE_UPDATE'),
              d: wrongValue,
            })
            .map(({ t, d }) => ({ t, d })),
        },
      );
      const send = async (input: Dispatch) => {
        discord.dispatch(input.t, input.d);
        // Let the socket carry it and the client handle it before the next one.
        await new Promise((resolve) => setTimeout(resolve, 2));
      };
      // discord.js builds its structures from the payload and throws on shapes Discord never
      // sends (its own rejections, tolerated and counted); a throw from our code fails the test.
      const watch = startFuzzWatch<Dispatch>({
        tolerate: (reason) =>
          reason instanceof Error &&
          !(reason.stack ?? '')
            .split('\n')
            .some((line) => line.includes('/src/') && !line.includes('node_modules')),
      });
      let ran = 0;
      await fc.assert(
        fc.asyncProperty(event, async (input) => {
          await watch.time(input, () => send(input));
          ran += 1;
          if (ran === 50) await watch.markBaseline();
          if (ran % 200 === 0) kit.model.reset();
        }),
        { numRuns: fuzzRuns() },
      );
      const report = await watch.finish(send, { maxGrowthMb: 96 });
      expect(report.cases).toBeGreaterThanOrEqual(fuzzRuns());
      kit.model.respond = () => ({ content: 'still answering' });
      discord.dm({ authorId: alice, content: 'are you still there?' });
      await discord.waitFor(
        () => discord.messages(dm).some((m) => m.content.includes('still answering')),
        'the answer after the fuzz',
        30_000,
      );
      expect(discord.internalErrors).toStrictEqual([]);
    },
    fuzzTimeout(30),
  );
});
