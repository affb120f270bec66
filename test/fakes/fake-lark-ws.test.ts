import * as lark from '@larksuiteoapi/node-sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { waitFor } from '../gateway/e2e/gateway-kit.js';
import { keptLogger, sdkClient } from './fake-lark/lark-sdk-kit.js';
import { type FakeLark, type FakeLarkOptions, startFakeLark } from './fake-lark.js';

/** The fake long connection (discovery + pbbp2 frames), driven by the SDK's real WSClient. */

interface Seen {
  readonly type: string;
  readonly data: Record<string, unknown>;
}

describe('fake Lark long connection', () => {
  let fake: FakeLark | undefined;
  let client: lark.WSClient | undefined;
  afterEach(async () => {
    client?.close({ force: true });
    client = undefined;
    await fake?.close();
    fake = undefined;
  });

  async function connect(
    options: FakeLarkOptions = {},
    onCard: (data: Record<string, unknown>) => unknown = () => undefined,
    onMessage: (data: Record<string, unknown>) => unknown = () => undefined,
  ) {
    const started = await startFakeLark({
      ...options,
      wsClientConfig: { ReconnectNonce: 0, ReconnectInterval: 0.05, ...options.wsClientConfig },
    });
    fake = started;
    const seen: Seen[] = [];
    const lifecycle = { ready: 0, reconnecting: 0, reconnected: 0, errors: [] as Error[] };
    const log = keptLogger();
    const dispatcher = new lark.EventDispatcher({ logger: log.logger }).register<{
      'card.action.trigger': (data: Record<string, unknown>) => unknown;
    }>({
      'im.message.receive_v1': async (data) => {
        seen.push({ type: 'message', data: { ...data } });
        return onMessage({ ...data });
      },
      'card.action.trigger': async (data) => {
        seen.push({ type: 'card', data: { ...data } });
        return onCard(data);
      },
    });
    const ws = new lark.WSClient({
      appId: started.appId,
      appSecret: started.appSecret,
      domain: started.domain,
      logger: log.logger,
      loggerLevel: lark.LoggerLevel.debug,
      onReady: () => {
        lifecycle.ready += 1;
      },
      onReconnecting: () => {
        lifecycle.reconnecting += 1;
      },
      onReconnected: () => {
        lifecycle.reconnected += 1;
      },
      onError: (error) => {
        lifecycle.errors.push(error);
      },
    });
    client = ws;
    // start() resolves before the connection is up; onReady says when it is.
    await ws.start({ eventDispatcher: dispatcher });
    if (options.appId === undefined) await waitFor(() => lifecycle.ready === 1);
    return { fake: started, ws, seen, lifecycle, log };
  }

  it('connects through discovery, answers pings, and acknowledges pushed events, also in fragments', async () => {
    const { fake, ws, seen, lifecycle } = await connect();
    expect(lifecycle.ready).toBe(1);
    expect(fake.ws.connections).toBe(1);
    expect(fake.callsOf('ws.endpoint')[0]?.body).toEqual({ AppID: fake.appId, AppSecret: fake.appSecret });
    await waitFor(() => fake.ws.pings >= 1);
    expect(ws.getConnectionStatus().state).toBe('connected');
    const ann = fake.user('Ann');
    const { message, event } = fake.userSends({ from: ann, chat: fake.dm(ann), text: 'over the wire' });
    expect(await fake.pushEvent(event)).toEqual({ acknowledged: true, code: 200, data: undefined });
    expect(seen[0]?.data).toMatchObject({
      event_id: event.header.event_id,
      message: { message_id: message.messageId },
    });
    const long = fake.userSends({ from: ann, chat: fake.dm(ann), text: 'x'.repeat(5000) });
    expect(await fake.pushEvent(long.event, { fragments: 3 })).toMatchObject({
      acknowledged: true,
      code: 200,
    });
    expect(seen).toHaveLength(2);
    expect(seen[1]?.data).toMatchObject({ message: { content: JSON.stringify({ text: 'x'.repeat(5000) }) } });
  });

  it('returns a card handler’s answer in the ack, and the card shows it', async () => {
    const resolved = {
      schema: '2.0',
      header: { title: { tag: 'plain_text', content: 'Allowed once' } },
      body: { elements: [] },
    };
    const { fake, seen } = await connect({}, () => ({ card: { type: 'raw', data: resolved } }));
    const ann = fake.user('Ann');
    const team = fake.group('team', [ann]);
    const sent = await sdkClient(fake).im.v1.message.create({
      params: { receive_id_type: 'chat_id' },
      data: {
        receive_id: team.chatId,
        msg_type: 'interactive',
        content: JSON.stringify({
          config: { update_multi: true },
          elements: [
            {
              tag: 'action',
              actions: [
                { tag: 'button', text: { tag: 'plain_text', content: 'Allow once' }, value: { a: 1 } },
              ],
            },
          ],
        }),
      },
    });
    const messageId = sent.data?.message_id ?? '';
    const ack = await fake.pushEvent(fake.clickEvent({ messageId, operator: ann, label: 'Allow once' }));
    expect(ack).toEqual({ acknowledged: true, code: 200, data: { card: { type: 'raw', data: resolved } } });
    expect(seen[0]?.data).toMatchObject({ operator: { open_id: ann.openId }, action: { value: { a: 1 } } });
    expect(fake.message(messageId)?.text).toBe('Allowed once');
    expect(fake.clicks[0]).toMatchObject({ via: 'ws', outcome: 'updated' });
  });

  it('acks a throwing handler with code 500, and reports an event never acked when the connection drops', async () => {
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let calls = 0;
    const { fake, seen } = await connect({}, undefined, async () => {
      calls += 1;
      if (calls === 1) throw new Error('handler failed');
      await held;
    });
    const ann = fake.user('Ann');
    const first = fake.userSends({ from: ann, chat: fake.dm(ann), text: 'one' });
    expect(await fake.pushEvent(first.event)).toMatchObject({ acknowledged: true, code: 500 });
    const second = fake.userSends({ from: ann, chat: fake.dm(ann), text: 'two' });
    const pending = fake.pushEvent(second.event);
    await waitFor(() => seen.length === 2);
    fake.ws.drop();
    expect(await pending).toEqual({ acknowledged: false });
    release();
  });

  it('reconnects after the connection drops, with a fresh ticket from discovery', async () => {
    const { fake, lifecycle, seen } = await connect();
    fake.ws.drop();
    await fake.ws.waitForConnections(2);
    await waitFor(() => lifecycle.reconnected === 1);
    expect(lifecycle.reconnecting).toBe(1);
    expect(fake.ws.endpointCalls).toBe(2);
    const ann = fake.user('Ann');
    const { event } = fake.userSends({ from: ann, chat: fake.dm(ann), text: 'after the drop' });
    expect(await fake.pushEvent(event)).toMatchObject({ acknowledged: true, code: 200 });
    expect(seen).toHaveLength(1);
    const refused = await new Promise<number>((resolve) => {
      const socket = new WebSocket(`${fake.domain.replace(/^http/, 'ws')}/ws/v2?ticket=not-issued`);
      socket.on('unexpected-response', (_request, response) => {
        resolve(response.statusCode ?? 0);
        socket.terminate();
      });
      socket.on('error', () => undefined);
    });
    expect(refused).toBe(403);
    expect(fake.ws.connections).toBe(2);
  });

  it('keeps retrying while the upgrade is refused, and reconnects once it is accepted again', async () => {
    const { fake, ws, lifecycle } = await connect();
    fake.ws.refuse({ upgrade: 'forbidden' });
    fake.ws.drop();
    await waitFor(() => fake.ws.endpointCalls >= 4);
    expect(fake.ws.connections).toBe(1);
    expect(ws.getConnectionStatus().state).toBe('reconnecting');
    fake.ws.accept();
    await fake.ws.waitForConnections(2);
    await waitFor(() => lifecycle.reconnected === 1);
    expect(lifecycle.errors).toEqual([]);
  });

  it('gives up for good when discovery answers a code it does not retry', async () => {
    const { fake, ws, lifecycle } = await connect();
    fake.ws.refuse({ endpointCode: 403, msg: 'forbidden' });
    fake.ws.drop();
    await waitFor(() => lifecycle.errors.length === 1);
    expect(String(lifecycle.errors[0])).toMatch(/code=403/);
    expect(ws.getConnectionStatus().state).toBe('failed');
    expect(fake.ws.connections).toBe(1);
  });

  it('fails discovery for good with a wrong app secret', async () => {
    fake = await startFakeLark();
    const errors: Error[] = [];
    const ws = new lark.WSClient({
      appId: fake.appId,
      appSecret: 'wrong',
      domain: fake.domain,
      logger: keptLogger().logger,
      onError: (error) => {
        errors.push(error);
      },
    });
    client = ws;
    await ws.start({ eventDispatcher: new lark.EventDispatcher({ logger: keptLogger().logger }) });
    await waitFor(() => errors.length === 1);
    expect(String(errors[0])).toMatch(/code=514/);
    expect(ws.getConnectionStatus().state).toBe('failed');
    expect(fake.ws.connections).toBe(0);
  });

  it('SDK pitfall: an app id not shaped cli_ + 16 hex makes start() return without connecting', async () => {
    const { fake, log } = await connect({ appId: 'cli_not_a_real_id' });
    expect(fake.ws.endpointCalls).toBe(0);
    expect(log.lines.some((line) => line.includes('invalid appId'))).toBe(true);
  });
});
