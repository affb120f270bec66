import { describe, expect, it } from 'vitest';
import { FALLBACK_PATH, gatewaySecretEnvNames, scrubEnv } from '../../../src/tools/terminal/scrub-env.js';

describe('scrubEnv', () => {
  it("drops the gateway's own secret variables and credential-looking names", () => {
    const env = scrubEnv({
      PATH: '/usr/bin',
      HOME: '/home/x',
      LANG: 'C.UTF-8',
      TELEGRAM_BOT_TOKEN: 't',
      OPENAI_API_KEY: 'k',
      REDIS_URL: 'redis://secret@host',
      FEISHU_ENCRYPT_KEY: 'e',
      SUDO_PASSWORD: 'p',
      GITHUB_TOKEN: 'g',
      AWS_SECRET_ACCESS_KEY: 'a',
      db_password: 'd',
      SSH_PRIVATE_KEY: 's',
      UNSET: undefined,
    });
    expect(env).toEqual({ PATH: '/usr/bin', HOME: '/home/x', LANG: 'C.UTF-8' });
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
});
