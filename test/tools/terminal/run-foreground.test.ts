import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runForeground } from '../../../src/tools/terminal/run-foreground.js';
import { startGroup } from '../../../src/tools/terminal/spawn-group.js';
import { makeTempHome } from '../../helpers/test-config.js';
import { fileExists, isAlive, readPid, SYSTEM_PATH, waitUntil } from './terminal-test-kit.js';

const env = { PATH: SYSTEM_PATH };
let temp: ReturnType<typeof makeTempHome>;
beforeEach(() => {
  temp = makeTempHome('hermes-fg-');
});
afterEach(() => temp.cleanup());

const sh = (command: string) => ({ file: '/bin/sh', args: ['-c', command], cwd: temp.home, env });
const never = new AbortController().signal;

describe('runForeground', () => {
  it('collects interleaved output and the exit code', async () => {
    const result = await runForeground(sh('echo out; echo err >&2; exit 7'), {
      timeoutMs: 10_000,
      signal: never,
      maxOutputChars: 1000,
    });
    expect(result.exitCode).toBe(7);
    expect(result.output).toContain('out\n');
    expect(result.output).toContain('err\n');
    expect(result.timedOut).toBe(false);
  });

  it('kills leftovers of the group when the leader exits', async () => {
    const pidFile = join(temp.home, 'leftover.pid');
    const result = await runForeground(sh(`sleep 300 & echo $! > ${pidFile}`), {
      timeoutMs: 10_000,
      signal: never,
      maxOutputChars: 1000,
    });
    expect(result.exitCode).toBe(0);
    const pid = readPid(pidFile);
    await waitUntil(() => !isAlive(pid));
  });

  it('feeds input on stdin and closes it', async () => {
    const result = await runForeground(
      { ...sh('read -r line; echo "got:$line"; cat; echo end'), input: 'hello\n' },
      { timeoutMs: 10_000, signal: never, maxOutputChars: 1000 },
    );
    expect(result.output).toBe('got:hello\nend\n');
  });

  it('gives stdin as /dev/null without input', async () => {
    const result = await runForeground(sh('cat; echo done'), {
      timeoutMs: 10_000,
      signal: never,
      maxOutputChars: 1000,
    });
    expect(result.output).toBe('done\n');
  });

  it('escalates to SIGKILL when the group ignores SIGTERM', async () => {
    const ready = join(temp.home, 'ready');
    const controller = new AbortController();
    const running = runForeground(sh(`trap '' TERM; touch ${ready}; while :; do sleep 1; done`), {
      timeoutMs: 60_000,
      signal: controller.signal,
      maxOutputChars: 1000,
      killGraceMs: 200,
    });
    await waitUntil(() => fileExists(ready));
    controller.abort();
    const result = await running;
    expect(result.aborted).toBe(true);
    expect(result.signal).toBe('SIGKILL');
  });

  it('reports a program that cannot start', async () => {
    await expect(
      startGroup({ file: '/nonexistent/prog', args: [], env }, { onOutput: () => {} }),
    ).rejects.toThrow(/cannot start '\/nonexistent\/prog'/);
  });
});
