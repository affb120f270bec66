import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pino } from 'pino';
import { z } from 'zod';
import { createToolRuntime } from '../src/app/create-tool-runtime.js';
import { loadConfig } from '../src/config/load-config.js';
import { createRegistry } from '../src/registry/create-registry.js';
import { defineTool } from '../src/registry/define-tool.js';
import { environment, summarize, timePerCallUs, timePerCallUsAsync } from './lib/stats.js';

/**
 * Registry overhead. (1) getDefinitions for the hermes-telegram preset with a warm check cache;
 * (2) dispatch of a no-op tool against the baseline of a plain Map lookup plus a direct handler
 * call, measured interleaved (A B A B …) in this process.
 */
const home = mkdtempSync(join(tmpdir(), 'hermes-bench-'));
const logger = pino({ level: 'silent' });
const config = loadConfig({ env: {}, home });
const runtime = await createToolRuntime({
  config,
  logger,
  baseEnv: {},
  builtinToolsDir: resolve(import.meta.dirname, '../src/tools'),
});
const telegram = runtime.toolsets.resolve('hermes-telegram');
runtime.registry.getDefinitions(telegram);

const rounds = 15;
const defsUs: number[] = [];
for (let i = 0; i < rounds; i += 1)
  defsUs.push(timePerCallUs(() => runtime.registry.getDefinitions(telegram), 2000));

const noop = defineTool({
  name: 'noop',
  toolset: 'bench',
  description: 'does nothing',
  parameters: z.object({}),
  handler: () => 'ok',
});
const registry = createRegistry({ services: { config, logger } });
registry.register(noop);
const plain = new Map([[noop.name, noop.handler]]);
const call = { sessionKey: 'agent:main:bench:dm:1', taskId: 'bench' };
const directCtx = {
  ...call,
  signal: new AbortController().signal,
  cwd: '/',
  userId: undefined,
  platform: undefined,
  unattended: false,
  toolCallId: undefined,
  services: runtime.registry.services,
};
const baseline = async () => plain.get('noop')?.({}, directCtx);
const ours = () => registry.dispatch('noop', {}, call);
const baselineUs: number[] = [];
const oursUs: number[] = [];
for (let i = 0; i < 3; i += 1) {
  await timePerCallUsAsync(baseline, 2000);
  await timePerCallUsAsync(ours, 2000);
}
for (let i = 0; i < rounds; i += 1) {
  baselineUs.push(await timePerCallUsAsync(baseline, 5000));
  oursUs.push(await timePerCallUsAsync(ours, 5000));
}
await runtime.close();
rmSync(home, { recursive: true, force: true });

const base = summarize(baselineUs);
const mine = summarize(oursUs);
const defs = summarize(defsUs);
process.stdout.write(
  `${JSON.stringify({
    name: 'registry',
    params: {
      rounds,
      definitions_calls_per_round: 2000,
      dispatch_calls_per_round: 5000,
      telegram_tools: telegram.length,
    },
    baseline: {
      name: 'Map lookup + direct handler call',
      median_us: base.median,
      p99_us: base.p99,
      min_us: base.min,
      max_us: base.max,
    },
    ours: {
      dispatch_median_us: mine.median,
      dispatch_p99_us: mine.p99,
      dispatch_min_us: mine.min,
      dispatch_max_us: mine.max,
      dispatch_overhead_us: Math.round((mine.median - base.median) * 1000) / 1000,
      get_definitions_median_us: defs.median,
      get_definitions_p99_us: defs.p99,
    },
    ratio: Math.round((mine.median / base.median) * 100) / 100,
    target: { get_definitions_us: 50, dispatch_overhead_us: 10 },
    environment: environment(),
  })}\n`,
);
