import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../src/config/load-config.js';
import type { TerminalBackend } from '../src/tools/terminal/backends/backend-types.js';
import { localBackend } from '../src/tools/terminal/backends/local.js';
import { sandboxBackend } from '../src/tools/terminal/backends/sandbox.js';
import { runForeground } from '../src/tools/terminal/run-foreground.js';
import { childEnv } from '../src/tools/terminal/scrub-env.js';
import { envInt } from './lib/env-int.js';
import { environment, summarize } from './lib/stats.js';

/**
 * Cost of a terminal command per backend. Baseline: `child_process.spawn` of the same shell and
 * command, awaited to its exit. Ours: the backend's plan plus `runForeground` (own process group,
 * output collector, group kill on exit) for `local` and `sandbox` (bubblewrap + prlimit).
 * Interleaved command by command (baseline, local, sandbox, baseline, …) in this one process.
 * Target: the sandbox adds at most 15 ms per command over `local` (median against median).
 */
const rounds = envInt('BENCH_ROUNDS', 7);
const perRound = envInt('BENCH_COMMANDS', 20);
const command = 'echo ok';

const root = mkdtempSync(join(tmpdir(), 'hermes-bench-sandbox-'));
const hermesHome = join(root, 'hermes-home');
const work = join(root, 'work');
const userHome = join(root, 'home');
for (const dir of [hermesHome, work, userHome]) mkdirSync(dir);
const config = loadConfig({ env: {}, home: hermesHome });
const { env } = childEnv({ PATH: process.env['PATH'] ?? '/usr/bin:/bin', HOME: userHome, LANG: 'C.UTF-8' });
const host = { hermesHome, owner: config };
const sandboxCheck = sandboxBackend.check(config.terminal, env, host);

function baseline(): Promise<number> {
  const start = process.hrtime.bigint();
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['--norc', '--noprofile', '-c', command], {
      cwd: work,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout.resume();
    child.stderr.resume();
    child.once('error', reject);
    child.once('close', () => resolve(Number(process.hrtime.bigint() - start) / 1e6));
  });
}

async function ours(backend: TerminalBackend): Promise<number> {
  const start = process.hrtime.bigint();
  const plan = backend.plan({
    command,
    workdir: work,
    env,
    input: undefined,
    terminal: config.terminal,
    sessionCwd: work,
    host,
  });
  const result = await runForeground(plan, {
    timeoutMs: 30_000,
    signal: new AbortController().signal,
    maxOutputChars: config.terminal.max_output_chars,
  });
  if (result.exitCode !== 0)
    throw new Error(`${backend.name}: exit ${String(result.exitCode)}: ${result.output}`);
  return Number(process.hrtime.bigint() - start) / 1e6;
}

const samples = { baseline: [] as number[], local: [] as number[], sandbox: [] as number[] };
// Warm-up: a few of each, not recorded.
for (let i = 0; i < 5; i += 1) {
  await baseline();
  await ours(localBackend);
  if (sandboxCheck.ok) await ours(sandboxBackend);
}
for (let round = 0; round < rounds; round += 1) {
  for (let i = 0; i < perRound; i += 1) {
    samples.baseline.push(await baseline());
    samples.local.push(await ours(localBackend));
    if (sandboxCheck.ok) samples.sandbox.push(await ours(sandboxBackend));
  }
}
rmSync(root, { recursive: true, force: true });

const ms = (value: number) => Math.round(value * 100) / 100;
const base = summarize(samples.baseline);
const local = summarize(samples.local);
const sandbox = sandboxCheck.ok ? summarize(samples.sandbox) : undefined;
process.stdout.write(
  `${JSON.stringify({
    name: 'terminal-sandbox',
    params: { rounds, commands_per_round: perRound, command, interleaved: 'baseline, local, sandbox' },
    baseline: {
      name: 'child_process.spawn bash -c, awaited to exit',
      median_ms: base.median,
      p99_ms: base.p99,
      min_ms: base.min,
      max_ms: base.max,
    },
    ours: {
      local: { median_ms: local.median, p99_ms: local.p99, added_ms: ms(local.median - base.median) },
      sandbox:
        sandbox === undefined
          ? { skipped: sandboxCheck.reason }
          : {
              median_ms: sandbox.median,
              p99_ms: sandbox.p99,
              added_ms: ms(sandbox.median - base.median),
              // The issue's measure: what the sandbox adds over the `local` backend.
              added_vs_local_ms: ms(sandbox.median - local.median),
            },
    },
    ratio: {
      local: ms(local.median / base.median),
      ...(sandbox === undefined ? {} : { sandbox: ms(sandbox.median / base.median) }),
    },
    target: {
      sandbox_added_vs_local_ms: 15,
      ...(sandbox === undefined ? {} : { met: sandbox.median - local.median <= 15 }),
    },
    environment: environment(),
  })}\n`,
);
