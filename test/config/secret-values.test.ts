import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { isSecretName, maskSecrets, secretValues, urlPasswords } from '../../src/config/mask-secrets.js';
import { makeTempHome, testConfig } from '../helpers/test-config.js';

let temp: ReturnType<typeof makeTempHome>;
beforeEach(() => {
  temp = makeTempHome('hermes-secret-values-');
});
afterEach(() => temp.cleanup());

describe('secretValues', () => {
  it('finds every value of $HERMES_HOME/.env, except the gateway’s own non-secret settings', () => {
    writeFileSync(
      join(temp.home, '.env'),
      'DATABASE_URL=postgres://app:db-pass-123@db/x\nMY_SERVICE_AUTH=auth-value-xyz\nMULTI="line one\nline two"\nHERMES_HTTP_HOST=127.0.0.1\nSHORT=abc\n',
    );
    const config = testConfig(temp.home);
    const values = secretValues(config);
    expect(values).toContain('postgres://app:db-pass-123@db/x');
    expect(values).toContain('db-pass-123');
    expect(values).toContain('auth-value-xyz');
    expect(values).toContain('line one\nline two');
    expect(values).not.toContain('127.0.0.1');
    expect(values).not.toContain('abc');
  });

  it('finds credential-named variables of the environment, and URL passwords in any variable', () => {
    const config = testConfig(temp.home, {
      GITHUB_PAT: 'github_pat_1234567',
      MY_SERVICE_AUTH: 'svc-auth-7654321',
      SOME_URL: 'https://user:url-pass-42@example.test/',
      EDITOR: 'vim-not-a-secret',
    });
    const values = secretValues(config);
    expect(values).toEqual(expect.arrayContaining(['github_pat_1234567', 'svc-auth-7654321', 'url-pass-42']));
    expect(values).not.toContain('vim-not-a-secret');
  });

  it('never shows the discovered values in doctor output, JSON or copies of the config', () => {
    writeFileSync(join(temp.home, '.env'), 'MY_SERVICE_TOKEN=only-in-dotenv-123\n');
    const config = testConfig(temp.home);
    expect(secretValues(config)).toContain('only-in-dotenv-123');
    expect(stringify(maskSecrets(config))).not.toContain('only-in-dotenv-123');
    expect(JSON.stringify(config)).not.toContain('only-in-dotenv-123');
    expect(JSON.stringify({ ...config })).not.toContain('only-in-dotenv-123');
  });

  it('finds strings under credential-looking keys anywhere in a config, but not enum-like settings', () => {
    const values = secretValues({
      integrations: { billing: { api_key: 'bill-key-0001', auth: 'bearer' }, hooks: ['x'] },
      deliver: { headers: { Authorization: 'Bearer tok-777777' } },
      plain: { name: 'not-secret-name' },
    });
    expect(values).toEqual(expect.arrayContaining(['bill-key-0001', 'Bearer tok-777777']));
    expect(values).not.toContain('bearer');
    expect(values).not.toContain('not-secret-name');
  });
});

describe('isSecretName / urlPasswords', () => {
  it.each([
    ['GITHUB_PAT', true],
    ['MY_SERVICE_AUTH', true],
    ['SLACK_WEBHOOK_URL', true],
    ['db_password', true],
    ['apiKey', true],
    ['EDITOR', false],
    ['HOME', false],
    ['XAUTHORITY', false],
  ])('%s → %s', (name, expected) => {
    expect(isSecretName(name)).toBe(expected);
  });

  it('reads passwords out of URLs, encoded and decoded', () => {
    expect(urlPasswords('redis://:p%40ss@host:6379 and https://u:plain@h/')).toEqual([
      'p%40ss',
      'p@ss',
      'plain',
    ]);
  });
});
