import { randomBytes } from 'node:crypto';
import Fastify from 'fastify';
import { Pool } from 'undici';
import { FAKE_ANSWER, FAKE_MODEL } from './gateway/fake-model-answer.js';
import { startBenchGateway } from './gateway/start-bench-gateway.js';
import { startFakeModel } from './gateway/start-fake-model.js';
import { closedLoop, type LoadResult, perSecond } from './lib/closed-loop.js';
import { envInt } from './lib/env-int.js';
import { environment, round, summarize } from './lib/stats.js';

/**
 * What the gateway's HTTP layer costs against a no-op fastify route (the baseline, same process,
 * same client, same run): `GET /healthz` on the gateway's server (route access, its JSON parser
 * and error handling, logger) against `GET /noop` on a bare fastify answering `{}`; and, for
 * scale, a whole embedded API turn (`POST /v1/chat/completions`, zero-latency fake model in a
 * child process) against the same no-op route. Interleaved A B C per round, order rotated; an
 * undici keep-alive pool per server, closed loop at the given concurrency.
 */
const ROUNDS = envInt('BENCH_HTTP_ROUNDS', 7);
const PER_ROUND = envInt('BENCH_HTTP_PER_ROUND', 1_000);
const TURNS_PER_ROUND = envInt('BENCH_HTTP_TURNS_PER_ROUND', 200);
const CONCURRENCY = envInt('BENCH_HTTP_CONCURRENCY', 8);

const progress = (message: string) => process.stderr.write(`[bench http-overhead] ${message}\n`);
const noop = Fastify();
noop.get('/noop', async () => ({}));
const noopOrigin = await noop.listen({ host: '127.0.0.1', port: 0 });
const model = await startFakeModel();
const gw = await startBenchGateway({
  mode: 'embedded',
  modelBaseURL: model.baseURL,
  prefix: `hgbench-${randomBytes(4).toString('hex')}-http`,
  config: ['queue:', `  concurrency: ${CONCURRENCY}`],
});
const noopPool = new Pool(noopOrigin, { connections: CONCURRENCY, pipelining: 1 });
const gwPool = new Pool(gw.origin, { connections: CONCURRENCY, pipelining: 1 });
const turnBody = JSON.stringify({ model: FAKE_MODEL, messages: [{ role: 'user', content: 'Say hello' }] });

type CaseName = 'noop' | 'healthz' | 'turn';
const calls: Record<CaseName, () => Promise<void>> = {
  noop: async () => {
    const response = await noopPool.request({ path: '/noop', method: 'GET' });
    await response.body.text();
    if (response.statusCode !== 200) throw new Error(`noop answered ${response.statusCode}`);
  },
  healthz: async () => {
    const response = await gwPool.request({ path: '/healthz', method: 'GET' });
    await response.body.text();
    if (response.statusCode !== 200) throw new Error(`/healthz answered ${response.statusCode}`);
  },
  turn: async () => {
    const response = await gwPool.request({
      path: '/v1/chat/completions',
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: turnBody,
    });
    const text = await response.body.text();
    if (response.statusCode !== 200 || !text.includes(FAKE_ANSWER)) {
      throw new Error(`turn answered ${response.statusCode}: ${text.slice(0, 200)}`);
    }
  },
};
const totals: Record<CaseName, number> = { noop: PER_ROUND, healthz: PER_ROUND, turn: TURNS_PER_ROUND };
const run = (name: CaseName, total = totals[name]) =>
  closedLoop({ total, concurrency: CONCURRENCY, call: () => calls[name]() });

const names: CaseName[] = ['noop', 'healthz', 'turn'];
progress('warm-up');
for (const name of names) await run(name, Math.min(200, totals[name]));
const runs: Record<CaseName, LoadResult[]> = { noop: [], healthz: [], turn: [] };
for (let r = 0; r < ROUNDS; r += 1) {
  progress(`round ${r + 1}/${ROUNDS}`);
  for (let i = 0; i < names.length; i += 1) {
    const name = names[(i + r) % names.length] as CaseName;
    runs[name].push(await run(name));
  }
}
await noopPool.close();
await gwPool.close();
await noop.close();
await gw.close();
await model.close();

const figures = (name: CaseName) => {
  const latency = summarize(runs[name].flatMap((r) => r.latenciesMs));
  const rates = summarize(runs[name].map(perSecond));
  const errors = runs[name].reduce((sum, r) => sum + r.errors, 0);
  return {
    p50_ms: latency.median,
    p99_ms: latency.p99,
    per_s: rates.median,
    per_s_min: rates.min,
    per_s_max: rates.max,
    ...(errors > 0 ? { errors, first_error: runs[name].find((r) => r.firstError)?.firstError } : {}),
  };
};
/** Per-round latency ratio ours/no-op (the two measured in the same round), median. */
const pairedRatio = (name: CaseName) =>
  summarize(
    runs[name].map(
      (run, i) =>
        summarize(run.latenciesMs).median / summarize((runs.noop[i] as LoadResult).latenciesMs).median,
    ),
  ).median;

const base = figures('noop');
process.stdout.write(
  `${JSON.stringify({
    name: 'http-overhead',
    params: {
      rounds: ROUNDS,
      calls_per_round: PER_ROUND,
      turns_per_round: TURNS_PER_ROUND,
      concurrency: CONCURRENCY,
      client: 'undici Pool in this process, keep-alive, one pool per server',
      order: 'noop, healthz, turn interleaved per round, order rotated',
      env_overrides: 'BENCH_HTTP_ROUNDS, _PER_ROUND, _TURNS_PER_ROUND, _CONCURRENCY',
    },
    baseline: { name: 'no-op fastify GET route, same process and client', ...base },
    ours: { healthz: figures('healthz'), turn: figures('turn') },
    ratio: { healthz_vs_noop: round(pairedRatio('healthz')), turn_vs_noop: round(pairedRatio('turn')) },
    target: { healthz_vs_noop: 1.5 },
    environment: environment(),
  })}\n`,
);
