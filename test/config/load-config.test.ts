import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig, resolveHome } from '../../src/config/load-config.js';
import { maskSecrets, secretValues } from '../../src/config/mask-secrets.js';
import { makeTempHome } from '../helpers/test-config.js';

describe('loadConfig', () => {
  let temp: { home: string; cleanup: () => void };
  beforeEach(() => {
    temp = makeTempHome();
  });
  afterEach(() => temp.cleanup());

  it('gives the documented defaults with no file and no environment', () => {
    const config = loadConfig({ env: {}, home: temp.home });
    expect(config.http).toStrictEqual({ host: '127.0.0.1', port: 8642, metrics_auth: 'auto' });
    expect(config.approvals.mode).toBe('manual');
    expect(config.approvals.timeout).toBe(300);
    expect(config.tools.max_result_chars).toBe(100_000);
    expect(config.agent.max_turns).toBe(90);
    expect(config.home).toBe(temp.home);
    expect(config.configPath).toBe(join(temp.home, 'config.yaml'));
  });

  it('layers the environment over config.yaml, and .env under the environment', () => {
    writeFileSync(join(temp.home, 'config.yaml'), 'http:\n  port: 9000\nmodel:\n  name: from-file\n');
    writeFileSync(join(temp.home, '.env'), 'HERMES_MODEL=from-dotenv\nTELEGRAM_BOT_TOKEN=123:abc\n');
    const config = loadConfig({
      env: { HERMES_MODEL: 'from-env', TELEGRAM_ALLOWED_USERS: '1, 2 ,,3', HERMES_YOLO_MODE: '1' },
      home: temp.home,
    });
    expect(config.http.port).toBe(9000);
    expect(config.model.name).toBe('from-env');
    expect(config.platforms.telegram.bot_token).toBe('123:abc');
    expect(config.platforms.telegram.allowed_users).toStrictEqual(['1', '2', '3']);
    expect(config.approvals.yolo).toBe(true);
  });

  it('reads the Hermes allow-all variables', () => {
    const config = loadConfig({
      env: {
        GATEWAY_ALLOW_ALL_USERS: 'true',
        TELEGRAM_ALLOW_ALL_USERS: '1',
        DISCORD_ALLOW_ALL_USERS: 'false',
      },
      home: temp.home,
    });
    expect(config.gateway.allow_all).toBe(true);
    expect(config.platforms.telegram.allow_all).toBe(true);
    expect(config.platforms.discord.allow_all).toBe(false);
    expect(config.platforms.feishu.allow_all).toBe(false);
    expect(() => loadConfig({ env: { FEISHU_ALLOW_ALL_USERS: 'maybe' }, home: temp.home })).toThrow(
      /FEISHU_ALLOW_ALL_USERS/,
    );
  });

  it('is deeply frozen', () => {
    const config = loadConfig({ env: {}, home: temp.home });
    expect(Object.isFrozen(config)).toBe(true);
    expect(Object.isFrozen(config.approvals.deny)).toBe(true);
    expect(() => {
      (config.http as { port: number }).port = 1;
    }).toThrow();
  });

  it('names an unknown key with its path and the file', () => {
    writeFileSync(join(temp.home, 'config.yaml'), 'approvals:\n  mdoe: smart\n');
    expect(() => loadConfig({ env: {}, home: temp.home })).toThrow(/approvals\.mdoe/);
    expect(() => loadConfig({ env: {}, home: temp.home })).toThrow(join(temp.home, 'config.yaml'));
  });

  it('names a wrong value with its path', () => {
    writeFileSync(join(temp.home, 'config.yaml'), 'approvals:\n  mode: sometimes\n');
    expect(() => loadConfig({ env: {}, home: temp.home })).toThrow(/'approvals\.mode'/);
  });

  it('rejects malformed YAML and non-mapping documents clearly', () => {
    writeFileSync(join(temp.home, 'config.yaml'), 'a: [1, 2\n');
    expect(() => loadConfig({ env: {}, home: temp.home })).toThrow(/not valid YAML/);
    writeFileSync(join(temp.home, 'config.yaml'), '- 1\n- 2\n');
    expect(() => loadConfig({ env: {}, home: temp.home })).toThrow(/mapping/);
  });

  it('rejects malformed environment values, naming the variable', () => {
    expect(() => loadConfig({ env: { HERMES_HTTP_PORT: 'eighty' }, home: temp.home })).toThrow(
      /HERMES_HTTP_PORT/,
    );
    expect(() => loadConfig({ env: { HERMES_YOLO_MODE: 'maybe' }, home: temp.home })).toThrow(
      /HERMES_YOLO_MODE/,
    );
    expect(() => loadConfig({ env: { TERMINAL_ENV: 'k8s' }, home: temp.home })).toThrow(/terminal\.backend/);
  });

  it('treats empty environment values as unset', () => {
    expect(loadConfig({ env: { HERMES_HTTP_PORT: '' }, home: temp.home }).http.port).toBe(8642);
  });

  it('resolves HERMES_HOME from the environment, then the default', () => {
    expect(resolveHome({ HERMES_HOME: temp.home })).toBe(temp.home);
    expect(resolveHome({})).toMatch(/\.hermes-gateway$/);
  });

  it('masks secrets behind wildcard paths, such as every webhook route secret', () => {
    writeFileSync(
      join(temp.home, 'config.yaml'),
      'platforms:\n  webhook:\n    routes:\n      gh:\n        secret: route-secret-value-123\n        auth: github\n',
    );
    const config = loadConfig({ env: {}, home: temp.home });
    expect(JSON.stringify(maskSecrets(config))).not.toContain('route-secret-value-123');
    expect(secretValues(config)).toContain('route-secret-value-123');
  });

  it('masks every secret', () => {
    const config = loadConfig({
      env: {
        OPENAI_API_KEY: 'sk-live-0123456789abcdef',
        TELEGRAM_BOT_TOKEN: '42:tokentokentoken',
        REDIS_URL: 'redis://:pw@h:6379',
      },
      home: temp.home,
    });
    const text = JSON.stringify(maskSecrets(config));
    expect(text).not.toContain('0123456789abcdef');
    expect(text).not.toContain('tokentokentoken');
    expect(text).not.toContain(':pw@');
    expect(config.model.api_key).toBe('sk-live-0123456789abcdef');
  });
});
