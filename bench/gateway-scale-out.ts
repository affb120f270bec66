import { randomBytes } from 'node:crypto';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { FAKE_ANSWER, FAKE_MODEL } from './gateway/fake-model-answer.js';
import { createHttpPoster, type HttpPoster } from './gateway/http-poster.js';
import { countKeys, deleteKeys, redisVersion } from './gateway/redis-keys.js';
import { type BenchGateway, startBenchGateway } from './gateway/start-bench-gateway.js';
import { startFakeModel } from './gateway/start-fake-model.js';
import { startWorkerProcess, type WorkerProcess } from './gateway/start-worker-process.js';
import { closedLoop, type LoadResult, perSecond } from './lib/closed-loop.js';
import { envInt } from './lib/env-int.js';
import { environment, summarize } from './lib/stats.js';

/**
 * Scaling out in BullMQ mode: turns/s through the API server of a gateway that runs no workers
 * itself, with 1 and with 2 `worker` processes (same HERMES_HOME, same Redis), and with 1, 2 and
 * 4 workers on PostgreSQL state (each on its own empty HERMES_HOME), against the baseline of one
 * process doing everything on SQLite (the default `start`, local-first). The fake model (a child
 * process) holds each answer back `BENCH_SCALE_MODEL_MS` (250 ms), as a remote model makes a turn
 * wait, and every process runs `BENCH_SCALE_WORKER_CONCURRENCY` (4) turns at once: throughput is
 * bounded by worker slots, as in a deployment, not by this machine's cores, so adding workers
 * shows. Cases interleaved round by round. Then the mid-run case: load on a PostgreSQL gateway
 * with one worker, a second worker started while the load runs, turns/s before and after. Also
 * reports the CPU time per turn summed over the gateway and its worker processes.
 */
const MODEL_MS = envInt('BENCH_SCALE_MODEL_MS', 250);
const SLOTS = envInt('BENCH_SCALE_WORKER_CONCURRENCY', 4);
const CONCURRENCY = envInt('BENCH_SCALE_CONCURRENCY', 32);
const ROUNDS = envInt('BENCH_SCALE_ROUNDS', 3);
const PER_ROUND = envInt('BENCH_SCALE_PER_ROUND', 160);
const WARMUP = envInt('BENCH_SCALE_WARMUP', 32);
/** Seconds of load measured before and after the worker added mid-run. */
const PHASE_S = envInt('BENCH_SCALE_PHASE_S', 8);

const progress = (message: string) => process.stderr.write(`[bench gateway-scale-out] ${message}\n`);
const rootPrefix = `hgscale-${randomBytes(4).toString('hex')}`;
const model = await startFakeModel({ latencyMs: MODEL_MS });
const redis = await redisVersion();
const queueConfig = ['queue:', `  concurrency: ${SLOTS}`];
/** PostgreSQL for the shared-state cases (BENCH_DATABASE_URL; default the test server). */
const DATABASE_URL = process.env['BENCH_DATABASE_URL'] ?? 'postgres://postgres@127.0.0.1:5432/test';
const pgSchemas: string[] = [];
const extraHomes: string[] = [];

interface Setup {
  readonly gateway: BenchGateway;
  readonly workers: WorkerProcess[];
  readonly poster: HttpPoster;
  readonly shared: 'sqlite' | 'postgres';
}

/** One more `worker` process: on the gateway's home, or (PostgreSQL) on an empty one of its own. */
async function addWorker(gateway: BenchGateway, shared: 'sqlite' | 'postgres'): Promise<WorkerProcess> {
  let home = gateway.home;
  if (shared === 'postgres') {
    home = mkdtempSync(join(tmpdir(), 'hermes-bench-worker-'));
    copyFileSync(join(gateway.home, 'config.yaml'), join(home, 'config.yaml'));
    extraHomes.push(home);
  }
  return startWorkerProcess({ home, workdir: gateway.workdir, modelBaseURL: model.baseURL });
}

/**
 * `shared: 'postgres'`: state in a PostgreSQL schema of its own, and every worker on an empty
 * HERMES_HOME of its own (only config.yaml copied), as on machines that share no disk.
 */
async function setup(
  name: string,
  workerProcesses: number,
  shared: 'sqlite' | 'postgres' = 'sqlite',
): Promise<Setup> {
  const schema = `hermes_bench_${randomBytes(4).toString('hex')}`;
  if (shared === 'postgres') pgSchemas.push(schema);
  const gateway = await startBenchGateway({
    mode: 'bullmq',
    modelBaseURL: model.baseURL,
    prefix: `${rootPrefix}-${name}`,
    config: [
      ...queueConfig,
      ...(shared === 'postgres' ? ['database:', `  url: ${DATABASE_URL}`, `  schema: ${schema}`] : []),
    ],
    workers: workerProcesses === 0,
  });
  const workers: WorkerProcess[] = [];
  for (let i = 0; i < workerProcesses; i += 1) workers.push(await addWorker(gateway, shared));
  return { gateway, workers, poster: createHttpPoster(gateway.origin, CONCURRENCY), shared };
}

type CaseName = 'one_process' | 'workers_1' | 'workers_2' | 'pg_workers_1' | 'pg_workers_2' | 'pg_workers_4';
const setups: Record<CaseName, Setup> = {
  one_process: await setup('one', 0),
  workers_1: await setup('w1', 1),
  workers_2: await setup('w2', 2),
  pg_workers_1: await setup('pg1', 1, 'postgres'),
  pg_workers_2: await setup('pg2', 2, 'postgres'),
  pg_workers_4: await setup('pg4', 4, 'postgres'),
};
const names = Object.keys(setups) as CaseName[];
const body = JSON.stringify({ model: FAKE_MODEL, messages: [{ role: 'user', content: 'Say hello' }] });

async function run(name: CaseName, total: number) {
  const { poster, workers } = setups[name];
  const cpuOf = async () => {
    const own = process.cpuUsage();
    const others = await Promise.all(workers.map((w) => w.cpuSeconds()));
    return (own.user + own.system) / 1e6 + others.reduce<number>((sum, s) => sum + (s ?? 0), 0);
  };
  const before = await cpuOf();
  const result = await closedLoop({
    total,
    concurrency: CONCURRENCY,
    call: async () => {
      const text = await poster.post('/v1/chat/completions', body);
      if (!text.includes(FAKE_ANSWER)) throw new Error(`unexpected answer: ${text.slice(0, 200)}`);
    },
  });
  return { result, cpuMsPerTurn: (((await cpuOf()) - before) * 1000) / total };
}

const runs = Object.fromEntries(names.map((n) => [n, [] as LoadResult[]])) as Record<CaseName, LoadResult[]>;
const cpu = Object.fromEntries(names.map((n) => [n, [] as number[]])) as Record<CaseName, number[]>;
progress(`warm-up: ${WARMUP} turns per case`);
for (const name of names) await run(name, WARMUP);
for (let r = 0; r < ROUNDS; r += 1) {
  progress(`round ${r + 1}/${ROUNDS}`);
  for (const name of names.map((_, i) => names[(i + r) % names.length] as CaseName)) {
    const { result, cpuMsPerTurn } = await run(name, PER_ROUND);
    runs[name].push(result);
    cpu[name].push(cpuMsPerTurn);
  }
}

for (const { gateway, workers, poster } of Object.values(setups)) {
  await poster.close();
  await Promise.all(workers.map((w) => w.close()));
  await gateway.close();
}

/**
 * Adding a worker mid-run: steady load on a PostgreSQL gateway with one worker; turns/s over
 * PHASE_S seconds, then a second worker (own empty home) is started while the load goes on, and
 * turns/s over the PHASE_S seconds after it said ready.
 */
async function growMidRun() {
  const grow = await setup('pggrow', 1, 'postgres');
  let done = 0;
  let errors = 0;
  let firstError: string | undefined;
  let stop = false;
  const lanes = Array.from({ length: CONCURRENCY }, async () => {
    while (!stop) {
      try {
        const text = await grow.poster.post('/v1/chat/completions', body);
        if (!text.includes(FAKE_ANSWER)) throw new Error(`unexpected answer: ${text.slice(0, 200)}`);
        done += 1;
      } catch (error) {
        errors += 1;
        firstError ??= error instanceof Error ? error.message : String(error);
      }
    }
  });
  const window = async () => {
    const count = done;
    const start = performance.now();
    await sleep(PHASE_S * 1000);
    return ((done - count) * 1000) / (performance.now() - start);
  };
  await sleep(2000); // past the start-up of the load
  const before = await window();
  const adding = performance.now();
  grow.workers.push(await addWorker(grow.gateway, 'postgres'));
  const workerStartMs = performance.now() - adding;
  const after = await window();
  stop = true;
  await Promise.all(lanes);
  await grow.poster.close();
  await Promise.all(grow.workers.map((w) => w.close()));
  await grow.gateway.close();
  return {
    turns_per_s_before: before,
    turns_per_s_after: after,
    ratio_after_vs_before: after / before,
    worker_start_ms: workerStartMs,
    turns: done,
    ...(errors > 0 ? { errors, first_error: firstError } : {}),
  };
}
progress(`adding a worker mid-run (${PHASE_S} s before, ${PHASE_S} s after)`);
const midRun = await growMidRun();
await model.close();
for (const home of extraHomes) rmSync(home, { recursive: true, force: true });
const admin = new pg.Client({ connectionString: DATABASE_URL });
await admin.connect();
for (const schema of pgSchemas) await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
await admin.end();
const keysLeft = await countKeys(`${rootPrefix}*`);
await deleteKeys(`${rootPrefix}*`);

const figures = (name: CaseName) => {
  const rates = summarize(runs[name].map(perSecond));
  const latency = summarize(runs[name].flatMap((r) => r.latenciesMs));
  const errors = runs[name].reduce((sum, r) => sum + r.errors, 0);
  return {
    turns_per_s: rates.median,
    turns_per_s_min: rates.min,
    turns_per_s_max: rates.max,
    p50_ms: latency.median,
    p99_ms: latency.p99,
    cpu_ms_per_turn: summarize(cpu[name]).median,
    ...(errors > 0 ? { errors, first_error: runs[name].find((r) => r.firstError)?.firstError } : {}),
  };
};
const pairedRatio = (ours: CaseName) => {
  const s = summarize(
    runs[ours].map((run, i) => perSecond(run) / perSecond(runs.one_process[i] as LoadResult)),
  );
  return { median: s.median, min: s.min, max: s.max };
};

process.stdout.write(
  `${JSON.stringify({
    name: 'gateway-scale-out',
    params: {
      concurrency: CONCURRENCY,
      worker_concurrency_per_process: SLOTS,
      model_latency_ms: MODEL_MS,
      mid_run_phase_s: PHASE_S,
      rounds: ROUNDS,
      turns_per_case_per_round: PER_ROUND,
      warmup_turns_per_case: WARMUP,
      requests: 'non-streaming POST /v1/chat/completions, one user message, a new session each',
      workers_n:
        'a gateway started with no workers of its own (every turn a BullMQ job) plus N `worker` processes on the same HERMES_HOME and Redis',
      postgres_workers_n:
        'the same with DATABASE_URL: state in PostgreSQL (a schema per case, dropped after), each worker on an empty HERMES_HOME of its own; baseline one_process is the SQLite single machine',
      cpu_ms_per_turn:
        'user + system CPU of this process (gateway and load generator) plus the worker processes, per turn; the fake model and Redis not included',
      mid_run:
        'PostgreSQL gateway, one worker under steady load; a second worker started mid-run; turns/s over the phase before and the phase after it was ready',
      env_overrides:
        'BENCH_SCALE_CONCURRENCY, _WORKER_CONCURRENCY, _MODEL_MS, _ROUNDS, _PER_ROUND, _WARMUP, _PHASE_S; BENCH_DATABASE_URL',
    },
    baseline: {
      name: 'one process: gateway with its own workers (default start, local-first)',
      ...figures('one_process'),
    },
    ours: {
      workers_1: figures('workers_1'),
      workers_2: figures('workers_2'),
      postgres_workers_1: figures('pg_workers_1'),
      postgres_workers_2: figures('pg_workers_2'),
      postgres_workers_4: figures('pg_workers_4'),
      postgres_add_worker_mid_run: midRun,
    },
    ratio: {
      workers_1_vs_one_process: pairedRatio('workers_1'),
      workers_2_vs_one_process: pairedRatio('workers_2'),
      postgres_workers_1_vs_one_process: pairedRatio('pg_workers_1'),
      postgres_workers_2_vs_one_process: pairedRatio('pg_workers_2'),
      postgres_workers_4_vs_one_process: pairedRatio('pg_workers_4'),
    },
    target:
      'none (reported so deployments can judge scaling out; with a waiting model, more worker slots add throughput until cores or the gateway run out)',
    environment: { ...environment(), redis_version: redis, redis_keys_left_after_close: keysLeft },
  })}\n`,
);
