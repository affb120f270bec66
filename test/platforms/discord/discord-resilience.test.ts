import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { PlatformError } from '../../../src/platforms/adapter.js';
import { type DiscordSetup, poll, recordingSink, setupDiscord } from './discord-kit.js';

const GATEWAY_INFO = 'GET /gateway/bot';

describe('discord adapter resilience (real discord.js against the fake Discord)', () => {
  let setup: DiscordSetup | undefined;
  afterEach(async () => {
    const problems = setup?.fake.internalErrors ?? [];
    await setup?.close();
    setup = undefined;
    expect(problems).toEqual([]);
  });

  async function started(options: Parameters<typeof setupDiscord>[0] = {}) {
    setup = await setupDiscord(options);
    const recorder = recordingSink();
    await setup.adapter.start(recorder.sink);
    return { ...setup, recorder };
  }

  const healthy = async (s: DiscordSetup) => poll(async () => (await s.adapter.health()).ok, 'health');

  it('resumes after the connection drops, and hands over what was sent meanwhile exactly once', async () => {
    const { fake, adapter, recorder } = await started();
    const { alice } = fake.seed.users;
    fake.gateway.drop();
    // While it is down the adapter says so, then discord.js resumes the session.
    const down = await adapter.health();
    if (!down.ok) expect(down.reason).toMatch(/Discord gateway/);
    const during = fake.dm({ authorId: alice.id, content: 'sent while reconnecting' });
    await poll(() => fake.gateway.resumes.some((r) => r.accepted), 'a resume');
    await poll(() => recorder.events.some((e) => e.eventId === during.id), 'the replayed message');
    await poll(async () => (await adapter.health()).ok, 'healthy again');
    const after = fake.dm({ authorId: alice.id, content: 'after' });
    await poll(() => recorder.events.some((e) => e.eventId === after.id), 'the next message');
    expect(recorder.events.filter((e) => e.eventId === during.id)).toHaveLength(1);
    expect(fake.gateway.identifies).toHaveLength(1);
  });

  it('notices a silent (zombie) connection by its missing heartbeat acks and resumes', async () => {
    const { fake, adapter, recorder } = await started();
    fake.gateway.zombie();
    const lost = fake.dm({ authorId: fake.seed.users.alice.id, content: 'lost in the zombie socket' });
    await poll(() => fake.gateway.connections.some((c) => c.closeCode === 4200), 'the zombie closed', 10_000);
    await poll(
      () => recorder.events.some((e) => e.eventId === lost.id),
      'the message replayed on resume',
      10_000,
    );
    await poll(async () => (await adapter.health()).ok, 'healthy again');
    expect(fake.gateway.resumes.filter((r) => r.accepted).length).toBeGreaterThan(0);
  });

  it('identifies again when Discord invalidates the session', async () => {
    const { fake, recorder } = await started();
    fake.gateway.invalidateSession(false);
    await poll(() => fake.gateway.identifies.filter((i) => i.accepted).length === 2, 'a second identify');
    const next = fake.dm({ authorId: fake.seed.users.alice.id, content: 'new session' });
    await poll(() => recorder.events.some((e) => e.eventId === next.id), 'the message');
  });

  it('stops for good and says why when the token is reset (gateway 4004)', async () => {
    const { fake, adapter } = await started({ yaml: '    reconnect_after_ms: 1000' });
    fake.revokeToken();
    await poll(async () => !(await adapter.health()).ok, 'unhealthy');
    expect((await adapter.health()).reason).toMatch(/rejected the bot token.*DISCORD_BOT_TOKEN/);
    const connections = fake.gateway.connections.length;
    const infos = fake.callsTo(GATEWAY_INFO).length;
    // Longer than the stall check (reconnect_after_ms: 1000): it does not try again with a dead token.
    await sleep(1_500);
    expect(fake.gateway.connections.length).toBe(connections);
    expect(fake.callsTo(GATEWAY_INFO).length).toBe(infos);
    expect(fake.gateway.openConnections()).toBe(0);
  });

  it('starts without throwing when Discord refuses the token (401), and reports it', async () => {
    const { fake, adapter } = await started({ adapter: { token: 'MTIz.bad.token-that-discord-refuses' } });
    const health = await adapter.health();
    expect(health.ok).toBe(false);
    expect(health.reason).toMatch(/401.*DISCORD_BOT_TOKEN|DISCORD_BOT_TOKEN.*401/);
    expect(fake.gateway.connections).toHaveLength(0);
    for (const line of setup?.logs.lines ?? []) expect(line).not.toContain('token-that-discord-refuses');
  });

  it('treats a 401 on a REST call as fatal: the send fails as forbidden and health says so', async () => {
    const { fake, adapter } = await started();
    const dm = fake.dmChannel(fake.seed.users.alice.id);
    fake.revokeToken();
    let error: unknown;
    try {
      await adapter.sendText({ chatId: dm.id }, { text: 'hello?' });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(PlatformError);
    expect((error as PlatformError).code).toBe('forbidden');
    expect((error as PlatformError).retryable).toBe(false);
    expect((await adapter.health()).reason).toMatch(/token/);
  });

  it('opens a fresh connection, with pauses, when the gateway stays unreachable, and recovers', async () => {
    const { fake, adapter } = await started({
      yaml: '    reconnect_after_ms: 1000',
      adapter: { startWaitMs: 300 },
      fakeOptions: {},
    });
    await healthy(setup as DiscordSetup);
    fake.gateway.refuseConnections(1_000_000);
    fake.gateway.drop();
    await poll(() => fake.callsTo(GATEWAY_INFO).length >= 2, 'a fresh connection', 15_000);
    const down = await adapter.health();
    expect(down.ok).toBe(false);
    expect(down.reason).toMatch(/Discord gateway/);
    fake.gateway.refuseConnections(0);
    await poll(async () => (await adapter.health()).ok, 'healthy again', 15_000);
    const next = fake.dm({ authorId: fake.seed.users.alice.id, content: 'back' });
    expect(next.id).not.toBe('');
  });

  it('returns from start while the gateway is down and connects once it is up', async () => {
    const fakeSetup = await setupDiscord({ adapter: { startWaitMs: 200 } });
    setup = fakeSetup;
    fakeSetup.fake.gateway.refuseConnections(3);
    const recorder = recordingSink();
    await fakeSetup.adapter.start(recorder.sink);
    await poll(async () => (await fakeSetup.adapter.health()).ok, 'connected', 15_000);
    expect(fakeSetup.fake.gateway.refusedConnections).toBeGreaterThanOrEqual(3);
  });

  it('leaves no connection behind when stopped while discord.js waits to reconnect', async () => {
    const { fake, adapter } = await started();
    fake.gateway.drop();
    // discord.js pauses 500 ms before it reconnects; a destroy in that pause used to be ignored.
    await sleep(100);
    await adapter.stop();
    await sleep(1_500);
    expect(fake.gateway.openConnections()).toBe(0);
  });

  it('never crashes the process when connections are replaced or stopped while the gateway refuses them', async () => {
    const uncaught: unknown[] = [];
    const onUncaught = (error: unknown) => uncaught.push(error);
    process.on('uncaughtException', onUncaught);
    try {
      for (const wait of [0, 10, 30, 60, 100, 200, 400, 600]) {
        const trial = await setupDiscord({ adapter: { startWaitMs: 200 } });
        trial.fake.gateway.refuseConnections(3);
        await trial.adapter.start(recordingSink().sink);
        await sleep(wait);
        await trial.close();
      }
      await sleep(1_000);
      expect(uncaught).toEqual([]);
    } finally {
      process.off('uncaughtException', onUncaught);
    }
  });
});
