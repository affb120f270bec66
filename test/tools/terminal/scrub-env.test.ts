import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isHermesError } from '../../../src/errors/hermes-error.js';
import {
  childEnv,
  envNameMatcher,
  FALLBACK_PATH,
  gatewaySecretEnvNames,
  passingEnvNames,
  scrubEnv,
} from '../../../src/tools/terminal/scrub-env.js';
import { makeTempHome } from '../../helpers/test-config.js';
import { configWith } from './gate-kit.js';

/** What a gateway started from a developer's shell typically has in its environment. */
const GATEWAY_ENV = {
  PATH: '/usr/bin',
  HOME: '/home/x',
  USER: 'x',
  LOGNAME: 'x',
  SHELL: '/bin/bash',
  LANG: 'C.UTF-8',
  LANGUAGE: 'en',
  LC_ALL: 'C.UTF-8',
  LC_TIME: 'en_GB.UTF-8',
  TZ: 'UTC',
  TERM: 'xterm',
  TMPDIR: '/tmp',
  NO_COLOR: '1',
  COLORTERM: 'truecolor',
  PWD: '/somewhere/else',
  TELEGRAM_BOT_TOKEN: 't',
  OPENAI_API_KEY: 'k',
  REDIS_URL: 'redis://secret@host',
  API_SERVER_KEY: 'api',
  DATABASE_URL: 'postgres://u:p@db/x',
  GITHUB_PAT: 'github_pat_value',
  MY_SERVICE_AUTH: 'auth-value',
  SLACK_WEBHOOK_URL: 'https://hooks.slack.com/services/T/B/X',
  AWS_PROFILE: 'prod',
  NPM_CONFIG_USERCONFIG: '/home/x/.npmrc',
  UNSET: undefined,
};

describe('scrubEnv: an allowlist', () => {
  it('passes only the base names, whatever the others are called', () => {
    expect(scrubEnv(GATEWAY_ENV)).toEqual({
      PATH: '/usr/bin',
      HOME: '/home/x',
      USER: 'x',
      LOGNAME: 'x',
      SHELL: '/bin/bash',
      LANG: 'C.UTF-8',
      LANGUAGE: 'en',
      LC_ALL: 'C.UTF-8',
      LC_TIME: 'en_GB.UTF-8',
      TZ: 'UTC',
      TERM: 'xterm',
      TMPDIR: '/tmp',
      NO_COLOR: '1',
    });
  });

  it('adds terminal.env_passthrough names and globs, never a gateway secret', () => {
    const { env, passedThrough } = childEnv(GATEWAY_ENV, ['GITHUB_PAT', 'MY_*', 'AWS_PROFIL?']);
    expect(env['GITHUB_PAT']).toBe('github_pat_value');
    expect(env['MY_SERVICE_AUTH']).toBe('auth-value');
    expect(env['AWS_PROFILE']).toBe('prod');
    expect(passedThrough).toEqual(['AWS_PROFILE', 'GITHUB_PAT', 'MY_SERVICE_AUTH']);
    // A catch-all glob still stops at the gateway's own secrets.
    const all = scrubEnv(GATEWAY_ENV, ['*']);
    for (const name of [
      'TELEGRAM_BOT_TOKEN',
      'OPENAI_API_KEY',
      'REDIS_URL',
      'API_SERVER_KEY',
      'DATABASE_URL',
    ]) {
      expect(all[name]).toBeUndefined();
    }
    expect(all['SLACK_WEBHOOK_URL']).toBeDefined();
  });

  it('lets client-only names reach the backend program', () => {
    const { env, passedThrough } = childEnv(
      { PATH: '/bin', SSH_AUTH_SOCK: '/run/agent' },
      [],
      ['SSH_AUTH_SOCK'],
    );
    expect(env['SSH_AUTH_SOCK']).toBe('/run/agent');
    expect(passedThrough).toEqual([]);
  });

  it('derives the secret names from the env bindings of secret config paths', () => {
    const names = gatewaySecretEnvNames();
    for (const name of [
      'REDIS_URL',
      'OPENAI_API_KEY',
      'WEBHOOK_SECRET',
      'FEISHU_ENCRYPT_KEY',
      'SUDO_PASSWORD',
    ]) {
      expect(names.has(name)).toBe(true);
    }
    expect(names.has('TERMINAL_CWD')).toBe(false);
  });

  it('always provides a PATH', () => {
    expect(scrubEnv(undefined)).toEqual({ PATH: FALLBACK_PATH });
  });

  it('matches globs case-sensitively and anchored', () => {
    const match = envNameMatcher(['LC_*', 'A?C']);
    expect(match('LC_ALL')).toBe(true);
    expect(match('lc_all')).toBe(false);
    expect(match('XLC_ALL')).toBe(false);
    expect(match('ABC')).toBe(true);
    expect(match('ABBC')).toBe(false);
  });

  it('lists the names that pass (never values) for doctor', () => {
    const listed = passingEnvNames(GATEWAY_ENV, ['GITHUB_PAT']);
    expect(listed.passthrough).toEqual(['GITHUB_PAT']);
    expect(listed.base).toContain('PATH');
    expect(JSON.stringify(listed)).not.toContain('github_pat_value');
  });
});

describe('terminal.env_passthrough in config', () => {
  let temp: ReturnType<typeof makeTempHome>;
  beforeEach(() => {
    temp = makeTempHome('hermes-passthrough-');
  });
  afterEach(() => temp.cleanup());

  it('accepts names and globs', () => {
    const config = configWith(temp.home, 'terminal:\n  env_passthrough: [GITHUB_PAT, "AWS_*"]\n');
    expect(config.terminal.env_passthrough).toEqual(['GITHUB_PAT', 'AWS_*']);
  });

  it("refuses an entry naming one of the gateway's own secrets", () => {
    let error: unknown;
    try {
      configWith(temp.home, 'terminal:\n  env_passthrough: [API_SERVER_KEY, TELEGRAM_BOT_TOKEN, OK_NAME]\n');
    } catch (thrown) {
      error = thrown;
    }
    expect(isHermesError(error) && error.code === 'config_invalid').toBe(true);
    expect(String((error as Error).message)).toMatch(
      /terminal\.env_passthrough.*API_SERVER_KEY, TELEGRAM_BOT_TOKEN are the gateway's own secrets/,
    );
  });

  it('refuses an entry that is not a variable name', () => {
    expect(() => configWith(temp.home, 'terminal:\n  env_passthrough: ["A=B"]\n')).toThrow(/env_passthrough/);
  });
});
