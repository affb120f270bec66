import { randomBytes } from 'node:crypto';
import { type DecideSample, sampleDecide } from './approval-roundtrip/decide-baseline.js';
import { watchMarkers } from './approval-roundtrip/marker-watch.js';
import { type RoundTripSample, runRoundTrip } from './approval-roundtrip/run-round-trip.js';
import { type QueueMode, startRoundTripGateway } from './approval-roundtrip/start-roundtrip-gateway.js';
import { startToolModel } from './approval-roundtrip/start-tool-model.js';
import { createWallClock } from './approval-roundtrip/wall-clock.js';
import { redisVersion } from './gateway/redis-keys.js';
import { envInt } from './lib/env-int.js';
import { memoryAfterGc } from './lib/memory.js';
import { environment, round, summarize } from './lib/stats.js';

/**
 * The approval round trip through the real gateway (`createGateway` with the in-memory test
 * adapter, the control plane, the turn runner and the terminal tool) against a zero-latency fake
 * model in a child process, in BullMQ (Redis) and embedded modes. Each round: a message → the
 * model calls `terminal` with a flagged command → the turn parks and the prompt appears → "Allow
 * once" is pressed (`adapter.inject(click)`) → the command starts → the final answer arrives.
 * Measured: press injected → approved command started (bash writes `$EPOCHREALTIME` as its first
 * step). Baseline, interleaved round by round (A B B A …): recording a decision for a pending
 * request with the same gateway's approval gate / store.
 */

const ROUNDS = envInt('BENCH_APPROVAL_RT_ROUNDS', 200);
const WARMUP = envInt('BENCH_APPROVAL_RT_WARMUP', 20);
const MODES: readonly QueueMode[] = ['bullmq', 'embedded'];

const progress = (message: string) => process.stderr.write(`[bench approval-roundtrip] ${message}\n`);
const rootPrefix = `hgbench-rt-${randomBytes(4).toString('hex')}`;
const model = await startToolModel();
const redis = await redisVersion();

interface ModeResult {
  readonly samples: RoundTripSample[];
  readonly baseline: DecideSample[];
  readonly redisKeysDeleted: number;
}

async function measure(mode: QueueMode): Promise<ModeResult> {
  const gw = await startRoundTripGateway({
    mode,
    modelBaseURL: model.baseURL,
    prefix: `${rootPrefix}-${mode}`,
  });
  const clock = createWallClock();
  const markers = watchMarkers(gw.workdir, () => clock.now());
  const samples: RoundTripSample[] = [];
  const baseline: DecideSample[] = [];
  let redisKeysDeleted = 0;
  try {
    for (let i = 0; i < WARMUP; i += 1) {
      await runRoundTrip(gw, markers, clock, `w${i}`);
      await sampleDecide(gw.gateway, gw.workdir, `w${i}`);
    }
    progress(`${mode}: warmed up (${WARMUP} rounds)`);
    for (let i = 0; i < ROUNDS; i += 1) {
      const id = `m${i}`;
      if (i % 2 === 0) {
        samples.push(await runRoundTrip(gw, markers, clock, id));
        baseline.push(await sampleDecide(gw.gateway, gw.workdir, id));
      } else {
        baseline.push(await sampleDecide(gw.gateway, gw.workdir, id));
        samples.push(await runRoundTrip(gw, markers, clock, id));
      }
      if ((i + 1) % 50 === 0) progress(`${mode}: ${i + 1}/${ROUNDS} rounds`);
    }
  } finally {
    markers.close();
    redisKeysDeleted = await gw.close();
  }
  return { samples, baseline, redisKeysDeleted };
}

const results = new Map<QueueMode, ModeResult>();
for (const mode of MODES) results.set(mode, await measure(mode));
const memory = await memoryAfterGc();
await model.close();

function figures(values: readonly number[]) {
  const s = summarize(values);
  return { median: s.median, p99: s.p99, min: s.min, max: s.max, samples: s.samples };
}

function modeFigures(mode: QueueMode) {
  const result = results.get(mode);
  if (result === undefined) throw new Error(`no result for ${mode}`);
  const ours = figures(result.samples.map((s) => s.commandStartMs));
  const gate = figures(result.baseline.map((s) => s.gateDecideMs));
  const store = figures(result.baseline.map((s) => s.storeDecideMs));
  return {
    ours: {
      ...ours,
      marker_seen_via_fs_watch: figures(result.samples.map((s) => s.markerSeenMs)),
      press_answered: figures(result.samples.map((s) => s.pressAnsweredMs)),
      whole_round: figures(result.samples.map((s) => s.roundMs)),
    },
    baseline: { gate_decide: gate, store_decide: store },
    ratio: round(ours.median / gate.median),
    ratio_vs_store_decide: round(ours.median / store.median),
  };
}

const bullmq = modeFigures('bullmq');
const embedded = modeFigures('embedded');
const result = {
  name: 'approval-roundtrip',
  params: {
    rounds_per_mode: ROUNDS,
    warmup_rounds_per_mode: WARMUP,
    concurrency: 1,
    modes: MODES,
    unit: 'ms',
    measured:
      'from the "Allow once" press entering the test adapter (adapter.inject) to the approved command starting: bash writes $EPOCHREALTIME into a marker file as its first step (compared with the same wall clock, re-anchored before each press); marker_seen_via_fs_watch = the same file seen here through fs.watch',
    round:
      'fresh chat per round: message → fake model calls terminal("echo $EPOCHREALTIME > started-N; rm -rf scratch-N", flagged: recursive delete) → turn parks, prompt sent and recorded → press → resume (BullMQ job / embedded queue) → command runs → final answer delivered',
    fake_model:
      'child process, node:http, SSE at once; tool call for a user message, fixed answer after a tool result',
    gateway:
      'createGateway role gateway, in-memory test adapter, config defaults (manual approvals, tool_progress new), silent logger',
    baseline_how:
      'the same gateway’s approval gate (gate_decide: read request + user check + atomic record) and store (store_decide: atomic record only) deciding a freshly opened pending request; SQLite (state.db, WAL) in embedded mode, Redis in BullMQ mode',
    order:
      'round trip and baseline interleaved per round (A B, then B A); BullMQ mode first, then embedded, each on a fresh gateway',
    env_overrides: 'BENCH_APPROVAL_RT_ROUNDS, BENCH_APPROVAL_RT_WARMUP',
  },
  baseline: {
    name: 'recording a decision in the approval store alone (gate.decide on a pending request), same gateway, same run',
    median: bullmq.baseline.gate_decide.median,
    p99: bullmq.baseline.gate_decide.p99,
    redis: bullmq.baseline,
    embedded: embedded.baseline,
  },
  ours: {
    median: bullmq.ours.median,
    p99: bullmq.ours.p99,
    min: bullmq.ours.min,
    max: bullmq.ours.max,
    redis: bullmq.ours,
    embedded: embedded.ours,
  },
  ratio: bullmq.ratio,
  ratios: {
    redis: bullmq.ratio,
    redis_vs_store_decide: bullmq.ratio_vs_store_decide,
    embedded: embedded.ratio,
    embedded_vs_store_decide: embedded.ratio_vs_store_decide,
  },
  target: { redis_p50_ms: 50 },
  memory_after: { rss_mb: memory.rss_mb, heap_used_mb: memory.heap_used_mb },
  environment: {
    ...environment(),
    redis_version: redis,
    redis_keys_cleaned: results.get('bullmq')?.redisKeysDeleted ?? 0,
  },
};
process.stdout.write(`${JSON.stringify(result)}\n`);
