import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createRegistry, type Registry } from '../../../src/registry/create-registry.js';
import { defineTool } from '../../../src/registry/define-tool.js';
import { terminalTool } from '../../../src/tools/terminal.js';
import { dumpLeaks, secretLeaks } from '../../helpers/secret-leaks.js';
import { makeTempHome, testConfig } from '../../helpers/test-config.js';
import { realGate } from './gate-kit.js';
import { makeServices, SYSTEM_PATH } from './terminal-test-kit.js';

/** Secrets that only live in $HERMES_HOME/.env, under names the gateway knows nothing about. */
const DB_PASSWORD = 'Pg-pa55/w0rd+in=url';
const SERVICE_TOKEN = 'svc_7Hq2LmZ0pQ4rT9xYw';
const WEBHOOK = 'https://hooks.example.test/services/T0AB/B0CD/s3cr3tPath';
/** In config.yaml under a credential-looking key the schema does not list as secret. */
const ROUTE_SECRET = 'route-hmac-9f8e7d6c5b4a';

let root: ReturnType<typeof makeTempHome>;
let registry: Registry;

beforeEach(() => {
  root = makeTempHome('hermes-scrub-');
  const hermesHome = join(root.home, '.hermes-gateway');
  mkdirSync(hermesHome);
  writeFileSync(
    join(hermesHome, '.env'),
    [
      '# my services',
      `DATABASE_URL=postgres://app:${encodeURIComponent(DB_PASSWORD)}@db.internal:5432/app`,
      `MY_SERVICE_TOKEN=${SERVICE_TOKEN}`,
      `SLACK_WEBHOOK_URL=${WEBHOOK}`,
      'HERMES_HTTP_PORT=8642',
      '',
    ].join('\n'),
  );
  writeFileSync(
    join(hermesHome, 'config.yaml'),
    [
      "approvals:\n  mode: 'off'",
      'platforms:',
      '  webhook:',
      '    enabled: true',
      '    routes:',
      `      deploy: { secret: ${ROUTE_SECRET}, prompt: "x" }`,
      '',
    ].join('\n'),
  );
  const config = testConfig(hermesHome);
  registry = createRegistry({
    services: makeServices(config, {
      approvalGate: realGate(config),
      baseEnv: { PATH: SYSTEM_PATH, HOME: root.home },
    }),
  });
  registry.register(terminalTool);
});
afterEach(() => root.cleanup());

async function terminal(command: string): Promise<{ kind: string; content: string }> {
  return registry.dispatch(
    'terminal',
    { command },
    { sessionKey: 'agent:main:test:dm:1', taskId: 't', cwd: root.home },
  );
}

function leaksIn(text: string): string[] {
  const found: string[] = [];
  for (const secret of [DB_PASSWORD, SERVICE_TOKEN, WEBHOOK, ROUTE_SECRET]) {
    for (const leak of [...secretLeaks(text, secret), ...dumpLeaks(text, secret)])
      found.push(`${secret}: ${leak}`);
  }
  return found;
}

describe('tool output is scrubbed of every secret the gateway knows, in any common spelling', () => {
  it.each([
    'cat ~/.hermes-gateway/.env',
    'base64 ~/.hermes-gateway/.env',
    'base64 -w0 ~/.hermes-gateway/.env',
    'cat ~/.hermes-gateway/.env | base64 | base64 -d | base64 -w 50',
    'printf xy | cat - ~/.hermes-gateway/.env | base64',
    'xxd -p ~/.hermes-gateway/.env',
    'xxd ~/.hermes-gateway/.env',
    'od -A n -t x1 ~/.hermes-gateway/.env',
    'od -c ~/.hermes-gateway/.env',
    'hexdump -C ~/.hermes-gateway/.env',
    'jq -sRr @uri ~/.hermes-gateway/.env',
    'grep -r . ~/.hermes-gateway',
  ])('%s', async (command) => {
    const result = await terminal(command);
    expect(result.kind).toBe('ok');
    expect(result.content).toContain('[redacted]');
    expect(leaksIn(result.content)).toEqual([]);
  });

  it('keeps ordinary output (and the non-secret settings of .env) readable', async () => {
    const result = await terminal('echo hello 8642; grep PORT ~/.hermes-gateway/.env');
    expect(JSON.parse(result.content)['output']).toBe('hello 8642\nHERMES_HTTP_PORT=8642');
  });

  it('scrubs error texts too', async () => {
    const result = await registry.dispatch(
      'terminal',
      { command: 'true', workdir: `/nonexistent/${SERVICE_TOKEN}` },
      { sessionKey: 'agent:main:test:dm:1', taskId: 't', cwd: root.home },
    );
    expect(result.kind).toBe('error');
    expect(result.content).not.toContain(SERVICE_TOKEN);
  });

  it('scrubs the results of every tool, not only the terminal', async () => {
    registry.register(
      defineTool({
        name: 'leaky',
        toolset: 'test',
        description: 'returns what it was given',
        parameters: z.object({ text: z.string() }),
        handler: (args) => ({
          echoed: args.text,
          nested: [{ again: Buffer.from(args.text).toString('base64') }],
        }),
      }),
    );
    const result = await registry.dispatch(
      'leaky',
      { text: `token=${SERVICE_TOKEN}` },
      { sessionKey: 's', taskId: 't' },
    );
    expect(result.kind).toBe('ok');
    expect(leaksIn(result.content)).toEqual([]);
  });
});
