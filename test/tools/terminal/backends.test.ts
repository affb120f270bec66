import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Config } from '../../../src/config/config-schema.js';
import { dockerArgs, dockerBackend } from '../../../src/tools/terminal/backends/docker.js';
import { localBackend } from '../../../src/tools/terminal/backends/local.js';
import { selectBackend } from '../../../src/tools/terminal/backends/select-backend.js';
import { remoteCommand, sshArgs, sshBackend } from '../../../src/tools/terminal/backends/ssh.js';
import { runForeground } from '../../../src/tools/terminal/run-foreground.js';
import { makeTempHome, testConfig } from '../../helpers/test-config.js';
import { SYSTEM_PATH, writeScript } from './terminal-test-kit.js';

type Terminal = Config['terminal'];

let temp: ReturnType<typeof makeTempHome>;
beforeEach(() => {
  temp = makeTempHome('hermes-backend-');
});
afterEach(() => temp.cleanup());

function terminal(overrides: Partial<Terminal> = {}): Terminal {
  return { ...testConfig(temp.home).terminal, ...overrides };
}

/** A stand-in for docker/ssh: records its argv, then runs its last argument with sh. */
function fakeBinary(name: string): { dir: string; argvFile: string } {
  const dir = join(temp.home, 'bin');
  const argvFile = join(temp.home, `${name}.argv`);
  writeScript(
    dir,
    name,
    `printf '%s\\n' "$@" > '${argvFile}'\neval "last=\\\${$#}"\nexec /bin/sh -c "$last"`,
  );
  return { dir, argvFile };
}

const never = new AbortController().signal;

describe('selectBackend', () => {
  it('maps terminal.backend to an implementation', () => {
    expect(selectBackend('local')).toBe(localBackend);
    expect(selectBackend('docker')).toBe(dockerBackend);
    expect(selectBackend('ssh')).toBe(sshBackend);
  });
});

describe('docker backend', () => {
  it('builds docker exec arguments', () => {
    const t = terminal({ docker: { container: 'box', user: 'dev', workdir: '/app', binary: 'docker' } });
    expect(dockerArgs({ command: 'ls -la', workdir: '/app/src', input: undefined, terminal: t })).toEqual([
      'exec',
      '-u',
      'dev',
      '-w',
      '/app/src',
      'box',
      'bash',
      '-lc',
      'ls -la',
    ]);
    expect(dockerArgs({ command: 'id', workdir: undefined, input: 'pw\n', terminal: t })).toEqual([
      'exec',
      '-i',
      '-u',
      'dev',
      'box',
      'bash',
      '-lc',
      'id',
    ]);
  });

  it('forwards the passed-through variables by name only', () => {
    const t = terminal({ docker: { container: 'box', binary: 'docker' } });
    expect(
      dockerArgs({
        command: 'env',
        workdir: undefined,
        input: undefined,
        terminal: t,
        passedThrough: ['GITHUB_PAT'],
      }),
    ).toEqual(['exec', '-e', 'GITHUB_PAT', 'box', 'bash', '-lc', 'env']);
  });

  it('resolves workdir inside the container', () => {
    const withBase = terminal({ docker: { container: 'box', workdir: '/app', binary: 'docker' } });
    expect(dockerBackend.resolveWorkdir(undefined, '/host', withBase)).toBe('/app');
    expect(dockerBackend.resolveWorkdir('src', '/host', withBase)).toBe('/app/src');
    expect(dockerBackend.resolveWorkdir('/srv//x/', '/host', withBase)).toBe('/srv/x/');
    const noBase = terminal({ docker: { container: 'box', binary: 'docker' } });
    expect(() => dockerBackend.resolveWorkdir('src', '/host', noBase)).toThrow(
      /absolute path inside the container/,
    );
  });

  it('is unavailable without a container or a binary', () => {
    const env = { PATH: SYSTEM_PATH };
    expect(dockerBackend.check(terminal(), env)).toEqual({
      ok: false,
      reason: 'docker backend: no container configured (set terminal.docker.container)',
    });
    const missing = terminal({ docker: { container: 'box', binary: 'no-such-docker-binary' } });
    expect(dockerBackend.check(missing, env)).toEqual({
      ok: false,
      reason: "docker backend: 'no-such-docker-binary' not found on PATH (terminal.docker.binary)",
    });
  });

  it('runs through the configured binary (fake docker on PATH)', async () => {
    const fake = fakeBinary('docker');
    const env = { PATH: `${fake.dir}:${SYSTEM_PATH}` };
    const t = terminal({ docker: { container: 'box', binary: 'docker' } });
    expect(dockerBackend.check(t, env)).toEqual({ ok: true });
    const plan = dockerBackend.plan({
      command: 'echo inside; exit 4',
      workdir: '/w',
      env,
      input: undefined,
      terminal: t,
    });
    expect(plan.file).toBe(join(fake.dir, 'docker'));
    const result = await runForeground(plan, { timeoutMs: 10_000, signal: never, maxOutputChars: 1000 });
    expect(result.output).toBe('inside\n');
    expect(result.exitCode).toBe(4);
    expect(readFileSync(fake.argvFile, 'utf8').split('\n')).toEqual([
      'exec',
      '-w',
      '/w',
      'box',
      'bash',
      '-lc',
      'echo inside; exit 4',
      '',
    ]);
  });
});

describe('ssh backend', () => {
  it('builds ssh arguments with BatchMode and the configured identity', () => {
    const t = terminal({
      ssh: { host: 'build.example', user: 'ci', port: 2222, identity_file: '/k/id', binary: 'ssh' },
    });
    expect(sshArgs({ command: 'uname -a', workdir: undefined, terminal: t })).toEqual([
      '-o',
      'BatchMode=yes',
      '-o',
      'ConnectTimeout=15',
      '-T',
      '-p',
      '2222',
      '-i',
      '/k/id',
      '--',
      'ci@build.example',
      'uname -a',
    ]);
  });

  it('offers the passed-through variables with SendEnv, values never on the command line', () => {
    const t = terminal({ ssh: { host: 'h', port: 22, binary: 'ssh' } });
    const args = sshArgs({ command: 'env', workdir: undefined, terminal: t, passedThrough: ['GITHUB_PAT'] });
    expect(args.slice(0, 10)).toEqual([
      '-o',
      'BatchMode=yes',
      '-o',
      'ConnectTimeout=15',
      '-T',
      '-p',
      '22',
      '-o',
      'SendEnv=GITHUB_PAT',
      '--',
    ]);
  });

  it('changes directory on the remote side, quoting the path', () => {
    expect(remoteCommand('ls', "/srv/it's here")).toBe("cd '/srv/it'\\''s here' || exit 1\nls");
    expect(remoteCommand('ls', '~/proj x')).toBe("cd ~/'proj x' || exit 1\nls");
    expect(remoteCommand('ls', '~')).toBe('cd ~ || exit 1\nls');
  });

  it('is unavailable without a host or a binary', () => {
    const env = { PATH: SYSTEM_PATH };
    expect(sshBackend.check(terminal(), env)).toEqual({
      ok: false,
      reason: 'ssh backend: no host configured (set terminal.ssh.host)',
    });
    const missing = terminal({ ssh: { host: 'h', port: 22, binary: '/nonexistent/ssh' } });
    expect(sshBackend.check(missing, env)).toEqual({
      ok: false,
      reason: "ssh backend: '/nonexistent/ssh' not found on PATH (terminal.ssh.binary)",
    });
    const optionLike = terminal({ ssh: { host: '-oProxyCommand=x', port: 22, binary: 'ssh' } });
    expect(sshBackend.check(optionLike, env).ok).toBe(false);
  });

  it('runs through the configured binary (fake ssh on PATH)', async () => {
    const fake = fakeBinary('ssh');
    const env = { PATH: `${fake.dir}:${SYSTEM_PATH}` };
    const t = terminal({ ssh: { host: 'remote', port: 22, binary: 'ssh' } });
    expect(sshBackend.check(t, env)).toEqual({ ok: true });
    const plan = sshBackend.plan({ command: 'pwd', workdir: temp.home, env, input: undefined, terminal: t });
    const result = await runForeground(plan, { timeoutMs: 10_000, signal: never, maxOutputChars: 1000 });
    expect(result.output).toBe(`${temp.home}\n`);
    const argv = readFileSync(fake.argvFile, 'utf8');
    expect(argv).toContain('BatchMode=yes');
    expect(argv).toContain('--\nremote\n');
  });
});

describe('local backend', () => {
  it('resolves workdir against the session cwd', () => {
    expect(localBackend.resolveWorkdir(undefined, '/a/b', terminal())).toBe('/a/b');
    expect(localBackend.resolveWorkdir('c', '/a/b', terminal())).toBe('/a/b/c');
    expect(localBackend.resolveWorkdir('/x', '/a/b', terminal())).toBe('/x');
  });

  it('uses bash from PATH', () => {
    const plan = localBackend.plan({
      command: 'echo hi',
      workdir: '/tmp',
      env: { PATH: SYSTEM_PATH },
      input: undefined,
      terminal: terminal(),
    });
    expect(plan.file.endsWith('/bash')).toBe(true);
    expect(plan.args).toEqual(['--norc', '--noprofile', '-c', 'echo hi']);
  });
});
