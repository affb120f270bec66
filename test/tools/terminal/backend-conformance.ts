import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/load-config.js';
import type { ToolServices } from '../../../src/registry/tool-services.js';
import { processTool } from '../../../src/tools/process.js';
import { createCommandGroupLedger } from '../../../src/tools/terminal/command-group-ledger.js';
import { createProcessTable, type ProcessTable } from '../../../src/tools/terminal/process-table.js';
import { terminalTool } from '../../../src/tools/terminal.js';
import { silentLogger } from '../../helpers/test-config.js';
import { realGate } from './gate-kit.js';
import { makeMachine, processesWith, sleepersWith, sleepMarker, writeConfig } from './sandbox-kit.js';
import { makeCtx, makeServices, SYSTEM_PATH, waitUntil } from './terminal-test-kit.js';

type Reply = Record<string, unknown>;
const OWNER = join(import.meta.dirname, 'fixtures', 'terminal-owner.ts');

/**
 * One behaviour for every terminal backend that runs on this machine: exit codes, working
 * directory, the environment allowlist, output capping, process groups on timeout, abort and
 * exit, background processes and the command ledger. `skipReason` skips the whole suite and
 * says why (a backend this machine cannot run).
 */
export function backendConformance(backend: 'local' | 'sandbox', skipReason?: string): void {
  const title = `terminal backend conformance: ${backend}${skipReason === undefined ? '' : ` (skipped: ${skipReason})`}`;
  describe.skipIf(skipReason !== undefined)(title, () => {
    let machine: ReturnType<typeof makeMachine>;
    let table: ProcessTable;
    let services: ToolServices;
    const children: ChildProcess[] = [];
    const markers: string[] = [];

    function setup(extraYaml = ''): void {
      writeConfig(
        machine.hermesHome,
        `terminal:\n  backend: ${backend}\n  env_passthrough: [KEEP_ME]\n${extraYaml}`,
      );
      const config = loadConfig({ env: {}, home: machine.hermesHome });
      table = createProcessTable({ killGraceMs: 1000 });
      services = makeServices(config, {
        approvalGate: realGate(config),
        processes: table,
        baseEnv: {
          PATH: SYSTEM_PATH,
          HOME: machine.userHome,
          LANG: 'C.UTF-8',
          KEEP_ME: 'kept',
          GITHUB_PAT: 'pat-must-not-pass',
        },
      });
    }

    beforeEach(() => {
      machine = makeMachine(`hermes-conf-${backend}-`);
      setup();
    });
    afterEach(async () => {
      await table.close();
      for (const child of children.splice(0)) child.kill('SIGKILL');
      for (const marker of markers.splice(0)) {
        for (const pid of processesWith(marker)) {
          try {
            process.kill(pid, 'SIGKILL');
          } catch {
            // gone meanwhile
          }
        }
      }
      machine.cleanup();
    });

    const marker = (): string => {
      const value = sleepMarker();
      markers.push(value);
      return value;
    };

    async function run(args: Reply, signal?: AbortSignal): Promise<Reply> {
      const ctx = makeCtx(services, { cwd: machine.work, ...(signal ? { signal } : {}) });
      return (await terminalTool.handler(terminalTool.parameters.parse(args), ctx)) as Reply;
    }

    async function proc(args: Reply): Promise<Reply> {
      const ctx = makeCtx(services, { cwd: machine.work });
      return (await processTool.handler(processTool.parameters.parse(args), ctx)) as Reply;
    }

    it('reports exit codes, with stdout and stderr interleaved', async () => {
      expect(await run({ command: 'echo hello' })).toEqual({ output: 'hello', exit_code: 0, error: null });
      const failed = await run({ command: 'echo out; echo err >&2; exit 3' });
      expect(failed['exit_code']).toBe(3);
      expect(failed['output']).toBe('out\nerr');
    });

    it('runs in the session working directory (or a workdir below it), and what it writes there is on the host', async () => {
      mkdirSync(join(machine.work, 'sub'));
      expect((await run({ command: 'pwd' }))['output']).toBe(machine.work);
      expect((await run({ command: 'pwd; echo data > made.txt', workdir: 'sub' }))['output']).toBe(
        join(machine.work, 'sub'),
      );
      expect(readFileSync(join(machine.work, 'sub', 'made.txt'), 'utf8')).toBe('data\n');
    });

    it('gives the allowlisted environment and the passthrough, nothing else', async () => {
      const output = String((await run({ command: 'env' }))['output']);
      expect(output).toContain(`PATH=${SYSTEM_PATH}`);
      expect(output).toContain('LANG=C.UTF-8');
      expect(output).toContain(`HOME=${machine.userHome}`);
      expect(output).toContain('KEEP_ME=kept');
      expect(output).not.toContain('GITHUB_PAT');
      expect(output).not.toContain('pat-must-not-pass');
    });

    it('caps long output keeping head and tail', async () => {
      setup('  max_output_chars: 200\n');
      const output = String((await run({ command: 'seq 1 5000' }))['output']);
      expect(output.startsWith('1\n2\n3\n')).toBe(true);
      expect(output.endsWith('4999\n5000')).toBe(true);
      expect(output).toMatch(/\[… \d+ characters omitted …\]/);
      expect(output.length).toBeLessThan(260);
    });

    it('on timeout, the command gets SIGTERM first and everything it started is gone after', async () => {
      const child = marker();
      const reply = await run({
        command: `sleep ${child} & trap 'echo got-term > term.txt; exit 0' TERM; sleep 30 & wait`,
        timeout: 1,
      });
      expect(reply['timed_out']).toBe(true);
      expect(String(reply['error'])).toMatch(/timed out/);
      expect(readFileSync(join(machine.work, 'term.txt'), 'utf8')).toBe('got-term\n');
      await waitUntil(() => processesWith(child).length === 0);
    });

    it('stopping the turn kills the whole group', async () => {
      const child = marker();
      const controller = new AbortController();
      const running = run({ command: `sleep ${child} & wait` }, controller.signal);
      await waitUntil(() => sleepersWith(child).length > 0);
      controller.abort();
      await expect(running).rejects.toThrow(/aborted/);
      await waitUntil(() => processesWith(child).length === 0);
    });

    it('kills what a finished command left running', async () => {
      const child = marker();
      expect((await run({ command: `sleep ${child} >/dev/null 2>&1 & echo started` }))['output']).toBe(
        'started',
      );
      await waitUntil(() => processesWith(child).length === 0);
    });

    it('runs background processes: poll, wait, log, and kill stops the whole group', async () => {
      const started = await run({ command: 'echo one; sleep 0.3; echo two', background: true });
      expect(started['status']).toBe('running');
      const id = started['session_id'];
      const done = await proc({ action: 'wait', session_id: id, timeout: 30 });
      expect(done['status']).toBe('exited');
      expect(done['exit_code']).toBe(0);
      expect(done['output']).toBe('one\ntwo\n');
      expect((await proc({ action: 'log', session_id: id }))['output']).toBe('one\ntwo');

      const child = marker();
      const long = await run({ command: `sleep ${child} & sleep 60`, background: true });
      await waitUntil(() => sleepersWith(child).length > 0);
      const killed = await proc({ action: 'kill', session_id: long['session_id'] });
      expect(killed['status']).toBe('killed');
      await waitUntil(() => processesWith(child).length === 0);
    });

    it('ends a background process at its lifetime', async () => {
      const child = marker();
      const started = await run({ command: `sleep ${child}`, background: true, timeout: 1 });
      const done = await proc({ action: 'wait', session_id: started['session_id'], timeout: 30 });
      expect(done['status']).toBe('timed_out');
      await waitUntil(() => processesWith(child).length === 0);
    });

    it('marks its processes for the command ledger, which kills them when their gateway process dies', async () => {
      const child = marker();
      const owner = spawn(
        process.execPath,
        ['--import', 'tsx', OWNER, machine.hermesHome, machine.work, machine.userHome, `sleep ${child}`],
        { stdio: ['ignore', 'pipe', 'inherit'] },
      );
      children.push(owner);
      const line = await new Promise<string>((resolve, reject) => {
        owner.stdout?.once('data', (chunk: Buffer) => resolve(chunk.toString()));
        owner.once('exit', (code) => reject(new Error(`the owner exited early (${code})`)));
      });
      expect(JSON.parse(line)['status']).toBe('running');
      // The owner's own command line holds the marker too: only the command's processes count.
      const command = () => processesWith(child).filter((pid) => pid !== owner.pid);
      const sleeping = () => sleepersWith(child);
      await waitUntil(() => sleeping().length > 0);
      const ledgerDir = join(machine.hermesHome, 'run', 'command-groups');
      const record = readdirSync(ledgerDir)[0] as string;
      const token = readFileSync(join(ledgerDir, record), 'utf8').trim();
      for (const pid of command()) {
        expect(readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0')).toContain(
          `HERMES_COMMAND_OWNER=${token}`,
        );
      }
      owner.kill('SIGKILL');
      await new Promise((resolve) => owner.once('exit', resolve));
      createCommandGroupLedger({ dir: ledgerDir, logger: silentLogger }).sweep();
      await waitUntil(() => command().length === 0);
      expect(existsSync(join(ledgerDir, record))).toBe(false);
    }, 30_000);

    it('feeds stdin input (the sudo password) to the command', async () => {
      const dir = join(machine.work, 'bin');
      mkdirSync(dir);
      writeFileSync(join(dir, 'sudo'), '#!/bin/sh\nread -r pw\n[ "$pw" = "pw-123456" ] && echo auth-ok\n', {
        mode: 0o755,
      });
      setup("  sudo_password: 'pw-123456'\napprovals:\n  mode: 'off'\n");
      const reply = await run({ command: `PATH=${dir}:$PATH; sudo true` });
      expect(reply['output']).toBe('auth-ok');
    });
  });
}
