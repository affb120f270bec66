import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../gateway/e2e/gateway-kit.js';

const bin = resolve(import.meta.dirname, '../../bin/hermes-gateway');

describe('tools list and doctor report availability as the running gateway computes it', () => {
  let gw: TestGateway | undefined;
  afterEach(async () => {
    await gw?.close();
    gw = undefined;
  });

  it('every tool is available in the CLI exactly when it is in the gateway (session_search included)', async () => {
    gw = await startTestGateway({
      mode: 'embedded',
      env: { HERMES_MODEL: 'm', OPENAI_BASE_URL: 'http://127.0.0.1:9/v1' },
    });
    const running = new Map(gw.gateway.runtime.registry.status().map((tool) => [tool.name, tool.available]));
    const cli = spawnSync(bin, ['tools', 'list', '--json'], {
      encoding: 'utf8',
      env: {
        PATH: process.env['PATH'] ?? '/usr/bin:/bin',
        HOME: gw.workdir,
        HERMES_HOME: gw.home,
        HERMES_MODEL: 'm',
        OPENAI_BASE_URL: 'http://127.0.0.1:9/v1',
        TERMINAL_CWD: gw.workdir,
      },
      timeout: 60_000,
    });
    expect(cli.status).toBe(0);
    const listed = (JSON.parse(cli.stdout) as { tools: { name: string; available: boolean }[] }).tools;
    expect(new Map(listed.map((tool) => [tool.name, tool.available]))).toEqual(running);
    expect(running.get('session_search')).toBe(true);
  });
});
