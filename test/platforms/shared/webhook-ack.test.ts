import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { createWebhookAck, type WebhookAnswer } from '../../../src/platforms/shared/webhook-ack.js';
import { silentLogger } from '../../helpers/test-config.js';

let app: FastifyInstance | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

async function serve(options: {
  receiving?: boolean;
  answer?: WebhookAnswer | 'throw';
  seen?: unknown[];
}): Promise<(body: unknown, secret?: string) => Promise<{ status: number; body: unknown }>> {
  app = Fastify();
  app.post(
    '/hook',
    createWebhookAck<{ id: number }>({
      logger: silentLogger,
      what: 'demo update',
      authenticate: (request) => (request.headers['x-secret'] === 's3cret' ? undefined : 'secret is wrong'),
      receiving: () => options.receiving ?? true,
      parse: (request) => {
        const id = (request.body as { id?: unknown } | null)?.id;
        return typeof id === 'number' ? { id } : undefined;
      },
      handle: async (payload) => {
        options.seen?.push(payload);
        if (options.answer === 'throw') throw new Error('boom');
        return options.answer ?? 'done';
      },
    }),
  );
  const origin = await app.listen({ host: '127.0.0.1', port: 0 });
  return async (body, secret = 's3cret') => {
    const response = await fetch(`${origin}/hook`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-secret': secret },
      body: JSON.stringify(body),
    });
    return { status: response.status, body: await response.json() };
  };
}

describe('createWebhookAck', () => {
  it('checks authenticity before anything else and reads nothing of a refused request', async () => {
    const seen: unknown[] = [];
    const post = await serve({ seen, receiving: false });
    expect(await post({ id: 1 }, 'wrong')).toEqual({
      status: 401,
      body: { ok: false, error: 'secret is wrong' },
    });
    expect(seen).toEqual([]);
  });

  it('answers 503 while not receiving, so the platform comes back', async () => {
    const post = await serve({ receiving: false });
    expect((await post({ id: 1 })).status).toBe(503);
  });

  it('drops a malformed payload with 200 (a refused one would come back forever)', async () => {
    const seen: unknown[] = [];
    const post = await serve({ seen });
    expect(await post({ nope: true })).toEqual({ status: 200, body: { ok: true } });
    expect(seen).toEqual([]);
  });

  it('answers 200 once handled, 500 when the gateway did not take it, and a body when one is given', async () => {
    expect(await (await serve({ answer: 'done' }))({ id: 1 })).toEqual({ status: 200, body: { ok: true } });
    await app?.close();
    expect(await (await serve({ answer: 'failed' }))({ id: 2 })).toEqual({
      status: 500,
      body: { ok: false },
    });
    await app?.close();
    const card = { toast: { type: 'success', content: 'Approved' } };
    expect(await (await serve({ answer: { outcome: 'done', body: card } }))({ id: 3 })).toEqual({
      status: 200,
      body: card,
    });
  });
});
