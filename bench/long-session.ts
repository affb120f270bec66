import { randomBytes } from 'node:crypto';
import { FAKE_ANSWER, FAKE_MODEL } from './gateway/fake-model-answer.js';
import { createHttpPoster } from './gateway/http-poster.js';
import { startBenchGateway } from './gateway/start-bench-gateway.js';
import { startFakeModel } from './gateway/start-fake-model.js';
import { envInt } from './lib/env-int.js';
import { environment, round, summarize } from './lib/stats.js';

/**
 * What a long conversation costs per turn. One embedded gateway, one request at a time, a
 * zero-latency fake model: turns in a session that already holds `BENCH_LONG_MESSAGES` messages,
 * against turns in fresh sessions (the baseline), interleaved round by round. Reports wall time
 * and this process' CPU per turn and the ratio long ÷ fresh: how much of a turn's overhead
 * grows with the transcript (the request itself grows too: the whole conversation is sent).
 */

const MESSAGES = envInt('BENCH_LONG_MESSAGES', 1_500);
const ROUNDS = envInt('BENCH_LONG_ROUNDS', 5);
const PER_ROUND = envInt('BENCH_LONG_PER_ROUND', 60);
const TEXT = 'Please look at this and tell me what you think about it, in a few words. ';

const progress = (message: string) => process.stderr.write(`[bench long-session] ${message}\n`);
const model = await startFakeModel();
const gw = await startBenchGateway({
  mode: 'embedded',
  modelBaseURL: model.baseURL,
  prefix: `hgbench-${randomBytes(4).toString('hex')}-long`,
});
const poster = createHttpPoster(gw.origin, 1);
const body = JSON.stringify({ model: FAKE_MODEL, messages: [{ role: 'user', content: TEXT.repeat(2) }] });

async function turn(headers: Record<string, string>): Promise<{ ms: number; cpuUs: number }> {
  const cpu = process.cpuUsage();
  const start = performance.now();
  const text = await poster.post('/v1/chat/completions', body, headers);
  if (!text.includes(FAKE_ANSWER)) throw new Error(`unexpected answer: ${text.slice(0, 200)}`);
  const used = process.cpuUsage(cpu);
  return { ms: performance.now() - start, cpuUs: used.user + used.system };
}

const LONG = { 'x-hermes-session-id': 'bench-long-conversation' };
let fresh = 0;
const cases = {
  long: () => turn(LONG),
  fresh: () => {
    fresh += 1;
    return turn({ 'x-hermes-session-id': `bench-fresh-${fresh}` });
  },
};

progress(`building a conversation of ${MESSAGES} messages`);
for (let sent = 0; sent < MESSAGES; sent += 2) await turn(LONG);
for (let i = 0; i < 30; i += 1) await cases.fresh();

const samples = { long: [] as { ms: number; cpuUs: number }[], fresh: [] as { ms: number; cpuUs: number }[] };
const ratios: number[] = [];
for (let r = 0; r < ROUNDS; r += 1) {
  progress(`round ${r + 1}/${ROUNDS}`);
  const order = r % 2 === 0 ? (['long', 'fresh'] as const) : (['fresh', 'long'] as const);
  const cpuPerRound: Record<string, number> = {};
  for (const name of order) {
    let cpu = 0;
    for (let i = 0; i < PER_ROUND; i += 1) {
      const sample = await cases[name]();
      samples[name].push(sample);
      cpu += sample.cpuUs;
    }
    cpuPerRound[name] = cpu / PER_ROUND;
  }
  ratios.push((cpuPerRound['long'] ?? 0) / (cpuPerRound['fresh'] ?? 1));
}
await poster.close();
await gw.close();
await model.close();

const describe = (list: readonly { ms: number; cpuUs: number }[]) => {
  const ms = summarize(list.map((s) => s.ms));
  const cpu = summarize(list.map((s) => s.cpuUs));
  return { ms_median: ms.median, ms_p99: ms.p99, cpu_us_median: cpu.median, cpu_us_p99: cpu.p99 };
};
const ratio = summarize(ratios);
process.stdout.write(
  `${JSON.stringify({
    name: 'long-session',
    params: {
      messages_before: MESSAGES,
      rounds: ROUNDS,
      turns_per_case_per_round: PER_ROUND,
      concurrency: 1,
      mode: 'embedded',
      request: 'non-streaming POST /v1/chat/completions with X-Hermes-Session-Id, one user message',
      fake_model: 'child process, fixed answer at once; the whole conversation is sent to it each turn',
      cpu: "this process' user+system CPU per turn (the gateway and the load generator)",
      env_overrides: 'BENCH_LONG_MESSAGES, BENCH_LONG_ROUNDS, BENCH_LONG_PER_ROUND',
    },
    baseline: { name: 'turns in fresh sessions, same gateway, interleaved', ...describe(samples.fresh) },
    ours: { name: `turns in a session of ${MESSAGES}+ messages`, ...describe(samples.long) },
    ratio: { cpu_long_vs_fresh: { median: ratio.median, min: ratio.min, max: round(ratio.max) } },
    target: 'none (informational): how a turn scales with the transcript',
    environment: environment(),
  })}\n`,
);
