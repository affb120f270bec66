import { randomBytes } from 'node:crypto';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { FAKE_MODEL } from './gateway/fake-model-answer.js';
import { startBenchGateway } from './gateway/start-bench-gateway.js';
import { startFakeModel } from './gateway/start-fake-model.js';
import { startLoadClient } from './gateway/start-load-client.js';
import type { LoadResult } from './lib/closed-loop.js';
import { envInt } from './lib/env-int.js';
import { memoryAfterGc } from './lib/memory.js';
import { environment, round, summarize } from './lib/stats.js';

/**
 * Soak: many turns over many sessions through the API server of one embedded gateway (zero-latency
 * fake model in a child process, HTTP clients in a load-client child). Two halves: the first
 * spreads its turns over half the sessions, the second over all of them, so the second half
 * adds as many new sessions as the first. After each half the sessions go idle (no turn in
 * flight), then heap and RSS are taken after forced GC: what the second half added, divided by
 * the sessions it added, is what an idle session keeps in memory. RSS and event-loop delay are
 * sampled all along.
 */
const TURNS = envInt('BENCH_SOAK_TURNS', 50_000);
const SESSIONS = envInt('BENCH_SOAK_SESSIONS', 5_000);
const CONCURRENCY = envInt('BENCH_SOAK_CONCURRENCY', 16);
const SAMPLE_MS = envInt('BENCH_SOAK_SAMPLE_MS', 500);
const IDLE_MS = envInt('BENCH_SOAK_IDLE_MS', 2_000);

const progress = (message: string) => process.stderr.write(`[bench soak] ${message}\n`);
const model = await startFakeModel();
const client = await startLoadClient();
const gw = await startBenchGateway({
  mode: 'embedded',
  modelBaseURL: model.baseURL,
  prefix: `hgbench-${randomBytes(4).toString('hex')}-soak`,
  config: ['queue:', `  concurrency: ${CONCURRENCY}`],
});
const body = JSON.stringify({ model: FAKE_MODEL, messages: [{ role: 'user', content: 'Say hello' }] });
const batch = (total: number, sessions: number): Promise<LoadResult> =>
  client.run({
    target: {
      kind: 'http',
      origin: gw.origin,
      path: '/v1/chat/completions',
      body,
      conversations: { offset: 0, count: sessions },
    },
    total,
    concurrency: CONCURRENCY,
  });

// Warm-up on a few sessions: code compiled, pools and caches filled.
progress('warm-up');
await batch(Math.min(1_000, TURNS), Math.min(20, SESSIONS));
const atStart = await memoryAfterGc();

const lag = monitorEventLoopDelay({ resolution: 10 });
lag.enable();
const rssSamples: number[] = [];
const lagSamples: number[] = [];
const sampler = setInterval(() => {
  rssSamples.push(process.memoryUsage().rss / 1024 / 1024);
  lagSamples.push(lag.max / 1e6);
  lag.reset();
}, SAMPLE_MS);

const half = Math.floor(TURNS / 2);
const firstSessions = Math.max(1, Math.floor(SESSIONS / 2));
progress(`first half: ${half} turns over ${firstSessions} sessions`);
const first = await batch(half, firstSessions);
await sleep(IDLE_MS);
const afterFirst = await memoryAfterGc();
progress(`second half: ${TURNS - half} turns over ${SESSIONS} sessions`);
const second = await batch(TURNS - half, SESSIONS);
await sleep(IDLE_MS);
const afterSecond = await memoryAfterGc();
clearInterval(sampler);
lag.disable();

await client.close();
await gw.close();
await model.close();

const latencies = summarize([...first.latenciesMs, ...second.latenciesMs]);
const lags = summarize(lagSamples);
const addedSessions = SESSIONS - firstSessions;
const heapPerSessionKb = round(((afterSecond.heap_used_mb - afterFirst.heap_used_mb) * 1024) / addedSessions);
const result = {
  name: 'soak',
  params: {
    turns: TURNS,
    sessions: SESSIONS,
    concurrency: CONCURRENCY,
    mode: 'embedded',
    request: 'non-streaming POST /v1/chat/completions with X-Hermes-Session-Id spread over the sessions',
    halves: `first ${half} turns over ${firstSessions} sessions, then ${TURNS - half} over all ${SESSIONS}`,
    idle_ms_before_measuring: IDLE_MS,
    sampling: `RSS and the event-loop delay maximum every ${SAMPLE_MS} ms (monitorEventLoopDelay, 10 ms resolution)`,
    env_overrides: 'BENCH_SOAK_TURNS, _SESSIONS, _CONCURRENCY, _SAMPLE_MS, _IDLE_MS',
  },
  baseline: {
    name: 'the same gateway after warm-up, before the soak (heap and RSS after forced GC)',
    heap_mb: atStart.heap_used_mb,
    rss_mb: atStart.rss_mb,
  },
  ours: {
    turns_per_s: round(
      ((TURNS - first.errors - second.errors) * 1000) / (first.durationMs + second.durationMs),
    ),
    turn_p50_ms: latencies.median,
    turn_p99_ms: latencies.p99,
    errors: first.errors + second.errors,
    ...((first.firstError ?? second.firstError)
      ? { first_error: first.firstError ?? second.firstError }
      : {}),
    event_loop_lag_p50_ms: lags.median,
    event_loop_lag_p99_ms: lags.p99,
    event_loop_lag_max_ms: lags.max,
    rss_mb_peak: round(Math.max(...rssSamples, 0)),
    rss_mb_after_first_half: afterFirst.rss_mb,
    rss_mb_after_second_half: afterSecond.rss_mb,
    heap_mb_after_first_half: afterFirst.heap_used_mb,
    heap_mb_after_second_half: afterSecond.heap_used_mb,
    heap_kb_per_session_after_idle: heapPerSessionKb,
    rss_samples: rssSamples.length,
  },
  ratio: {
    heap_after_vs_before: round(afterSecond.heap_used_mb / atStart.heap_used_mb),
    rss_after_vs_before: round(afterSecond.rss_mb / atStart.rss_mb),
  },
  target: { event_loop_lag_p99_ms: 100, rss_mb_peak: 200, heap_kb_per_session_after_idle: 1 },
  environment: environment(),
};
process.stdout.write(`${JSON.stringify(result)}\n`);
