import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isHermesError } from '../../src/errors/hermes-error.js';
import type { ToolServices } from '../../src/registry/tool-services.js';
import { processTool } from '../../src/tools/process.js';
import {
  createProcessTable,
  type ProcessTable,
  type ProcessTableOptions,
} from '../../src/tools/terminal/process-table.js';
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
} from './terminal/terminal-test-kit.js';

const SESSION_A = 'agent:main:test:dm:alice';
const SESSION_B = 'agent:main:test:dm:bob';

let temp: ReturnType<typeof makeTempHome>;
let workDir: ReturnType<typeof makeTempHome>;
let work: string;
let table: ProcessTable;
beforeEach(() => {
  temp = makeTempHome('hermes-process-');
  // Outside HERMES_HOME: writing there is itself a dangerous command for the gate.
  workDir = makeTempHome('hermes-work-');
  work = workDir.home;
});
afterEach(async () => {
  await table.close();
  temp.cleanup();
  workDir.cleanup();
});

function setup(yaml = '', tableOptions: ProcessTableOptions = {}): ToolServices {
  const config = configWith(temp.home, yaml);
  table = createProcessTable({ killGraceMs: 500, ...tableOptions });
  return makeServices(config, {
    approvalGate: realGate(config),
    processes: table,
    baseEnv: { PATH: SYSTEM_PATH },
  });
}

type Reply = Record<string, unknown>;

async function start(
  services: ToolServices,
  command: string,
  session = SESSION_A,
  extra: Reply = {},
): Promise<Reply> {
  const args = terminalTool.parameters.parse({ command, background: true, ...extra });
  return (await terminalTool.handler(args, makeCtx(services, { cwd: work, sessionKey: session }))) as Reply;
}

async function proc(
  services: ToolServices,
  args: Reply,
  session = SESSION_A,
  signal?: AbortSignal,
): Promise<Reply> {
  const ctx = makeCtx(services, { cwd: work, sessionKey: session, ...(signal ? { signal } : {}) });
  return (await processTool.handler(processTool.parameters.parse(args), ctx)) as Reply;
}

describe('process: background lifecycle', () => {
  it('start → poll → log → wait → list', async () => {
    const services = setup();
    const go = join(work, 'go');
    const started = await start(
      services,
      `echo start; while [ ! -f ${go} ]; do sleep 0.05; done; echo after; exit 5`,
    );
    expect(started).toMatchObject({ status: 'running' });
    expect(String(started['session_id'])).toMatch(/^proc_[0-9a-f]{12}$/);
    expect(typeof started['pid']).toBe('number');
    const id = started['session_id'];

    let seen = '';
    await waitUntil(() => table.get(SESSION_A, String(id))?.output.text().includes('start') === true);
    const first = await proc(services, { action: 'poll', session_id: id });
    seen += String(first['output']);
    expect(first['status']).toBe('running');
    expect(seen).toBe('start\n');
    expect((await proc(services, { action: 'poll', session_id: id }))['output']).toBe('');

    writeFileSync(go, '');
    const waited = await proc(services, { action: 'wait', session_id: id, timeout: 30 });
    expect(waited).toMatchObject({ status: 'exited', exit_code: 5, output: 'after\n' });
    expect(waited['timed_out']).toBeUndefined();

    expect(await proc(services, { action: 'log', session_id: id })).toMatchObject({
      output: 'start\nafter',
      total_lines: 2,
      offset: 0,
      lines: 2,
    });
    expect(await proc(services, { action: 'log', session_id: id, offset: 1, limit: 1 })).toMatchObject({
      output: 'after',
      offset: 1,
      lines: 1,
    });

    const listed = await proc(services, { action: 'list' });
    expect(listed['processes']).toEqual([
      expect.objectContaining({
        session_id: id,
        status: 'exited',
        exit_code: 5,
        command: expect.stringContaining('echo start'),
      }),
    ]);
  });

  it('background commands get the same allowlisted environment', async () => {
    const config = configWith(temp.home, 'terminal:\n  env_passthrough: [KEEP_ME]\n');
    table = createProcessTable({ killGraceMs: 500 });
    const services = makeServices(config, {
      approvalGate: realGate(config),
      processes: table,
      baseEnv: { PATH: SYSTEM_PATH, KEEP_ME: 'kept', GITHUB_PAT: 'pat-value', MY_SERVICE_AUTH: 'auth-value' },
    });
    const started = await start(services, 'env');
    const done = await proc(services, { action: 'wait', session_id: started['session_id'], timeout: 30 });
    const output = String(done['output']);
    expect(output).toContain('KEEP_ME=kept');
    expect(output).not.toContain('GITHUB_PAT');
    expect(output).not.toContain('pat-value');
    expect(output).not.toContain('MY_SERVICE_AUTH');
  });

  it('kill stops the whole group', async () => {
    const services = setup();
    const pidFile = join(work, 'child.pid');
    const started = await start(services, `sleep 300 & echo $! > ${pidFile}; wait`);
    await waitUntil(() => fileExists(pidFile) && readFileSync(pidFile, 'utf8').trim() !== '');
    const child = readPid(pidFile);
    const killed = await proc(services, { action: 'kill', session_id: started['session_id'] });
    expect(killed).toMatchObject({ status: 'killed', signal: 'SIGTERM' });
    await waitUntil(() => !isAlive(child) && !isAlive(Number(started['pid'])));
    const again = await proc(services, { action: 'kill', session_id: started['session_id'] });
    expect(again['note']).toMatch(/already finished/);
  });

  it('wait is bounded by its timeout and by abort', async () => {
    const services = setup();
    const started = await start(services, 'sleep 300');
    const waited = await proc(services, { action: 'wait', session_id: started['session_id'], timeout: 1 });
    expect(waited).toMatchObject({ status: 'running', timed_out: true });

    const controller = new AbortController();
    const waiting = proc(
      services,
      { action: 'wait', session_id: started['session_id'] },
      SESSION_A,
      controller.signal,
    );
    controller.abort();
    expect(await waiting).toMatchObject({ status: 'running', timed_out: true });
  });

  it('log shows the last 200 lines by default', async () => {
    const services = setup();
    const started = await start(services, 'seq 1 500');
    await proc(services, { action: 'wait', session_id: started['session_id'] });
    const log = await proc(services, { action: 'log', session_id: started['session_id'] });
    expect(log).toMatchObject({ total_lines: 500, offset: 300, lines: 200 });
    expect(String(log['output']).split('\n')[0]).toBe('301');
  });

  it('keeps a bounded buffer and says when early output was dropped', async () => {
    const services = setup('', { bufferChars: 100 });
    const started = await start(services, 'seq 1 1000');
    const waited = await proc(services, { action: 'wait', session_id: started['session_id'] });
    expect(Number(waited['lost_chars'])).toBeGreaterThan(0);
    const log = await proc(services, { action: 'log', session_id: started['session_id'] });
    expect(log['truncated_before']).toBe(true);
    expect(String(log['output']).endsWith('999\n1000')).toBe(true);
  });

  it('a background timeout ends the process', async () => {
    const services = setup();
    const started = await start(services, 'sleep 300', SESSION_A, { timeout: 1 });
    const waited = await proc(services, { action: 'wait', session_id: started['session_id'], timeout: 30 });
    expect(waited['status']).toBe('timed_out');
  });
});

describe('process: sessions and limits', () => {
  it("another session's process is invisible", async () => {
    const services = setup();
    const started = await start(services, 'sleep 300', SESSION_A);
    const id = started['session_id'];
    for (const action of ['poll', 'log', 'wait', 'kill']) {
      await expect(proc(services, { action, session_id: id, timeout: 1 }, SESSION_B)).rejects.toSatisfy(
        (error: unknown) =>
          isHermesError(error, 'process_unknown') && /no such process/.test((error as Error).message),
      );
    }
    expect(await proc(services, { action: 'list' }, SESSION_B)).toEqual({ processes: [] });
    expect(isAlive(Number(started['pid']))).toBe(true);
    expect((await proc(services, { action: 'list' }, SESSION_A))['processes']).toHaveLength(1);
  });

  it('requires session_id except for list', async () => {
    const services = setup();
    await expect(proc(services, { action: 'poll' })).rejects.toThrow(/session_id is required/);
  });

  it('caps live background processes per session', async () => {
    const services = setup('', { maxPerSession: 2 });
    await start(services, 'sleep 300');
    await start(services, 'sleep 300');
    await expect(start(services, 'sleep 300')).rejects.toSatisfy((error: unknown) =>
      isHermesError(error, 'process_limit'),
    );
    await start(services, 'sleep 300', SESSION_B);
    expect(table.runningCount).toBe(3);
  });

  it('close kills every process, is idempotent, and refuses new ones', async () => {
    const services = setup();
    const a = await start(services, 'sleep 300', SESSION_A);
    const b = await start(services, 'sleep 300', SESSION_B);
    await Promise.all([table.close(), table.close()]);
    expect(table.runningCount).toBe(0);
    await waitUntil(() => !isAlive(Number(a['pid'])) && !isAlive(Number(b['pid'])));
    await expect(start(services, 'sleep 300')).rejects.toSatisfy((error: unknown) =>
      isHermesError(error, 'process_limit'),
    );
  });

  it('is unavailable without a process table', () => {
    const config = configWith(temp.home, '');
    table = createProcessTable();
    expect(processTool.checkFn?.(makeServices(config, {}))).toEqual({
      ok: false,
      reason: 'process table not configured',
    });
    expect(processTool.checkFn?.(makeServices(config, { processes: table }))).toEqual({ ok: true });
  });
});
