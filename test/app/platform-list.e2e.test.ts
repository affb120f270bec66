import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createGateway } from '../../src/app/create-gateway.js';
import { PLATFORMS } from '../../src/app/platforms.js';
import { loadConfig } from '../../src/config/load-config.js';
import { isHermesError } from '../../src/errors/hermes-error.js';
import { access, type PlatformDefinition } from '../../src/platforms/platform.js';
import { type FakeOpenAi, startFakeOpenAi } from '../fakes/fake-openai.js';
import { startTestGateway, type TestGateway, TOOLS_DIR } from '../gateway/e2e/gateway-kit.js';
import { silentLogger } from '../helpers/test-config.js';

const BIN = resolve(import.meta.dirname, '../../bin/hermes-gateway');

/**
 * A platform written only against the contract (platform.ts, ingress.ts), as a new one would be:
 * `POST /toy/ask` starts an unattended turn through the narrow ingress and answers with its text.
 */
function toyPlatform(prefix = '/toy'): PlatformDefinition {
  return {
    name: 'toy',
    configSection: 'webhook',
    chat: false,
    describe: () => ({ usable: true, detail: 'a toy' }),
    fromConfig: () => ({
      label: 'toy',
      routes: {
        prefix,
        register(app, { ingress }) {
          const turns = ingress.watchTurns('toy', { idsMintedHere: true });
          app.addHook('onClose', () => turns.close());
          app.post<{ Body: { text: string; id: string } }>('/ask', access('public'), async (request) => {
            const { text, id } = request.body;
            const origin = {
              platform: 'toy',
              chatType: 'dm',
              chatId: id,
              unattended: true,
              toolset: 'hermes-api-server',
            } as const;
            const sessionKey = ingress.sessionKey(origin);
            const watch = await turns.watch({ eventId: `toy:${id}`, timeoutMs: 60_000 });
            await ingress.submit({ sessionKey, eventId: `toy:${id}`, text, origin, receivedAt: Date.now() });
            const end = await watch.done;
            return end.type === 'final' ? { answer: end.text, sessionKey } : { error: end };
          });
        },
      },
    }),
  };
}

describe('the platform list', () => {
  let fake: FakeOpenAi;
  let gw: TestGateway | undefined;
  beforeAll(async () => {
    fake = await startFakeOpenAi();
  });
  afterAll(async () => {
    await fake.close();
  });
  afterEach(async () => {
    await gw?.close();
    gw = undefined;
  });

  it('a platform written against the contract alone is built from the list, mounted under its prefix, and runs turns', async () => {
    gw = await startTestGateway({
      mode: 'embedded',
      env: {
        OPENAI_BASE_URL: fake.baseURL,
        OPENAI_API_KEY: 'sk-test-0123456789',
        HERMES_MODEL: 'fake-model',
      },
      platforms: [toyPlatform()],
    });
    expect(gw.gateway.platforms).toEqual(['toy']);
    fake.script({ content: 'hello from the toy' });
    const origin = gw.baseURL.replace(/\/v1$/, '');
    const response = await fetch(`${origin}/toy/ask`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ text: 'hi', id: 'c1' }),
    });
    expect(await response.json()).toEqual({
      answer: 'hello from the toy',
      sessionKey: 'agent:main:toy:dm:c1',
    });
    // Only the listed platforms: the API server was not in this list.
    expect((await fetch(`${gw.baseURL}/models`)).status).toBe(404);
  });

  it('refuses a route prefix that is taken, before anything is opened', async () => {
    for (const platforms of [
      [toyPlatform('/metrics')],
      [toyPlatform('/x'), toyPlatform('/x')],
      [toyPlatform('/')],
    ]) {
      const home = mkdtempSync(join(tmpdir(), 'hermes-prefix-'));
      try {
        const error = await createGateway({
          config: loadConfig({ home, env: {} }),
          logger: silentLogger,
          baseEnv: {},
          builtinToolsDir: TOOLS_DIR,
          role: 'gateway',
          platforms,
        }).catch((e: unknown) => e);
        expect(isHermesError(error, 'config_invalid')).toBe(true);
        expect(String((error as Error).message)).toMatch(/route prefix/);
        expect(existsSync(join(home, 'state.db'))).toBe(false);
      } finally {
        rmSync(home, { recursive: true, force: true });
      }
    }
  });

  it('doctor describes each section of `platforms:` from the list', () => {
    const home = mkdtempSync(join(tmpdir(), 'hermes-doctor-'));
    try {
      const run = spawnSync(process.execPath, [BIN, 'doctor'], {
        encoding: 'utf8',
        env: {
          PATH: process.env['PATH'],
          HERMES_HOME: home,
          TELEGRAM_BOT_TOKEN: '1:abc',
          WEBHOOK_ENABLED: 'true',
        },
        timeout: 120_000,
      });
      expect(run.status).toBe(0);
      const lines = run.stdout.split('\n');
      for (const definition of PLATFORMS) {
        const { usable, detail } = definition.describe(
          loadConfig({ home, env: { TELEGRAM_BOT_TOKEN: '1:abc', WEBHOOK_ENABLED: 'true' } }),
        );
        expect(lines).toContain(`  ${usable ? 'ok  ' : 'no  '} ${definition.name.padEnd(12)} ${detail}`);
      }
      // A section of `platforms:` no platform of the list covers says so.
      const config = loadConfig({ home, env: {} });
      const uncovered = Object.keys(config.platforms).filter(
        (section) => !PLATFORMS.some((definition) => definition.configSection === section),
      );
      for (const section of uncovered) {
        expect(lines).toContain(`  no   ${section.padEnd(12)} this build has no ${section} platform yet`);
      }
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});
