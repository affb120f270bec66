import { createHmac, randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALLOWED_TELEGRAM_USER, type FuzzGateway, startFuzzGateway } from './fuzz-gateway.js';
import {
  field,
  fuzzRuns,
  fuzzTimeout,
  hostileBody,
  hostileText,
  maybeHugeText,
  startFuzzWatch,
  wrongValue,
} from './fuzz-kit.js';

/**
 * Inbound payloads over real HTTP to one gateway serving every surface: the Telegram webhook,
 * the OpenAI-compatible API server and the signed webhook routes. Valid-looking payloads (every
 * field sometimes of a wrong kind or missing) and hostile bodies (deep, huge, invalid UTF-8,
 * broken JSON). The gateway must answer every request with a deliberate status (never a 500),
 * keep no rejection unhandled, never stall its event loop, stay within bounded memory, and still
 * serve a normal request afterwards.
 */

interface HttpCase {
  readonly path: string;
  readonly body: string | Buffer;
  readonly headers: Record<string, string>;
}

const headerText = fc.stringMatching(/^[!-~]{0,60}$/);
const contentType = fc.oneof(
  { weight: 8, arbitrary: fc.constant('application/json') },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      'text/plain',
      'application/x-www-form-urlencoded',
      'application/json; charset=latin1',
    ),
  },
  { weight: 1, arbitrary: headerText },
);
const body = (valid: fc.Arbitrary<unknown>): fc.Arbitrary<string | Buffer> =>
  fc.oneof(
    { weight: 6, arbitrary: valid.map((value) => JSON.stringify(value) ?? 'null') },
    { weight: 2, arbitrary: hostileBody },
    { weight: 1, arbitrary: wrongValue.map((value) => JSON.stringify(value) ?? 'null') },
  );

// ---- Telegram ---------------------------------------------------------------------------------
const tgUser = fc.record(
  {
    id: field(fc.oneof(fc.constant(ALLOWED_TELEGRAM_USER), fc.integer())),
    is_bot: field(fc.boolean()),
    first_name: field(hostileText),
    username: field(hostileText),
  },
  { requiredKeys: [] },
);
const tgChat = fc.record(
  {
    id: field(fc.oneof(fc.constant(ALLOWED_TELEGRAM_USER), fc.integer({ min: -1e13, max: 1e13 }))),
    type: field(fc.constantFrom('private', 'group', 'supergroup', 'channel')),
    title: field(hostileText),
  },
  { requiredKeys: [] },
);
const tgEntity = fc.record({
  type: field(fc.constantFrom('bot_command', 'mention', 'url', 'text_mention', 'bold')),
  offset: field(fc.integer({ min: -10, max: 100_000 })),
  length: field(fc.integer({ min: -10, max: 100_000 })),
});
const tgMessage = fc.record(
  {
    message_id: field(fc.nat()),
    date: field(fc.nat()),
    chat: field(tgChat),
    from: field(tgUser),
    text: field(
      fc.oneof(maybeHugeText, fc.constantFrom('/start', '/help', '/new', '/approve', '/deny', '/status')),
    ),
    caption: field(hostileText),
    entities: field(fc.array(tgEntity, { maxLength: 4 })),
    message_thread_id: field(fc.nat()),
    photo: field(
      fc.array(fc.record({ file_id: field(hostileText), file_size: field(fc.nat()) }), { maxLength: 2 }),
    ),
    reply_to_message: field(
      fc.record({ message_id: field(fc.nat()), from: field(tgUser) }, { requiredKeys: [] }),
    ),
  },
  { requiredKeys: [] },
);
const tgUpdate = fc.record(
  {
    update_id: field(fc.nat()),
    message: field(tgMessage),
    edited_message: field(tgMessage),
    channel_post: field(tgMessage),
    callback_query: field(
      fc.record(
        { id: field(hostileText), from: field(tgUser), data: field(hostileText), message: field(tgMessage) },
        { requiredKeys: [] },
      ),
    ),
  },
  { requiredKeys: [] },
);

function telegramCase(secret: string): fc.Arbitrary<HttpCase> {
  return fc
    .record({
      body: body(tgUpdate),
      secret: fc.oneof({ weight: 8, arbitrary: fc.constant(secret) }, { weight: 1, arbitrary: headerText }),
      type: contentType,
    })
    .map(({ body, secret, type }) => ({
      path: '/telegram/webhook',
      body,
      headers: { 'content-type': type, 'x-telegram-bot-api-secret-token': secret },
    }));
}

// ---- API server -------------------------------------------------------------------------------
const contentPart = fc.record(
  {
    type: field(fc.constantFrom('text', 'image_url', 'input_audio', 'file')),
    text: field(maybeHugeText),
    image_url: field(
      fc.record({ url: field(hostileText), detail: field(hostileText) }, { requiredKeys: [] }),
    ),
  },
  { requiredKeys: [] },
);
const chatMessage = fc.record(
  {
    role: field(
      fc.oneof(
        { weight: 4, arbitrary: fc.constant('user') },
        { weight: 1, arbitrary: fc.constantFrom('system', 'assistant', 'tool', 'developer', 'function') },
      ),
    ),
    content: field(fc.oneof(maybeHugeText, fc.array(contentPart, { maxLength: 3 }))),
    name: field(hostileText),
    tool_call_id: field(hostileText),
  },
  { requiredKeys: [] },
);
const chatRequest = fc.record(
  {
    model: field(fc.oneof(fc.constant('fake-model'), hostileText)),
    messages: field(fc.array(chatMessage, { minLength: 1, maxLength: 4 })),
    stream: field(fc.boolean()),
    temperature: field(fc.double({ min: 0, max: 2, noNaN: true })),
    max_tokens: field(fc.integer({ min: 1, max: 4096 })),
    user: field(hostileText),
    tools: fc.option(fc.array(wrongValue, { maxLength: 2 }), { nil: undefined, freq: 8 }),
  },
  { requiredKeys: ['model', 'messages'] },
);

function apiCase(key: string): fc.Arbitrary<HttpCase> {
  return fc
    .record({
      body: body(chatRequest),
      auth: fc.oneof(
        { weight: 8, arbitrary: fc.constant(`Bearer ${key}`) },
        { weight: 1, arbitrary: headerText },
      ),
      session: fc.option(headerText, { nil: undefined }),
      type: contentType,
    })
    .map(({ body, auth, session, type }) => ({
      path: '/v1/chat/completions',
      body,
      headers: {
        'content-type': type,
        authorization: auth,
        ...(session === undefined ? {} : { 'x-hermes-session-id': session }),
      },
    }));
}

// ---- webhook routes ---------------------------------------------------------------------------
const webhookPayload = fc.record(
  {
    action: field(fc.constantFrom('opened', 'closed', 'edited')),
    repository: field(
      fc.record({ name: field(hostileText), full_name: field(hostileText) }, { requiredKeys: [] }),
    ),
    issue: field(fc.record({ title: field(maybeHugeText), number: field(fc.nat()) }, { requiredKeys: [] })),
    __proto__: field(wrongValue),
  },
  { requiredKeys: [] },
);

function webhookCase(secret: string): fc.Arbitrary<HttpCase> {
  return fc
    .record({
      route: fc.oneof(
        { weight: 4, arbitrary: fc.constantFrom('bearer', 'github') },
        { weight: 1, arbitrary: fc.stringMatching(/^[A-Za-z0-9_%.-]{1,80}$/) },
      ),
      body: body(webhookPayload),
      signed: fc.oneof(
        { weight: 8, arbitrary: fc.constant(true) },
        { weight: 1, arbitrary: fc.constant(false) },
      ),
      junk: headerText,
      type: contentType,
    })
    .map(({ route, body, signed, junk, type }) => {
      const signature = `sha256=${createHmac('sha256', signed ? secret : junk)
        .update(body)
        .digest('hex')}`;
      return {
        path: `/webhooks/${route}`,
        body,
        headers: {
          'content-type': type,
          authorization: signed ? `Bearer ${secret}` : junk,
          'x-hub-signature-256': signature,
          'x-github-delivery': randomUUID(),
          'x-github-event': 'issues',
        },
      };
    });
}

// ---- the property -----------------------------------------------------------------------------
describe('fuzz: inbound HTTP payloads', () => {
  let kit: FuzzGateway;
  beforeAll(async () => {
    kit = await startFuzzGateway();
  });
  afterAll(async () => {
    await kit?.close();
  });

  async function fuzzSurface(arbitrary: fc.Arbitrary<HttpCase>, allowed: readonly number[]): Promise<void> {
    const watch = startFuzzWatch<HttpCase>();
    let ran = 0;
    const statuses = new Map<number, number>();
    await fc.assert(
      fc.asyncProperty(arbitrary, async (input) => {
        const reply = await watch.time(input, () => kit.post(input.path, input.body, input.headers));
        ran += 1;
        statuses.set(reply.status, (statuses.get(reply.status) ?? 0) + 1);
        if (ran === 50) await watch.markBaseline();
        // The fakes keep what they saw; only the gateway's own memory is under watch.
        if (ran % 200 === 0) kit.model.reset();
        expect(allowed, `status ${reply.status}: ${reply.text.slice(0, 300)}`).toContain(reply.status);
      }),
      { numRuns: fuzzRuns() },
    );
    await watch.finish((input) => kit.post(input.path, input.body, input.headers), { maxGrowthMb: 96 });
    // The valid-looking share got through: the fuzz did not only bounce off the front door.
    expect([...statuses.keys()].some((status) => status < 300)).toBe(true);
    // And afterwards the gateway still serves a plain request.
    const answer = await kit.post(
      '/v1/chat/completions',
      JSON.stringify({ model: 'fake-model', messages: [{ role: 'user', content: 'still there?' }] }),
      { 'content-type': 'application/json', authorization: `Bearer ${kit.secrets.apiKey}` },
    );
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.text)).toMatchObject({ choices: [{ message: { content: 'ok' } }] });
  }

  it(
    'the Telegram webhook',
    () => fuzzSurface(telegramCase(kit.secrets.telegramWebhookSecret), [200, 400, 401, 403, 413, 415]),
    fuzzTimeout(30),
  );

  it(
    'the OpenAI-compatible API server',
    () => fuzzSurface(apiCase(kit.secrets.apiKey), [200, 400, 401, 403, 404, 413, 415, 422]),
    fuzzTimeout(40),
  );

  it(
    'the signed webhook routes',
    () =>
      fuzzSurface(webhookCase(kit.secrets.routeSecret), [200, 202, 400, 401, 403, 404, 405, 413, 415, 429]),
    fuzzTimeout(30),
  );
});
