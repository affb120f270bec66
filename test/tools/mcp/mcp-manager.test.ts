import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Config } from '../../../src/config/config-schema.js';
import { createRegistry, type Registry } from '../../../src/registry/create-registry.js';
import { createMcpManager, type McpManager } from '../../../src/tools/mcp/create-mcp-manager.js';
import { type FakeMcpHttp, startFakeMcpHttp } from '../../fakes/fake-mcp/fake-mcp-server.js';
import { waitFor } from '../../gateway/e2e/gateway-kit.js';
import { makeTempHome, silentLogger, testConfig, testServices } from '../../helpers/test-config.js';
import { envRef, useFakeMcpStdio, writeConfig } from './mcp-helpers.js';

const CALL = { sessionKey: 'agent:main:test:dm:1', taskId: 't1' };

describe('MCP servers as toolsets (real SDK server over stdio and streamable HTTP)', () => {
  const stdioServer = useFakeMcpStdio();
  const cleanups: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  function setup(
    servers: Record<string, unknown>,
    env: Record<string, string> = {},
    baseEnv: Record<string, string> = {},
    dotEnv = '',
  ) {
    const temp = makeTempHome('hermes-mcp-');
    cleanups.push(temp.cleanup);
    writeConfig(temp.home, { mcp_servers: servers });
    writeFileSync(join(temp.home, '.env'), dotEnv);
    const config: Config = testConfig(temp.home, env);
    const registry: Registry = createRegistry({ services: testServices(config) });
    registry.seal();
    const manager: McpManager = createMcpManager({
      config,
      registry,
      baseEnv: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', HOME: temp.home, ...baseEnv },
      logger: silentLogger,
      retryBaseMs: 100,
      retryMaxMs: 400,
      pingIntervalMs: 200,
    });
    cleanups.push(() => manager.close());
    return { config, registry, manager, home: temp.home };
  }

  it('lists a stdio server’s tools as mcp__<server>__<tool> in toolset mcp-<server>, and calls them', async () => {
    const { registry, manager } = setup({ fake: stdioServer() });
    expect(registry.namesInToolset('mcp-fake')).toEqual([]);
    manager.start();
    await waitFor(() => manager.states()[0]?.status === 'connected');
    expect(registry.namesInToolset('mcp-fake')).toEqual(
      expect.arrayContaining([
        'mcp__fake__echo',
        'mcp__fake__add',
        'mcp__fake__lookup_item',
        'mcp__fake__delete_item',
      ]),
    );
    const [echo] = registry.getDefinitions(['mcp__fake__echo']);
    expect(echo?.function.parameters).toMatchObject({
      type: 'object',
      properties: { text: { type: 'string' } },
      required: ['text'],
    });
    expect(echo?.function.parameters).not.toHaveProperty('$schema');
    expect(await registry.dispatch('mcp__fake__echo', { text: 'hi' }, CALL)).toEqual({
      kind: 'ok',
      content: 'echo: hi',
    });
    // Arguments are coerced against the server's schema, as for built-in tools.
    expect(await registry.dispatch('mcp__fake__add', '{"a":"2","b":3}', CALL)).toEqual({
      kind: 'ok',
      content: '5',
    });
    expect(await registry.dispatch('mcp__fake__lookup_item', { item: { id: '7', kind: 'b' } }, CALL)).toEqual(
      { kind: 'ok', content: 'found b:7' },
    );
  });

  it('turns a tool’s isError and a refused argument into tool errors the model reads', async () => {
    const { registry, manager } = setup({ fake: stdioServer() });
    manager.start();
    await waitFor(() => manager.states()[0]?.status === 'connected');
    const failed = await registry.dispatch('mcp__fake__fail', {}, CALL);
    expect(failed).toMatchObject({ kind: 'error', code: 'tool_failed' });
    expect(failed.content).toContain('the fake tool failed on purpose');
    const invalid = await registry.dispatch('mcp__fake__add', { a: 'not a number' }, CALL);
    expect(invalid.kind).toBe('error');
    expect(manager.states()[0]?.status).toBe('connected');
  });

  it('spills results over 50,000 characters to a file (lower than the built-ins’ cap)', async () => {
    const { registry, manager } = setup({ fake: stdioServer() });
    manager.start();
    await waitFor(() => manager.states()[0]?.status === 'connected');
    const under = await registry.dispatch('mcp__fake__big', { chars: 49_000 }, CALL);
    expect(under).toMatchObject({ kind: 'ok' });
    expect(under.content).toHaveLength(49_000);
    const over = await registry.dispatch('mcp__fake__big', { chars: 60_000 }, CALL);
    if (over.kind !== 'ok') throw new Error('expected ok');
    expect(over.content).toContain('too large');
    expect(over.spilledTo).toBeDefined();
    expect(readFileSync(over.spilledTo ?? '', 'utf8')).toHaveLength(60_000);
  });

  it('starts a stdio server without the gateway’s secrets, with its own env entries', async () => {
    const { registry, manager } = setup(
      {
        fake: stdioServer({
          env: { FAKE_TOKEN: envRef('FAKE_SOURCE'), PLAIN: 'yes', FROM_FILE: envRef('IN_DOTENV') },
        }),
      },
      {},
      {
        OPENAI_API_KEY: 'sk-gateway-secret-123456',
        TELEGRAM_BOT_TOKEN: '123:abcdefghijklmnop',
        FAKE_SOURCE: 'from-env',
        UNLISTED: 'x',
      },
      'IN_DOTENV=from-dotenv\n',
    );
    manager.start();
    await waitFor(() => manager.states()[0]?.status === 'connected');
    const show = async (name: string) =>
      (await registry.dispatch('mcp__fake__show_env', { name }, CALL)).content;
    expect(await show('OPENAI_API_KEY')).toBe('OPENAI_API_KEY=(unset)');
    expect(await show('TELEGRAM_BOT_TOKEN')).toBe('TELEGRAM_BOT_TOKEN=(unset)');
    expect(await show('UNLISTED')).toBe('UNLISTED=(unset)');
    expect(await show('FAKE_TOKEN')).toBe('FAKE_TOKEN=from-env');
    expect(await show('PLAIN')).toBe('PLAIN=yes');
    // Set from $HERMES_HOME/.env, and (as every .env value) scrubbed from what the model reads.
    expect(await show('FROM_FILE')).toBe('FROM_FILE=[redacted]');
    expect(await show('IN_DOTENV')).toBe('IN_DOTENV=(unset)');
  });

  it('refuses to hand a gateway secret to a server through an environment reference', async () => {
    const { manager } = setup(
      { fake: stdioServer({ env: { KEY: envRef('OPENAI_API_KEY') } }) },
      {},
      { OPENAI_API_KEY: 'sk-gateway-secret-123456' },
    );
    manager.start();
    await waitFor(() => manager.states()[0]?.status === 'failed');
    expect(manager.states()[0]?.error).toContain("gateway's own secrets");
  });

  it('offers only tools.include (or all but tools.exclude)', async () => {
    const { registry, manager } = setup({
      only: stdioServer({ tools: { include: ['echo', 'add'] } }),
      but: stdioServer({ tools: { exclude: ['crash', 'delete_item'] } }),
    });
    manager.start();
    await waitFor(() => manager.states().every((s) => s.status === 'connected'));
    expect(registry.namesInToolset('mcp-only')).toEqual(['mcp__only__add', 'mcp__only__echo']);
    const but = registry.namesInToolset('mcp-but');
    expect(but).toContain('mcp__but__echo');
    expect(but).not.toContain('mcp__but__crash');
    expect(but).not.toContain('mcp__but__delete_item');
  });

  it('talks streamable HTTP with the configured headers', async () => {
    const http = await startFakeMcpHttp();
    cleanups.push(() => http.close());
    const { registry, manager } = setup(
      { remote: { url: http.url, headers: { Authorization: `Bearer ${envRef('REMOTE_TOKEN')}` } } },
      {},
      { REMOTE_TOKEN: 'remote-token-1' },
    );
    manager.start();
    await waitFor(() => manager.states()[0]?.status === 'connected');
    expect(manager.states()[0]?.transport).toBe('http');
    expect(await registry.dispatch('mcp__remote__echo', { text: 'over http' }, CALL)).toEqual({
      kind: 'ok',
      content: 'echo: over http',
    });
    expect(http.requests.some((headers) => headers.authorization === 'Bearer remote-token-1')).toBe(true);
  });

  it('keeps a dead server’s cached tools unavailable, retries with backoff, and connects once it is up', async () => {
    // A port with nothing behind it yet.
    const probe = await startFakeMcpHttp();
    const port = probe.port;
    await probe.close();
    const { registry, manager, home } = setup({
      remote: { url: `http://127.0.0.1:${port}/mcp`, connect_timeout: 2 },
    });
    // The last listing from an earlier run: the tools are known before any connection.
    writeConfig(home, {});
    const cacheFile = join(home, 'cache', 'mcp-tools.json');
    expect(() => readFileSync(cacheFile)).toThrow();
    manager.start();
    await waitFor(() => (manager.states()[0]?.failures ?? 0) >= 2);
    expect(manager.states()[0]).toMatchObject({ status: 'failed' });
    let http: FakeMcpHttp | undefined;
    http = await startFakeMcpHttp({ port });
    cleanups.push(() => http?.close());
    await waitFor(() => manager.states()[0]?.status === 'connected');
    expect(registry.status(['mcp__remote__echo'])[0]).toMatchObject({ available: true });
    expect(JSON.parse(readFileSync(cacheFile, 'utf8')).servers.remote.tools.length).toBeGreaterThan(3);
    // The server goes away: the tools stay registered but unavailable at once (the ping notices).
    await http.close();
    http = undefined;
    await waitFor(() => manager.states()[0]?.status === 'failed');
    const status = registry.status(['mcp__remote__echo'])[0];
    expect(status).toMatchObject({ available: false });
    expect(status?.reason).toContain("MCP server 'remote' is unreachable");
    const call = await registry.dispatch('mcp__remote__echo', { text: 'x' }, CALL);
    expect(call).toMatchObject({ kind: 'error', code: 'tool_unavailable' });
    expect(registry.getDefinitions(['mcp__remote__echo'])).toEqual([]);
  });

  it('restarts a stdio server that exited, and /reload-mcp-style reload reconnects', async () => {
    const { registry, manager } = setup({ fake: stdioServer() });
    manager.start();
    await waitFor(() => manager.states()[0]?.status === 'connected');
    await registry.dispatch('mcp__fake__crash', {}, CALL);
    await waitFor(
      () => (manager.states()[0]?.failures ?? 0) >= 1 || manager.states()[0]?.status === 'failed',
    );
    await waitFor(() => manager.states()[0]?.status === 'connected');
    expect(await registry.dispatch('mcp__fake__echo', { text: 'back' }, CALL)).toEqual({
      kind: 'ok',
      content: 'echo: back',
    });
    const states = await manager.reload(15_000);
    expect(states[0]).toMatchObject({ name: 'fake', status: 'connected' });
  });

  it('a disabled server registers nothing and never starts', async () => {
    const { registry, manager } = setup({ off: stdioServer({ enabled: false }) });
    manager.start();
    await manager.settled(1_000);
    expect(manager.states()[0]).toMatchObject({ status: 'disabled', tools: 0 });
    expect(registry.namesInToolset('mcp-off')).toEqual([]);
  });
});
