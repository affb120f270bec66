import { once } from 'node:events';
import { DiscordAPIError, DiscordjsErrorCodes, Events, GatewayIntentBits } from 'discord.js';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { type DiscordKit, next, startDiscordKit } from './fake-discord/discord-test-kit.js';

/** No 5-second wait between two IDENTIFYs (discord.js' default throttle), so a re-identify is quick. */
const noIdentifyThrottle = { buildIdentifyThrottler: () => ({ waitForIdentify: async () => undefined }) };

describe('fake Discord gateway: reconnects, resumes and refusals with real discord.js', () => {
  let kit: DiscordKit | undefined;
  afterEach(async () => {
    const problems = kit?.problems() ?? [];
    await kit?.close();
    kit = undefined;
    expect(problems).toEqual([]);
  });

  it('heartbeat silence: discord.js drops the zombie, resumes at resume_gateway_url and gets what it missed', async () => {
    kit = await startDiscordKit({ heartbeatIntervalMs: 200 });
    const { fake } = kit;
    const client = await kit.ready();
    await fake.waitFor(() => (fake.gateway.connections[0]?.heartbeats ?? 0) >= 1, 'a first heartbeat');
    const resumed = next(client, Events.ShardResume, undefined, 10_000);
    fake.gateway.zombie();
    const missed = fake.say(fake.seed.channels.general, {
      authorId: fake.seed.users.alice.id,
      content: 'while silent',
    });
    const received = next(client, Events.MessageCreate, (m) => m.id === missed.id, 10_000);
    expect(fake.gateway.dispatches.find((d) => d.t === 'MESSAGE_CREATE')?.delivered).toBe(false);
    await resumed;
    await received;
    expect(fake.gateway.connections[0]?.closeCode).toBe(4200);
    expect(fake.gateway.connections[1]?.path).toBe('/resume');
    expect(fake.gateway.resumes).toMatchObject([{ accepted: true, replayed: 1 }]);
    expect(fake.gateway.identifies).toHaveLength(1);
  });

  it.each([
    ['an abrupt drop (1006)', undefined],
    ['close 4000 Unknown error', 4000],
  ])('%s: discord.js resumes the session', async (_name, code) => {
    kit = await startDiscordKit();
    const { fake } = kit;
    const client = await kit.ready();
    const resumed = next(client, Events.ShardResume, undefined, 10_000);
    fake.gateway.drop(code);
    await resumed;
    expect(fake.gateway.connections[0]).toMatchObject({ closedBy: 'fake', closeCode: code ?? 1006 });
    expect(fake.gateway.resumes).toMatchObject([{ accepted: true }]);
    expect(fake.gateway.identifies).toHaveLength(1);
    const after = next(client, Events.MessageCreate);
    fake.say(fake.seed.channels.general, { authorId: fake.seed.users.alice.id, content: 'after the resume' });
    expect((await after)[0].content).toBe('after the resume');
  });

  it('RECONNECT (op 7): discord.js closes with 4200 and resumes', async () => {
    kit = await startDiscordKit();
    const { fake } = kit;
    const client = await kit.ready();
    const resumed = next(client, Events.ShardResume, undefined, 10_000);
    fake.gateway.reconnect();
    await resumed;
    expect(fake.gateway.connections[0]).toMatchObject({ closedBy: 'client', closeCode: 4200 });
    expect(fake.gateway.resumes).toMatchObject([{ accepted: true }]);
  });

  it('a refused resume (INVALID_SESSION false) makes discord.js identify again and become ready', async () => {
    kit = await startDiscordKit();
    const { fake } = kit;
    const client = await kit.ready({ ws: noIdentifyThrottle });
    fake.gateway.refuseNextResume();
    const readyAgain = next(client, Events.ShardReady, undefined, 10_000);
    fake.gateway.drop();
    await readyAgain;
    expect(fake.gateway.resumes).toMatchObject([{ accepted: false }]);
    expect(fake.gateway.identifies.map((i) => i.accepted)).toEqual([true, true]);
    const sessions = [...fake.gateway.sessions.values()];
    expect(sessions.map((s) => s.live)).toEqual([false, true]);
  });

  it('INVALID_SESSION true: discord.js resumes on the same connection', async () => {
    kit = await startDiscordKit();
    const { fake } = kit;
    const client = await kit.ready();
    const resumed = next(client, Events.ShardResume, undefined, 10_000);
    fake.gateway.invalidateSession(true);
    await resumed;
    expect(fake.gateway.resumes).toMatchObject([{ accepted: true, connectionId: 1 }]);
    expect(fake.gateway.connections).toHaveLength(1);
  });

  it('the gateway down for a while: discord.js retries every half second and resumes once it is back', async () => {
    kit = await startDiscordKit();
    const { fake } = kit;
    const client = await kit.ready();
    fake.gateway.refuseConnections(3);
    const resumed = next(client, Events.ShardResume, undefined, 15_000);
    fake.gateway.drop();
    await resumed;
    expect(fake.gateway.refusedConnections).toBe(3);
    expect(fake.gateway.resumes).toMatchObject([{ accepted: true }]);
    // Each refused handshake surfaces as a shard error ("Unexpected server response: 503").
    expect(kit.clientErrors.map((e) => e.message)).toEqual(Array(3).fill('Unexpected server response: 503'));
    kit.clientErrors.length = 0;
  });

  it('a bad token: GET /gateway/bot answers 401 and login rejects with TokenInvalid, no socket opened', async () => {
    kit = await startDiscordKit();
    const { fake } = kit;
    const client = kit.client();
    const error = await client.login('MTAwMDAwMDAwMDAwMDAwMDAx.Wrong.token').catch((e: unknown) => e);
    expect(error).toMatchObject({ code: DiscordjsErrorCodes.TokenInvalid });
    expect(fake.callsTo('GET /gateway/bot').map((c) => c.status)).toEqual([401]);
    expect(fake.gateway.connections).toEqual([]);
  });

  it('a token revoked while connected: 4004 ends the shard for good, REST answers 401', async () => {
    kit = await startDiscordKit();
    const { fake } = kit;
    const client = await kit.ready();
    const disconnected = next(client, Events.ShardDisconnect, undefined, 10_000);
    const shardError = next(client, Events.ShardError);
    fake.revokeToken();
    const [event] = await disconnected;
    expect(event.code).toBe(4004);
    expect((await shardError)[0].message).toBe('Authentication failed');
    const rest = await client.users.fetch(fake.seed.users.alice.id, { force: true }).catch((e: unknown) => e);
    expect(rest).toBeInstanceOf(DiscordAPIError);
    expect(rest instanceof DiscordAPIError ? rest.status : 0).toBe(401);
    expect(kit.clientErrors.map((e) => e.message)).toEqual(['Authentication failed']);
    kit.clientErrors.length = 0;
  });

  it('privileged intents not enabled for the app: IDENTIFY is closed with 4014 and login rejects', async () => {
    kit = await startDiscordKit({ privilegedIntents: 0 });
    const { fake } = kit;
    const client = kit.client({ intents: [GatewayIntentBits.Guilds, GatewayIntentBits.MessageContent] });
    const error = await client.login(fake.token).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    expect(fake.gateway.identifies).toMatchObject([{ accepted: false, closeCode: 4014 }]);
    kit.clientErrors.length = 0;
  });

  it.each([
    ['a payload before IDENTIFY', [{ op: 3, d: {} }], 4003],
    ['an unknown opcode', [{ op: 99, d: null }], 4001],
    ['a frame that is not JSON', ['not json'], 4002],
    ['a second IDENTIFY', 'identify-twice', 4005],
  ])('a raw client sending %s is closed with %i', async (_name, frames, code) => {
    kit = await startDiscordKit();
    const { fake } = kit;
    const socket = new WebSocket(`${fake.gatewayUrl}?v=10&encoding=json`);
    const closed = once(socket, 'close');
    await once(socket, 'message');
    const identify = {
      op: 2,
      d: { token: fake.token, intents: 1, properties: { os: 'linux', browser: 'raw', device: 'raw' } },
    };
    const toSend = frames === 'identify-twice' ? [identify, identify] : frames;
    for (const frame of toSend) socket.send(typeof frame === 'string' ? frame : JSON.stringify(frame));
    const [closeCode] = await closed;
    expect(closeCode).toBe(code);
    expect(fake.gateway.connections[0]?.closedBy).toBe('fake');
  });
});
