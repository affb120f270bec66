import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logging/create-logger.js';

const API_KEY = 'sk-live-decoy-0123456789abcdef';
const BOT_TOKEN = '123456:AAdecoyBotToken_abcdefghijklmnop';
const QUOTED = 'pa"ss\\word-decoy-42';
const CLEAR = ['pw-redis-decoy', 'pw-pg-decoy', 'p@ss-decoy', 'sig-decoy-value', 'cookie-decoy-value'];

function capture(secrets: readonly string[] = [API_KEY, BOT_TOKEN, QUOTED]) {
  const lines: string[] = [];
  const logger = createLogger({
    level: 'trace',
    secrets,
    destination: { write: (line: string) => void lines.push(line) },
  });
  return { logger, lines, text: () => lines.join('') };
}

describe('createLogger redaction', () => {
  it('hides secret fields at any depth, signature and cookie headers, and URL credentials', () => {
    const { logger, lines, text } = capture();
    logger.info({ api_key: API_KEY }, 'top level');
    logger.info({
      cfg: { model: { api_key: API_KEY, name: 'm' }, platforms: { telegram: { bot_token: BOT_TOKEN } } },
    });
    logger.warn(
      {
        req: {
          headers: {
            authorization: 'Bearer abc-decoy-bearer',
            'proxy-authorization': 'Basic ZGVjb3k6ZGVjb3k=',
            cookie: `session=${CLEAR[4]}`,
            'set-cookie': [`a=${CLEAR[4]}`, `b=${CLEAR[4]}`],
            'x-hub-signature-256': `sha256=${CLEAR[3]}`,
            'x-telegram-bot-api-secret-token': CLEAR[3],
            'x-lark-signature': CLEAR[3],
            'x-signature-ed25519': CLEAR[3],
            'webhook-signature': `v1,${CLEAR[3]}`,
            'svix-signature': `v1,${CLEAR[3]}`,
            'x-api-key': CLEAR[3],
            'content-type': 'application/json',
          },
        },
      },
      'webhook headers',
    );
    logger.error({
      redis: `redis://:${CLEAR[0]}@127.0.0.1:6379/0`,
      db: { url: `postgres://app:${CLEAR[1]}@db.internal:5432/app` },
      odd: `rediss://user:${CLEAR[2]}@cache:6380`,
    });
    logger.info(`connecting to postgres://u:${CLEAR[1]}@h/db with key ${API_KEY}`);
    logger.info({
      note: 'sent Authorization: Bearer abc-decoy-bearer-2',
      url: `https://x.example/cb?token=${CLEAR[3]}&a=1`,
    });

    const out = text();
    for (const secret of [API_KEY, BOT_TOKEN, 'abc-decoy-bearer', 'ZGVjb3k6ZGVjb3k=', ...CLEAR]) {
      expect(out).not.toContain(secret);
    }
    const records = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(records[0]).toMatchObject({ api_key: '[redacted]', msg: 'top level' });
    expect(records[1]).toMatchObject({ cfg: { model: { api_key: '[redacted]', name: 'm' } } });
    expect(records[2]).toMatchObject({ req: { headers: { 'content-type': 'application/json' } } });
    expect(records[3]).toMatchObject({
      redis: 'redis://[redacted]@127.0.0.1:6379/0',
      db: { url: 'postgres://[redacted]@db.internal:5432/app' },
      odd: 'rediss://[redacted]@cache:6380',
    });
    expect(records[5]).toMatchObject({ url: 'https://x.example/cb?token=[redacted]&a=1' });
  });

  it('replaces known secret values in messages, errors and child bindings, in their escaped spellings too', () => {
    const { logger, text } = capture();
    logger.info(`the key is ${API_KEY}`);
    logger.error(new Error(`request to https://api.telegram.org/bot${BOT_TOKEN}/getMe failed`));
    logger.error({ err: new Error(`bad ${QUOTED}`) }, 'quoted');
    logger.info({ where: `https://h/x?q=${encodeURIComponent(QUOTED)}` });
    logger.child({ component: 'x', token: BOT_TOKEN, redis: `redis://:${CLEAR[0]}@h` }).info('child');
    const out = text();
    for (const secret of [API_KEY, BOT_TOKEN, 'ss\\\\word-decoy', encodeURIComponent(QUOTED), CLEAR[0]]) {
      expect(out).not.toContain(secret);
    }
    expect(out).toContain('"component":"x"');
  });

  it('keeps token counts and ordinary fields', () => {
    const { logger, lines } = capture();
    logger.info({
      usage: { prompt_tokens: 12, total_tokens: 30 },
      sessionKey: 'agent:main:test:dm:c1',
      tool: 'terminal',
    });
    expect(JSON.parse(lines[0] ?? '{}')).toMatchObject({
      usage: { prompt_tokens: 12, total_tokens: 30 },
      sessionKey: 'agent:main:test:dm:c1',
      tool: 'terminal',
    });
  });

  it('survives cycles, very deep and very large objects without printing what they hide', () => {
    const { logger, lines, text } = capture();
    const cyclic: Record<string, unknown> = { name: 'loop', password: CLEAR[0] };
    cyclic['self'] = cyclic;
    logger.info({ cyclic });
    let deep: Record<string, unknown> = { secret: CLEAR[1], note: API_KEY };
    for (let i = 0; i < 200; i += 1) deep = { next: deep };
    logger.info({ deep });
    const wide = Array.from({ length: 50_000 }, (_, i) => ({ i, password: CLEAR[2] }));
    logger.info({ wide });
    expect(lines).toHaveLength(3);
    const out = text();
    for (const secret of [CLEAR[0], CLEAR[1], CLEAR[2], API_KEY]) expect(out).not.toContain(secret);
    expect(out).toContain('[Circular]');
  });

  it('never prints a known secret, wherever it sits in a logged value', () => {
    fc.assert(
      fc.property(
        fc.jsonValue({ maxDepth: 6 }),
        fc.array(fc.string({ maxLength: 6 }), { maxLength: 3 }),
        fc.constantFrom(API_KEY, BOT_TOKEN, QUOTED),
        fc.string({ maxLength: 8 }),
        (base, path, secret, key) => {
          const { logger, text } = capture();
          let value: unknown = { [key === '' ? 'k' : key]: `x${secret}y` };
          for (const step of path) value = { payload: base, [step === '' ? 's' : step]: [value] };
          logger.info({ value }, `msg ${secret}`);
          logger.info(value as object);
          expect(text()).not.toContain(secret);
          expect(text()).not.toContain(JSON.stringify(secret).slice(1, -1));
        },
      ),
      { numRuns: 150 },
    );
  });
});
