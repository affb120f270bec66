import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { distStatus } from '../../scripts/source-fingerprint.mjs';
import { makeTempHome } from '../helpers/test-config.js';

const root = resolve(import.meta.dirname, '../..');
const bin = resolve(root, 'bin/hermes-gateway');

/** Runs the real executable, as a user would, with a clean environment. */
function run(args: string[], env: Record<string, string>, input?: string) {
  const result = spawnSync(bin, args, {
    encoding: 'utf8',
    env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', HOME: env['HOME'] ?? '/tmp', ...env },
    input,
    timeout: 60_000,
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('bin/hermes-gateway', () => {
  let temp: { home: string; cleanup: () => void };
  beforeEach(() => {
    temp = makeTempHome();
  });
  afterEach(() => temp.cleanup());

  it('tools list --json shows the presets and every tool with its availability', () => {
    const { code, stdout } = run(['tools', 'list', '--json'], { HERMES_HOME: temp.home });
    expect(code).toBe(0);
    const doc = JSON.parse(stdout) as {
      toolsets: Record<string, { tools: string[]; includes: string[] }>;
      tools: { name: string; toolset: string; available: boolean; reason?: string }[];
    };
    for (const preset of [
      'hermes-telegram',
      'hermes-discord',
      'hermes-feishu',
      'hermes-api-server',
      'hermes-webhook',
      'hermes-gateway',
    ]) {
      expect(doc.toolsets).toHaveProperty(preset);
    }
    expect(doc.toolsets['hermes-webhook']?.tools.sort()).toStrictEqual([
      'clarify',
      'vision_analyze',
      'web_extract',
      'web_search',
    ]);
    const byName = new Map(doc.tools.map((t) => [t.name, t]));
    expect(byName.get('read_file')).toMatchObject({ toolset: 'file', available: true });
    expect(byName.get('web_search')).toMatchObject({ available: false });
    expect(byName.get('web_search')?.reason).toMatch(/search provider/);
  });

  it('tools list --toolset resolves one toolset, and an unknown one exits 2', () => {
    const ok = run(['tools', 'list', '--toolset', 'hermes-webhook', '--json'], { HERMES_HOME: temp.home });
    expect(ok.code).toBe(0);
    expect(JSON.parse(ok.stdout)).toStrictEqual({
      toolset: 'hermes-webhook',
      tools: ['clarify', 'vision_analyze', 'web_extract', 'web_search'],
    });
    const bad = run(['tools', 'list', '--toolset', 'no-such-set'], { HERMES_HOME: temp.home });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("unknown toolset 'no-such-set'");
  });

  it('doctor masks secrets and says what is missing', () => {
    const secret = 'sk-doctor-test-0123456789abcdef';
    const { code, stdout } = run(['doctor'], {
      HERMES_HOME: temp.home,
      OPENAI_API_KEY: secret,
      TELEGRAM_BOT_TOKEN: '12345:ABCDEFGHIJKLMNOP',
    });
    expect(code).toBe(0);
    expect(stdout).not.toContain('0123456789abcdef');
    expect(stdout).not.toContain('ABCDEFGHIJKLMNOP');
    expect(stdout).toContain('no model configured');
    expect(stdout).toContain('# config file: none (all defaults');
    expect(stdout).toContain('web_search');
  });

  it('doctor says where each kind of session runs commands and names (never shows) the variables they get', () => {
    writeFileSync(join(temp.home, 'config.yaml'), 'terminal:\n  env_passthrough: [GITHUB_PAT]\n');
    const { code, stdout } = run(['doctor'], {
      HERMES_HOME: temp.home,
      GITHUB_PAT: 'github_pat_doctor_value_123',
      MY_SERVICE_AUTH: 'auth-doctor-value',
    });
    expect(code).toBe(0);
    expect(stdout).toContain('chats (telegram, discord, feishu): local');
    expect(stdout).toMatch(/unattended \(api_server, webhooks, delegated tasks\): sandbox/);
    expect(stdout).toContain('passed through (terminal.env_passthrough): GITHUB_PAT');
    expect(stdout).toMatch(/environment of commands \(allowlist\): .*HOME.*PATH/);
    expect(stdout).not.toContain('MY_SERVICE_AUTH');
    expect(stdout).not.toContain('github_pat_doctor_value_123');
  });

  it('runs the compiled build while dist/ matches the sources, the sources otherwise, and says which', () => {
    const { code, stdout } = run(['doctor'], { HERMES_HOME: temp.home });
    expect(code).toBe(0);
    const status = distStatus(root);
    // After npm install (CI) dist/ is current; after an edit the sources run until npm run build.
    expect(stdout).toContain(
      status.current
        ? '# code: compiled build (dist/)'
        : `# code: TypeScript sources through tsx: ${status.reason}`,
    );
  });

  it('loads TypeScript plugins (.ts in a folder without package.json, and .mts) in either mode', () => {
    const plugins = join(temp.home, 'plugins');
    mkdirSync(plugins);
    const plugin = (name: string) =>
      [
        'interface Api { readonly defineTool: (d: object) => unknown; readonly z: { object(shape: object): unknown } }',
        `export default ({ defineTool, z }: Api) => defineTool({ name: '${name}', toolset: 'plugin_demo', description: 'demo', parameters: z.object({}), handler: () => 'ok' });`,
        '',
      ].join('\n');
    writeFileSync(join(plugins, 'one.ts'), plugin('plugin_ts'));
    writeFileSync(join(plugins, 'two.mts'), plugin('plugin_mts'));
    const { code, stdout, stderr } = run(['tools', 'list', '--json'], { HERMES_HOME: temp.home });
    expect(code).toBe(0);
    expect(stderr).not.toContain('failed to load');
    const doc = JSON.parse(stdout) as { tools: { name: string; toolset: string }[] };
    const names = doc.tools.filter((t) => t.toolset === 'plugin_demo').map((t) => t.name);
    expect(names.sort()).toStrictEqual(['plugin_mts', 'plugin_ts']);
  });

  it('a config with a wrong key stops with exit 2 naming the key and the file', () => {
    writeFileSync(join(temp.home, 'config.yaml'), 'terminal:\n  backnd: docker\n');
    const { code, stderr } = run(['doctor'], { HERMES_HOME: temp.home });
    expect(code).toBe(2);
    expect(stderr).toContain("'terminal.backnd'");
    expect(stderr).toContain(join(temp.home, 'config.yaml'));
  });

  it('approval check answers in JSON, one line per --stdin line', () => {
    const input = `${JSON.stringify('rm -rf /')}\n${JSON.stringify('ls -la')}\n`;
    const { code, stdout } = run(
      ['approval', 'check', '--stdin', '--json'],
      { HERMES_HOME: temp.home },
      input,
    );
    expect(code).toBe(0);
    const lines = stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { verdict: string });
    expect(lines.map((l) => l.verdict)).toStrictEqual(['hardline', 'safe']);
  });

  it('an unknown command exits 2 with the usage', () => {
    const { code, stderr } = run(['frobnicate'], { HERMES_HOME: temp.home });
    expect(code).toBe(2);
    expect(stderr).toContain('usage: hermes-gateway');
  });
});
