import { randomBytes } from 'node:crypto';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { FAKE_MODEL } from './gateway/fake-model-answer.js';
import { startBenchGateway } from './gateway/start-bench-gateway.js';
import { startFakeModel } from './gateway/start-fake-model.js';
import { startLoadClient } from './gateway/start-load-client.js';
import type { LoadResult } from './lib/closed-loop.js';
import { envInt } from './lib/env-int.js';
import { heapCensus, heapGrowth, takeHeapSnapshot } from './lib/heap-census.js';
import { memoryAfterGc } from './lib/memory.js';
import { environment, round, summarize } from './lib/stats.js';

/**
 * Soak: many turns over many sessions through the API server of one embedded gateway (zero-latency
 * fake model in a child process, HTTP clients in a load-client child). Three phases of equal turns:
 * A and B over the same half of the sessions, C over all of them, so C adds as many sessions as A
 * had. After each phase the sessions go idle (no turn in flight), heap and RSS are taken after
 * forced GC and a heap snapshot is written. B − A is what turns alone leave behind (the queue's
 * one-hour dedupe window, say); (C − B) − (B − A), divided by the sessions C added, is what an
 * idle session keeps. The snapshots are counted by kind of object (constructor, closure,
 * string…) the same way: a kind that gained at least one object per two added sessions is memory
 * growing with the session count. RSS and event-loop delay are sampled all along.
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

// Three phases of the same number of turns: A and B over the same half of the sessions, C over
// all of them. B − A is what turns alone leave behind (time-bounded windows such as the queue's
// one-hour dedupe); (C − B) − (B − A) is what the sessions C added keep once idle.
const phaseTurns = Math.floor(TURNS / 3);
const halfSessions = Math.max(1, Math.floor(SESSIONS / 2));
const phase = async (label: string, sessions: number) => {
  progress(`phase ${label}: ${phaseTurns} turns over ${sessions} sessions`);
  const load = await batch(phaseTurns, sessions);
  await sleep(IDLE_MS);
  const memory = await memoryAfterGc();
  const rssPeak = Math.max(...rssSamples.splice(0), 0);
  const snapshot = takeHeapSnapshot();
  lag.reset(); // writing the snapshot blocks the loop for seconds: not the gateway's lag
  return { load, memory, snapshot, rssPeak };
};
const a = await phase('A', halfSessions);
const b = await phase('B', halfSessions);
const c = await phase('C', SESSIONS);
clearInterval(sampler);
lag.disable();

await client.close();
await gw.close();
await model.close();

const loads = [a.load, b.load, c.load];
const errors = loads.reduce((sum, load) => sum + load.errors, 0);
const firstError = loads.find((load) => load.firstError !== undefined)?.firstError;
const latencies = summarize(loads.flatMap((load) => load.latenciesMs));
const lags = summarize(lagSamples);
const addedSessions = SESSIONS - halfSessions;
const [censusA, censusB, censusC] = [a.snapshot, b.snapshot, c.snapshot].map(heapCensus) as [
  ReturnType<typeof heapCensus>,
  ReturnType<typeof heapCensus>,
  ReturnType<typeof heapCensus>,
];
const byTurns = new Map(heapGrowth(censusA, censusB).map((kind) => [kind.kind, kind]));
const bySessions = heapGrowth(censusB, censusC)
  .map((kind) => ({
    kind: kind.kind,
    added: kind.added - (byTurns.get(kind.kind)?.added ?? 0),
    added_bytes: kind.added_bytes - (byTurns.get(kind.kind)?.added_bytes ?? 0),
  }))
  .sort((x, y) => y.added - x.added);
const growingWithSessions = bySessions.filter((kind) => kind.added * 2 >= addedSessions);
const heapBySessionsMb = c.memory.heap_used_mb - 2 * b.memory.heap_used_mb + a.memory.heap_used_mb;
const heapPerSessionKb = round(Math.max(0, heapBySessionsMb * 1024) / addedSessions);
const result = {
  name: 'soak',
  params: {
    turns: TURNS,
    sessions: SESSIONS,
    concurrency: CONCURRENCY,
    mode: 'embedded',
    request: 'non-streaming POST /v1/chat/completions with X-Hermes-Session-Id spread over the sessions',
    phases: `A and B: ${phaseTurns} turns each over ${halfSessions} sessions; C: ${phaseTurns} over all ${SESSIONS}`,
    heap_snapshot_rule:
      'a kind of object is growing with sessions when (C − B) − (B − A) added at least one object per two sessions C added',
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
      ((3 * phaseTurns - errors) * 1000) / loads.reduce((sum, load) => sum + load.durationMs, 0),
    ),
    turn_p50_ms: latencies.median,
    turn_p99_ms: latencies.p99,
    errors,
    ...(firstError === undefined ? {} : { first_error: firstError }),
    event_loop_lag_p50_ms: lags.median,
    event_loop_lag_p99_ms: lags.p99,
    event_loop_lag_max_ms: lags.max,
    // Before the first heap snapshot: writing one takes memory of its own that RSS keeps.
    rss_mb_peak: round(a.rssPeak),
    rss_mb_peak_phase_b_c: round(Math.max(b.rssPeak, c.rssPeak)),
    rss_mb_after: [a.memory.rss_mb, b.memory.rss_mb, c.memory.rss_mb],
    heap_mb_after: [a.memory.heap_used_mb, b.memory.heap_used_mb, c.memory.heap_used_mb],
    heap_kb_per_session_after_idle: heapPerSessionKb,
    heap_snapshot_kinds_growing_with_sessions: growingWithSessions.length,
    heap_snapshot_growing_kinds: growingWithSessions.slice(0, 10),
    heap_snapshot_top_growth_by_sessions: bySessions.slice(0, 5),
    heap_snapshot_top_growth_by_turns: [...byTurns.values()].sort((x, y) => y.added - x.added).slice(0, 5),
  },
  ratio: {
    heap_after_vs_before: round(c.memory.heap_used_mb / atStart.heap_used_mb),
    rss_after_vs_before: round(c.memory.rss_mb / atStart.rss_mb),
  },
  target: {
    event_loop_lag_p99_ms: 100,
    rss_mb_peak: 200,
    heap_kb_per_session_after_idle: 1,
    heap_snapshot_kinds_growing_with_sessions: 0,
  },
  environment: environment(),
};
process.stdout.write(`${JSON.stringify(result)}\n`);
