import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isHermesError } from '../../src/errors/hermes-error.js';
import { ToolPause } from '../../src/registry/tool-pause.js';
import type { ToolServices } from '../../src/registry/tool-services.js';
import { terminalTool } from '../../src/tools/terminal.js';
import { makeTempHome } from '../helpers/test-config.js';
import { configWith, realGate } from './terminal/gate-kit.js';
import {
  fileExists,
  isAlive,
  makeCtx,
  makeServices,
  readPid,
  SYSTEM_PATH,
  waitUntil,
  writeScript,
} from './terminal/terminal-test-kit.js';

let temp: ReturnType<typeof makeTempHome>;
let workDir: ReturnType<typeof makeTempHome>;
let work: string;
beforeEach(() => {
  temp = makeTempHome('hermes-terminal-');
  // Outside HERMES_HOME: writing there is itself a dangerous command for the gate.
  workDir = makeTempHome('hermes-work-');
  work = workDir.home;
});
afterEach(() => {
  temp.cleanup();
  workDir.cleanup();
});

function setup(yaml = '', baseEnv: Record<string, string> = { PATH: SYSTEM_PATH, HOME: temp.home }) {
  const config = configWith(temp.home, yaml);
  const gate = realGate(config);
  const services = makeServices(config, { approvalGate: gate, baseEnv });
  return { config, gate, services };
}

function run(
  services: ToolServices,
  args: Record<string, unknown>,
  options: Parameters<typeof makeCtx>[1] = { cwd: work },
) {
  return terminalTool.handler(terminalTool.parameters.parse(args), makeCtx(services, options));
}

/** A PATH whose first directory has a fake `rm` that only leaves a marker file behind. */
function fakeRmPath(): { path: string; marker: string } {
  const marker = join(temp.home, 'rm-ran');
  const dir = join(temp.home, 'fake-bin');
  writeScript(dir, 'rm', `touch '${marker}'`);
  return { path: `${dir}:${SYSTEM_PATH}`, marker };
}

describe('terminal: running commands', () => {
  it('returns output and exit code', async () => {
    const { services } = setup();
    expect(await run(services, { command: 'echo hello' })).toEqual({
      output: 'hello',
      exit_code: 0,
      error: null,
    });
  });

  it('reports a non-zero exit with stdout and stderr together', async () => {
    const { services } = setup();
    const reply = (await run(services, { command: 'echo out; echo err >&2; exit 3' })) as Record<
      string,
      unknown
    >;
    expect(reply['exit_code']).toBe(3);
    expect(reply['output']).toContain('out');
    expect(reply['output']).toContain('err');
    expect(reply['error']).toBeNull();
  });

  it('kills the whole process group on timeout', async () => {
    const { services } = setup();
    const pidFile = join(work, 'child.pid');
    const reply = (await run(services, {
      command: `sleep 300 & echo $! > ${pidFile}; wait`,
      timeout: 1,
    })) as Record<string, unknown>;
    expect(reply['timed_out']).toBe(true);
    expect(reply['exit_code']).toBeNull();
    expect(String(reply['error'])).toMatch(/timed out after 1 s/);
    const child = readPid(pidFile);
    await waitUntil(() => !isAlive(child));
  });

  it('kills the whole process group when the turn is aborted', async () => {
    const { services } = setup();
    const pidFile = join(work, 'child.pid');
    const controller = new AbortController();
    const running = run(
      services,
      { command: `sleep 300 & echo $! > ${pidFile}; wait` },
      { cwd: work, signal: controller.signal },
    );
    await waitUntil(() => fileExists(pidFile) && readFileSync(pidFile, 'utf8').trim() !== '');
    controller.abort();
    await expect(running).rejects.toMatchObject({ name: 'AbortError' });
    const child = readPid(pidFile);
    await waitUntil(() => !isAlive(child));
  });

  it('caps long output keeping head and tail', async () => {
    const { services } = setup('terminal:\n  max_output_chars: 200\n');
    const reply = (await run(services, { command: 'seq 1 5000' })) as Record<string, unknown>;
    const output = String(reply['output']);
    expect(output.startsWith('1\n2\n3\n')).toBe(true);
    expect(output.endsWith('4999\n5000')).toBe(true);
    expect(output).toMatch(/\[… \d+ characters omitted …\]/);
    expect(output.length).toBeLessThan(260);
  });

  it('gives commands an allowlisted environment: credentials under any name stay out', async () => {
    const { services } = setup('terminal:\n  env_passthrough: [PLAIN_SETTING, "MY_*"]\n', {
      PATH: SYSTEM_PATH,
      LANG: 'C.UTF-8',
      PLAIN_SETTING: 'visible-value',
      MY_TOOL_HOME: 'passed-by-glob',
      TELEGRAM_BOT_TOKEN: 'tg-secret-value',
      REDIS_URL: 'redis://user:pw@host',
      SOME_API_KEY: 'key-value',
      GITHUB_PAT: 'github-pat-value',
      SERVICE_AUTH: 'service-auth-value',
      SLACK_WEBHOOK_URL: 'https://hooks.slack.example/services/T0/B0/xyz',
    });
    const output = String(((await run(services, { command: 'env' })) as Record<string, unknown>)['output']);
    expect(output).toContain('PLAIN_SETTING=visible-value');
    expect(output).toContain('MY_TOOL_HOME=passed-by-glob');
    expect(output).toContain('LANG=C.UTF-8');
    for (const hidden of [
      'TELEGRAM_BOT_TOKEN',
      'REDIS_URL',
      'SOME_API_KEY',
      'tg-secret-value',
      'GITHUB_PAT',
      'github-pat-value',
      'SERVICE_AUTH',
      'SLACK_WEBHOOK_URL',
      'hooks.slack.example',
    ]) {
      expect(output).not.toContain(hidden);
    }
  });

  it('runs in workdir resolved against the session cwd', async () => {
    const { services } = setup();
    mkdirSync(join(work, 'sub'));
    const reply = (await run(services, { command: 'pwd', workdir: 'sub' })) as Record<string, unknown>;
    expect(reply['output']).toBe(join(work, 'sub'));
    expect(((await run(services, { command: 'pwd' })) as Record<string, unknown>)['output']).toBe(work);
  });

  it('refuses a workdir that does not exist', async () => {
    const { services } = setup();
    await expect(run(services, { command: 'pwd', workdir: 'missing' })).rejects.toThrow(
      /working directory does not exist/,
    );
  });

  it('refuses a foreground timeout above the limit', async () => {
    const { services } = setup();
    await expect(run(services, { command: 'true', timeout: 5000 })).rejects.toThrow(/background: true/);
  });

  it('refuses background: true without a process table', async () => {
    const { services } = setup();
    await expect(run(services, { command: 'true', background: true })).rejects.toThrow(/not available/);
  });

  it('feeds the configured sudo password to sudo -S and never shows it', async () => {
    const secret = 'hunter2-secret-pw';
    const dir = join(temp.home, 'fake-bin');
    const argvFile = join(temp.home, 'sudo.argv');
    // A stand-in sudo: records its arguments, checks the password line, runs the rest.
    writeScript(
      dir,
      'sudo',
      `printf '%s\\n' "$@" > '${argvFile}'\nread -r pw\n[ "$pw" = '${secret}' ] && echo auth-ok\nshift 3\nexec "$@"`,
    );
    const { services } = setup(`approvals:\n  mode: 'off'\nterminal:\n  sudo_password: '${secret}'\n`, {
      PATH: `${dir}:${SYSTEM_PATH}`,
    });
    const reply = (await run(services, { command: `sudo echo hi; echo ${secret}` })) as Record<
      string,
      unknown
    >;
    expect(reply['output']).toBe('auth-ok\nhi\n[redacted]');
    expect(readFileSync(argvFile, 'utf8')).toBe('-S\n-p\n\necho\nhi\n');
  });
});

describe('terminal: the approval gate', () => {
  it('refuses a hardline command without running anything', async () => {
    const fake = fakeRmPath();
    const { services } = setup('', { PATH: fake.path });
    const attempt = run(services, { command: 'rm -rf /' });
    await expect(attempt).rejects.toSatisfy((error: unknown) => isHermesError(error, 'command_denied'));
    await expect(run(services, { command: 'rm -rf /' })).rejects.toThrow(/never allowed/);
    expect(fileExists(fake.marker)).toBe(false);
  });

  it('pauses for a human on a dangerous command, and runs it once approved for the session', async () => {
    const fake = fakeRmPath();
    const { services, gate } = setup('', { PATH: fake.path });
    let pause: ToolPause | undefined;
    try {
      await run(services, { command: 'rm -r ./build' });
    } catch (error) {
      if (error instanceof ToolPause) pause = error;
      else throw error;
    }
    expect(pause?.reason).toBe('approval');
    const request = pause?.payload as { id: string; command: string; cwd: string };
    expect(request.command).toBe('rm -r ./build');
    expect(request.cwd).toBe(work);
    expect(pause?.modelMessage).toMatch(/approval/);
    expect(fileExists(fake.marker)).toBe(false);

    const report = await gate.decide(request.id, 'session', { userId: 'u1' });
    expect(report.status).toBe('recorded');
    expect(await run(services, { command: 'rm -r ./build' })).toMatchObject({ exit_code: 0 });
    expect(fileExists(fake.marker)).toBe(true);
  });

  it('denies a dangerous command at once in an unattended session', async () => {
    const fake = fakeRmPath();
    const { services } = setup('', { PATH: fake.path });
    await expect(
      run(services, { command: 'rm -r ./build' }, { cwd: work, unattended: true }),
    ).rejects.toSatisfy((error: unknown) => isHermesError(error, 'command_denied'));
    expect(fileExists(fake.marker)).toBe(false);
  });

  it('is unavailable and refuses to run without a gate', async () => {
    const config = configWith(temp.home, '');
    const services = makeServices(config, { baseEnv: { PATH: SYSTEM_PATH } });
    expect(terminalTool.checkFn?.(services)).toEqual({ ok: false, reason: 'approval gate not configured' });
    const marker = join(work, 'ran');
    await expect(run(services, { command: `touch ${marker}` })).rejects.toThrow(
      /approval gate not configured/,
    );
    expect(fileExists(marker)).toBe(false);
  });

  it('reports the backend reason from checkFn', () => {
    const { services } = setup('terminal:\n  backend: docker\n');
    expect(terminalTool.checkFn?.(services)).toEqual({
      ok: false,
      reason: 'docker backend: no container configured (set terminal.docker.container)',
    });
    const local = setup();
    expect(terminalTool.checkFn?.(local.services)).toEqual({ ok: true });
  });

  it('gives the docker client only the allowlist, its own variables and the passthrough, forwarded by name', async () => {
    const dir = join(temp.home, 'fake-bin');
    const argvFile = join(temp.home, 'docker.argv');
    const envFile = join(temp.home, 'docker.env');
    writeScript(dir, 'docker', `printf '%s\\n' "$@" > '${argvFile}'\nenv > '${envFile}'\necho ok`);
    const { services } = setup(
      'terminal:\n  backend: docker\n  env_passthrough: [GITHUB_PAT]\n  docker:\n    container: box\n',
      {
        PATH: `${dir}:${SYSTEM_PATH}`,
        DOCKER_HOST: 'unix:///run/user/docker.sock',
        GITHUB_PAT: 'pat-value',
        MY_SERVICE_AUTH: 'auth-value',
        OPENAI_API_KEY: 'sk-not-for-commands',
      },
    );
    expect(await run(services, { command: 'env' })).toMatchObject({ output: 'ok', exit_code: 0 });
    expect(readFileSync(argvFile, 'utf8')).toBe('exec\n-e\nGITHUB_PAT\nbox\nbash\n-lc\nenv\n');
    const clientEnv = readFileSync(envFile, 'utf8');
    expect(clientEnv).toContain('DOCKER_HOST=unix:///run/user/docker.sock');
    expect(clientEnv).toContain('GITHUB_PAT=pat-value');
    expect(clientEnv).not.toContain('MY_SERVICE_AUTH');
    expect(clientEnv).not.toContain('sk-not-for-commands');
  });

  it('runs through the docker backend with a fake docker CLI', async () => {
    const dir = join(temp.home, 'fake-bin');
    const argvFile = join(temp.home, 'docker.argv');
    writeScript(
      dir,
      'docker',
      `printf '%s\\n' "$@" > '${argvFile}'\neval "last=\\\${$#}"\nexec /bin/sh -c "$last"`,
    );
    const { services } = setup(
      'terminal:\n  backend: docker\n  docker:\n    container: box\n    workdir: /srv\n',
      {
        PATH: `${dir}:${SYSTEM_PATH}`,
      },
    );
    expect(await run(services, { command: 'echo from-container' })).toMatchObject({
      output: 'from-container',
      exit_code: 0,
    });
    expect(readFileSync(argvFile, 'utf8')).toBe('exec\n-w\n/srv\nbox\nbash\n-lc\necho from-container\n');
  });
});
