import { randomBytes } from 'node:crypto';
import { startBareBullmq } from './gateway/bare-bullmq.js';
import { FAKE_MODEL } from './gateway/fake-model-answer.js';
import type { LoadTarget } from './gateway/load-job.js';
import { startMinimalPipeline } from './gateway/minimal-pipeline.js';
import { countKeys, deleteKeys, redisVersion } from './gateway/redis-keys.js';
import { measureRedisRoundTripCost } from './gateway/redis-round-trip-cost.js';
import { startBenchGateway } from './gateway/start-bench-gateway.js';
import { startFakeModel } from './gateway/start-fake-model.js';
import { startLoadClient } from './gateway/start-load-client.js';
import { closedLoop, type LoadResult, perSecond } from './lib/closed-loop.js';
import { envInt } from './lib/env-int.js';
import { memoryAfterGc } from './lib/memory.js';
import { environment, round, summarize } from './lib/stats.js';

/**
 * Turns through the API server (`POST /v1/chat/completions`, real HTTP on 127.0.0.1, keep-alive)
 * against a zero-latency fake model running in a child process, in embedded and BullMQ modes
 * (BullMQ with the default local-first dispatch, and with every turn a job). The HTTP clients run
 * in a load-client child process, like any load generator, so the gateway's event loop carries
 * only the gateway. Baselines measured in the same run, interleaved round by round (order rotated
 * per round): the fake model called directly with the `openai` SDK from the load client (its own
 * response time, subtracted to get the gateway's added latency), bare BullMQ no-op jobs (producer
 * and worker in this process: the producer is part of what a bare job costs), and the minimal
 * pipeline (fastify → BullMQ job → one streaming `openai` call → answer), called by the same load
 * client. Then memory after forced GC over 2 × N turns spread over M conversations in embedded
 * mode (a fresh gateway, measured first so the figures are not mixed with the other systems of
 * the throughput phase).
 */

const CONCURRENCY = envInt('BENCH_GATEWAY_CONCURRENCY', 16);
const ROUNDS = envInt('BENCH_GATEWAY_ROUNDS', 9);
const PER_ROUND = envInt('BENCH_GATEWAY_PER_ROUND', 1000);
const SERIAL_PER_ROUND = envInt('BENCH_GATEWAY_SERIAL_PER_ROUND', 100);
const WARMUP = envInt('BENCH_GATEWAY_WARMUP', 500);
const MEMORY_TURNS = envInt('BENCH_GATEWAY_TURNS', 10_000);
const MEMORY_SESSIONS = envInt('BENCH_GATEWAY_SESSIONS', 1_000);
const ANSWER_CHUNKS = envInt('BENCH_GATEWAY_CHUNKS', 1);

const progress = (message: string) => process.stderr.write(`[bench gateway] ${message}\n`);
const atStart = await memoryAfterGc();
const rootPrefix = `hgbench-${randomBytes(4).toString('hex')}`;
const model = await startFakeModel({ chunks: ANSWER_CHUNKS });
const client = await startLoadClient();
const redis = await redisVersion();

const chatBody = (text: string) =>
  JSON.stringify({ model: FAKE_MODEL, messages: [{ role: 'user', content: text }] });

// ---- memory: embedded gateway, N turns over M conversations, twice --------------------------------
const memory = await (async () => {
  const gw = await startBenchGateway({
    mode: 'embedded',
    modelBaseURL: model.baseURL,
    prefix: `${rootPrefix}-mem`,
    config: ['queue:', `  concurrency: ${CONCURRENCY}`],
  });
  const body = chatBody('Say hello');
  let sent = 0;
  const batch = async () => {
    const offset = sent;
    sent += MEMORY_TURNS;
    return client.run({
      target: {
        kind: 'http',
        origin: gw.origin,
        path: '/v1/chat/completions',
        body,
        conversations: { offset, count: MEMORY_SESSIONS },
      },
      total: MEMORY_TURNS,
      concurrency: CONCURRENCY,
    });
  };
  const before = await memoryAfterGc();
  progress(`memory: first ${MEMORY_TURNS} turns over ${MEMORY_SESSIONS} conversations`);
  const first = await batch();
  const afterFirst = await memoryAfterGc();
  progress(`memory: second ${MEMORY_TURNS} turns`);
  const second = await batch();
  const afterSecond = await memoryAfterGc();
  await gw.close();
  return { before, afterFirst, afterSecond, first, second };
})();

// ---- throughput and latency, interleaved --------------------------------------------------------
const bare = await startBareBullmq({ prefix: `${rootPrefix}-bare`, concurrency: CONCURRENCY });
const minimal = await startMinimalPipeline({
  modelBaseURL: model.baseURL,
  prefix: `${rootPrefix}-min`,
  concurrency: CONCURRENCY,
});
const embedded = await startBenchGateway({
  mode: 'embedded',
  modelBaseURL: model.baseURL,
  prefix: `${rootPrefix}-emb`,
  config: ['queue:', `  concurrency: ${CONCURRENCY}`],
});
const bullmq = await startBenchGateway({
  mode: 'bullmq',
  modelBaseURL: model.baseURL,
  prefix: `${rootPrefix}-gw`,
  config: ['queue:', `  concurrency: ${CONCURRENCY}`],
});
// The same BullMQ-mode gateway with local-first off: every turn through a BullMQ job.
const bullmqJobs = await startBenchGateway({
  mode: 'bullmq',
  modelBaseURL: model.baseURL,
  prefix: `${rootPrefix}-gwjobs`,
  config: ['queue:', `  concurrency: ${CONCURRENCY}`, '  local_first: false'],
});
const gatewayBody = chatBody('Say hello');
const minimalBody = JSON.stringify({ text: 'Say hello' });

type CaseName = 'model_direct' | 'bare_bullmq' | 'minimal_pipeline' | 'embedded' | 'bullmq' | 'bullmq_jobs';
const chat = (origin: string): LoadTarget => ({
  kind: 'http',
  origin,
  path: '/v1/chat/completions',
  body: gatewayBody,
});
/** Where each case's calls go; bare BullMQ runs in this process instead. */
const targets: Record<Exclude<CaseName, 'bare_bullmq'>, LoadTarget> = {
  model_direct: { kind: 'model', baseURL: model.baseURL },
  minimal_pipeline: { kind: 'http', origin: minimal.origin, path: '/turn', body: minimalBody },
  embedded: chat(embedded.origin),
  bullmq: chat(bullmq.origin),
  bullmq_jobs: chat(bullmqJobs.origin),
};
const runCase = (name: CaseName, total: number, concurrency: number): Promise<LoadResult> =>
  name === 'bare_bullmq'
    ? closedLoop({ total, concurrency, call: () => bare.runJob() })
    : client.run({ target: targets[name], total, concurrency });
const names: CaseName[] = [
  'model_direct',
  'bare_bullmq',
  'minimal_pipeline',
  'embedded',
  'bullmq',
  'bullmq_jobs',
];
/** Cases whose unloaded (concurrency 1) latency is measured too. */
const serialNames: CaseName[] = ['model_direct', 'minimal_pipeline', 'embedded', 'bullmq', 'bullmq_jobs'];
const runs = Object.fromEntries(names.map((n) => [n, [] as LoadResult[]])) as Record<CaseName, LoadResult[]>;
const serialRuns = Object.fromEntries(names.map((n) => [n, [] as LoadResult[]])) as Record<
  CaseName,
  LoadResult[]
>;

progress(`warm-up: ${WARMUP} calls per case`);
for (const name of names) {
  await runCase(name, WARMUP, CONCURRENCY);
  await runCase(name, Math.min(50, WARMUP), 1);
}
for (let r = 0; r < ROUNDS; r += 1) {
  progress(`round ${r + 1}/${ROUNDS}`);
  const order = names.map((_, i) => names[(i + r) % names.length] as CaseName);
  for (const name of order) {
    runs[name].push(await runCase(name, PER_ROUND, CONCURRENCY));
  }
  for (const name of order.filter((n) => serialNames.includes(n))) {
    serialRuns[name].push(await runCase(name, SERIAL_PER_ROUND, 1));
  }
}

await client.close();
await embedded.close();
await bullmq.close();
await bullmqJobs.close();
await minimal.close();
await bare.close();
await model.close();
progress('redis round trip cost: back to back and sparse');
const roundTrip = await measureRedisRoundTripCost({ prefix: `${rootPrefix}-rtt` });
// What the BullMQ-mode gateway leaves in Redis once closed (dedupe markers expire; others should not stay).
const gatewayKeysLeft = await countKeys(`${rootPrefix}-gw*`);
const keysDeleted = await deleteKeys(`${rootPrefix}*`);

// ---- report ----------------------------------------------------------------------------------
const pooled = (results: readonly LoadResult[]) => summarize(results.flatMap((r) => r.latenciesMs));
const errorsOf = (results: readonly LoadResult[]) => results.reduce((sum, r) => sum + r.errors, 0);
const firstErrorOf = (results: readonly LoadResult[]) => results.find((r) => r.firstError)?.firstError;

function figures(name: CaseName) {
  const rates = summarize(runs[name].map(perSecond));
  const latency = pooled(runs[name]);
  const serial = pooled(serialRuns[name]);
  const errors = errorsOf(runs[name]) + errorsOf(serialRuns[name]);
  return {
    per_s: rates.median,
    per_s_min: rates.min,
    per_s_max: rates.max,
    p50_ms: latency.median,
    p99_ms: latency.p99,
    max_ms: latency.max,
    ...(serialNames.includes(name) ? { c1_p50_ms: serial.median, c1_p99_ms: serial.p99 } : {}),
    ...(errors > 0 ? { errors, first_error: firstErrorOf([...runs[name], ...serialRuns[name]]) } : {}),
  };
}

/** Per-round ratio ours/baseline (the two were measured in the same round), summarised. */
function pairedRatio(ours: CaseName, base: CaseName) {
  const ratios = runs[ours].map((run, i) => perSecond(run) / perSecond(runs[base][i] as LoadResult));
  const s = summarize(ratios);
  return { median: s.median, min: s.min, max: s.max };
}

const direct = figures('model_direct');
const gatewayFigures = (name: 'embedded' | 'bullmq' | 'bullmq_jobs') => {
  const f = figures(name);
  return {
    turns_per_s: f.per_s,
    turns_per_s_min: f.per_s_min,
    turns_per_s_max: f.per_s_max,
    p50_ms: f.p50_ms,
    p99_ms: f.p99_ms,
    max_ms: f.max_ms,
    added_p50_ms: round(f.p50_ms - direct.p50_ms),
    added_p99_ms: round(f.p99_ms - direct.p99_ms),
    c1_p50_ms: f.c1_p50_ms,
    c1_p99_ms: f.c1_p99_ms,
    c1_added_p50_ms: round((f.c1_p50_ms ?? 0) - (direct.c1_p50_ms ?? 0)),
    c1_added_p99_ms: round((f.c1_p99_ms ?? 0) - (direct.c1_p99_ms ?? 0)),
    ...('errors' in f ? { errors: f.errors, first_error: f.first_error } : {}),
  };
};
const minimalFigures = figures('minimal_pipeline');
const bareFigures = figures('bare_bullmq');
const memoryRun = (run: LoadResult) => ({
  turns_per_s: round(perSecond(run)),
  p50_ms: summarize(run.latenciesMs).median,
  p99_ms: summarize(run.latenciesMs).p99,
  errors: run.errors,
  ...(run.firstError === undefined ? {} : { first_error: run.firstError }),
});

const result = {
  name: 'gateway',
  params: {
    concurrency: CONCURRENCY,
    worker_concurrency: CONCURRENCY,
    rounds: ROUNDS,
    calls_per_case_per_round: PER_ROUND,
    c1_calls_per_case_per_round: SERIAL_PER_ROUND,
    warmup_calls_per_case: WARMUP,
    memory_turns_per_batch: MEMORY_TURNS,
    memory_batches: 2,
    memory_conversations: MEMORY_SESSIONS,
    gateway_requests:
      'non-streaming POST /v1/chat/completions, one user message; bullmq = default config (queue.local_first: a process with a free slot runs the turn without a job), bullmq_jobs = local_first false (every turn a BullMQ job); throughput rounds: standalone (new session per request); memory phase: X-Hermes-Session-Id spread over the conversations',
    fake_model:
      "child process, node:http, fixed answer at once (SSE for stream: true); the gateway and the baselines call it with stream: true, all through the gateway's model transport (createModelFetch: undici request())",
    load_client:
      'child process: undici keep-alive pool (one request per socket) for the HTTP cases, the openai SDK for model_direct; closed loop at the given concurrency; bare_bullmq runs in this process',
    answer_text_deltas: ANSWER_CHUNKS,
    minimal_pipeline:
      'fastify route → BullMQ job (QueueEvents.waitUntilFinished) → one streaming openai call with one user message (no system prompt, no tools) → JSON answer',
    bare_bullmq:
      'Queue.add + no-op Worker, removeOnComplete, completion seen via the worker event, closed loop',
    latency:
      'p50/p99 pooled over all rounds; added = gateway − model_direct at the same concurrency; c1_* = concurrency 1 (unloaded)',
    env_overrides:
      'BENCH_GATEWAY_CONCURRENCY, _ROUNDS, _PER_ROUND, _SERIAL_PER_ROUND, _WARMUP, _TURNS, _SESSIONS, _CHUNKS',
    order:
      'cases interleaved per round, order rotated each round; memory phase runs first on a fresh gateway',
    memory_points:
      'after forced GC: process_start = modules imported, nothing started; before = fake model + fresh embedded gateway started, no turn yet; then after each batch (the load generator is the load-client child, not counted)',
  },
  baseline: {
    name: 'minimal pipeline (fastify → BullMQ job → openai SDK) and bare BullMQ, same run',
    bare_bullmq: {
      jobs_per_s: bareFigures.per_s,
      jobs_per_s_min: bareFigures.per_s_min,
      jobs_per_s_max: bareFigures.per_s_max,
      p50_ms: bareFigures.p50_ms,
      p99_ms: bareFigures.p99_ms,
      ...('errors' in bareFigures ? { errors: bareFigures.errors } : {}),
    },
    minimal_pipeline: {
      turns_per_s: minimalFigures.per_s,
      turns_per_s_min: minimalFigures.per_s_min,
      turns_per_s_max: minimalFigures.per_s_max,
      p50_ms: minimalFigures.p50_ms,
      p99_ms: minimalFigures.p99_ms,
      c1_p50_ms: minimalFigures.c1_p50_ms,
      c1_p99_ms: minimalFigures.c1_p99_ms,
      ...('errors' in minimalFigures ? { errors: minimalFigures.errors } : {}),
    },
    model_direct: {
      calls_per_s: direct.per_s,
      p50_ms: direct.p50_ms,
      p99_ms: direct.p99_ms,
      c1_p50_ms: direct.c1_p50_ms,
      c1_p99_ms: direct.c1_p99_ms,
      ...('errors' in direct ? { errors: direct.errors } : {}),
    },
  },
  ours: {
    embedded: gatewayFigures('embedded'),
    bullmq: { ...gatewayFigures('bullmq'), redis_keys_left_after_close: gatewayKeysLeft },
    bullmq_jobs: gatewayFigures('bullmq_jobs'),
    memory: {
      rss_mb_process_start: atStart.rss_mb,
      rss_mb_before: memory.before.rss_mb,
      rss_mb_after_first: memory.afterFirst.rss_mb,
      rss_mb_after_second: memory.afterSecond.rss_mb,
      heap_mb_process_start: atStart.heap_used_mb,
      heap_mb_before: memory.before.heap_used_mb,
      heap_mb_after_first: memory.afterFirst.heap_used_mb,
      heap_mb_after_second: memory.afterSecond.heap_used_mb,
      external_mb_after_second: memory.afterSecond.external_mb,
      growth_mb: round(memory.afterSecond.rss_mb - memory.afterFirst.rss_mb),
      heap_growth_mb: round(memory.afterSecond.heap_used_mb - memory.afterFirst.heap_used_mb),
      first_batch: memoryRun(memory.first),
      second_batch: memoryRun(memory.second),
    },
  },
  ratio: {
    vs_minimal_pipeline: pairedRatio('bullmq', 'minimal_pipeline'),
    vs_bare_bullmq: pairedRatio('bullmq', 'bare_bullmq'),
    embedded_vs_minimal_pipeline: pairedRatio('embedded', 'minimal_pipeline'),
    bullmq_jobs_vs_minimal_pipeline: pairedRatio('bullmq_jobs', 'minimal_pipeline'),
    bullmq_jobs_vs_bare_bullmq: pairedRatio('bullmq_jobs', 'bare_bullmq'),
    // The floor a turn can reach against bare jobs: the minimal pipeline does a strict subset of a turn.
    minimal_pipeline_vs_bare_bullmq: pairedRatio('minimal_pipeline', 'bare_bullmq'),
  },
  target: {
    vs_minimal_pipeline: 0.5,
    vs_bare_bullmq: 0.25,
    added_p50_ms: 5,
    rss_mb_after_turns: 200,
    rss_growth: 'none over the second batch',
  },
  // Why the ratio to bare BullMQ sits low here: what a round trip costs when Redis is kept busy
  // (bare BullMQ) and when it sleeps between calls (a turn's SUBMIT_CLAIM and FINISH).
  diagnostics: { redis_round_trip_cpu: roundTrip },
  environment: { ...environment(), redis_version: redis, redis_keys_cleaned: keysDeleted },
};
process.stdout.write(`${JSON.stringify(result)}\n`);
