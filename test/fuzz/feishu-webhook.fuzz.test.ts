import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postCallback } from '../fakes/fake-lark.js';
import { type FeishuSetup, setupFeishu } from '../platforms/feishu/feishu-kit.js';
import { recordingSink } from '../platforms/telegram/telegram-kit.js';
import { fuzzRuns, fuzzTimeout, hostileBody, maybeHugeText, startFuzzWatch, wrongValue } from './fuzz-kit.js';

/**
 * The Feishu webhook (real SDK, our verification in front): properly encrypted and signed
 * callbacks whose event has fields replaced by wrong kinds of values or hostile text, and raw
 * hostile bodies. Every request gets a deliberate answer (never a 500), no rejection goes
 * unhandled, no stall, bounded memory; a normal message still goes through afterwards.
 */
const PATHS = [
  'schema',
  'header',
  'header.event_type',
  'header.event_id',
  'header.create_time',
  'event',
  'event.sender',
  'event.sender.sender_id',
  'event.message',
  'event.message.content',
  'event.message.chat_type',
  'event.message.message_type',
  'event.message.chat_id',
  'event.message.mentions',
];

function setPath(target: Record<string, unknown>, path: string, value: unknown): void {
  const keys = path.split('.');
  let node: Record<string, unknown> = target;
  for (const key of keys.slice(0, -1)) {
    const next = node[key];
    if (typeof next !== 'object' || next === null) return;
    node = next as Record<string, unknown>;
  }
  node[keys[keys.length - 1] as string] = value;
}

describe('fuzz: the Feishu webhook', () => {
  let setup: FeishuSetup;
  let base: Record<string, unknown>;
  beforeAll(async () => {
    setup = await setupFeishu('webhook');
    await setup.adapter.start(recordingSink().sink);
    const ann = setup.fake.user('Ann');
    base = setup.fake.userSends({ from: ann, chat: setup.fake.dm(ann), text: 'hello' })
      .event as unknown as Record<string, unknown>;
  });
  afterAll(async () => {
    await setup?.close();
  });

  it(
    'answers every callback deliberately, without a crash, a stall or growing memory',
    async () => {
      type Case = { readonly signed: Record<string, unknown> } | { readonly raw: string | Buffer };
      const mutated = fc
        .array(
          fc.tuple(
            fc.constantFrom(...PATHS),
            fc.oneof(
              wrongValue,
              maybeHugeText.map((text) => JSON.stringify({ text })),
            ),
          ),
          { minLength: 1, maxLength: 3 },
        )
        .map((mutations) => {
          const event = structuredClone(base);
          for (const [path, value] of mutations) setPath(event, path, value);
          return { signed: event } as Case;
        });
      const raw = hostileBody.map((body) => ({ raw: body }) as Case);
      const url = setup.webhookUrl ?? '';
      const send = (input: Case) =>
        'signed' in input
          ? postCallback(url, setup.fake.webhookRequest(input.signed))
          : fetch(url, {
              method: 'POST',
              headers: { 'content-type': 'application/json' },
              body: input.raw,
            }).then(async (response) => ({ status: response.status, text: await response.text() }));
      const watch = startFuzzWatch<Case>();
      let ran = 0;
      await fc.assert(
        fc.asyncProperty(
          fc.oneof({ weight: 3, arbitrary: mutated }, { weight: 1, arbitrary: raw }),
          async (input) => {
            const response = await watch.time(input, () => send(input));
            ran += 1;
            if (ran === 50) await watch.markBaseline();
            expect(
              [200, 400, 401, 413, 415],
              `status ${response.status}: ${response.text.slice(0, 200)}`,
            ).toContain(response.status);
          },
        ),
        { numRuns: fuzzRuns() },
      );
      await watch.finish(send, { maxGrowthMb: 96 });
      expect((await setup.deliver(base)).ack).toBe('acknowledged');
    },
    fuzzTimeout(30),
  );
});
