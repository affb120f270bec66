import { Readable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli.js';
import { loadConfig } from '../../src/config/load-config.js';
import { type FakeMcpHttp, startFakeMcpHttp } from '../fakes/fake-mcp/fake-mcp-server.js';
import { makeTempHome } from '../helpers/test-config.js';
import { writeConfig } from '../tools/mcp/mcp-helpers.js';

async function cli(home: string, argv: string[]): Promise<{ code: number; out: string }> {
  let out = '';
  const code = await runCli(
    argv,
    { stdin: Readable.from([]), stdout: (t) => (out += t), stderr: () => {}, isTty: false },
    {
      loadConfig: () => loadConfig({ env: {}, home }),
      baseEnv: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', HOME: home },
      stopSignal: () => new Promise(() => {}),
      code: { code: 'compiled' },
    },
  );
  return { code, out };
}

describe('tools list and doctor show MCP servers (connecting, or from the cached listing)', () => {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  it('connects to list a server’s tools, then falls back to the cached listing when it is down', async () => {
    const temp = makeTempHome('hermes-mcp-cli-');
    cleanups.push(temp.cleanup);
    let http: FakeMcpHttp | undefined = await startFakeMcpHttp();
    cleanups.push(() => http?.close());
    writeConfig(temp.home, { mcp_servers: { remote: { url: http.url, connect_timeout: 3 } } });

    const live = await cli(temp.home, ['tools', 'list', '--json']);
    expect(live.code).toBe(0);
    const tools = (JSON.parse(live.out) as { tools: { name: string; toolset: string; available: boolean }[] })
      .tools;
    expect(tools).toContainEqual({ name: 'mcp__remote__echo', toolset: 'mcp-remote', available: true });

    await http.close();
    http = undefined;
    const cached = await cli(temp.home, ['tools', 'list', '--toolset', 'mcp-remote']);
    expect(cached.code).toBe(0);
    expect(cached.out).toMatch(/^mcp-remote: \d+ tools/);
    expect(cached.out).toMatch(/mcp__remote__echo {2}unavailable: MCP server 'remote' is unreachable/);

    const doctor = await cli(temp.home, ['doctor']);
    expect(doctor.code).toBe(0);
    expect(doctor.out).toContain('## MCP servers');
    expect(doctor.out).toMatch(/no {3}remote {7}failed \(http\): /);
  });

  it('an unknown server name in config is refused with the key named', async () => {
    const temp = makeTempHome('hermes-mcp-cli-');
    cleanups.push(temp.cleanup);
    writeConfig(temp.home, { mcp_servers: { Bad__Name: { url: 'http://127.0.0.1:9/mcp' } } });
    expect(() => loadConfig({ env: {}, home: temp.home })).toThrow(/mcp_servers/);
  });
});
