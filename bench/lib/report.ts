/** One line of the summary table: a figure of one bench beside its same-run baseline and target. */
export interface ReportRow {
  readonly bench: string;
  readonly figure: string;
  readonly unit: string;
  readonly median: number | null;
  readonly p99: number | null;
  readonly baseline: string | null;
  readonly baselineMedian: number | null;
  readonly ratio: number | null;
  readonly target: string;
  /** true met, false missed, null when there is no target (informational). */
  readonly met: boolean | null;
}

type Json = Record<string, unknown>;

/** The value at a dot path of a bench's JSON object, when it is a finite number. */
function num(source: unknown, path: string): number | null {
  let node: unknown = source;
  for (const key of path.split('.')) {
    if (typeof node !== 'object' || node === null) return null;
    node = (node as Json)[key];
  }
  return typeof node === 'number' && Number.isFinite(node) ? node : null;
}

function str(source: unknown, path: string): string | null {
  let node: unknown = source;
  for (const key of path.split('.')) {
    if (typeof node !== 'object' || node === null) return null;
    node = (node as Json)[key];
  }
  return typeof node === 'string' ? node : null;
}

const atMost = (value: number | null, limit: number): boolean | null =>
  value === null ? null : value <= limit;
const atLeast = (value: number | null, limit: number): boolean | null =>
  value === null ? null : value >= limit;

interface RowInput {
  figure: string;
  unit: string;
  median: number | null;
  p99?: number | null;
  baseline?: string | null;
  baselineMedian?: number | null;
  ratio?: number | null;
  target?: string;
  met?: boolean | null;
}

function row(bench: string, input: RowInput): ReportRow {
  return {
    bench,
    figure: input.figure,
    unit: input.unit,
    median: input.median,
    p99: input.p99 ?? null,
    baseline: input.baseline ?? null,
    baselineMedian: input.baselineMedian ?? null,
    ratio: input.ratio ?? null,
    target: input.target ?? '—',
    met: input.met ?? null,
  };
}

/** How each bench's JSON object reads as rows; an unknown bench gets one generic row. */
const READERS: Record<string, (r: Json) => RowInput[]> = {
  registry: (r) => [
    {
      figure: 'tool dispatch',
      unit: 'µs',
      median: num(r, 'ours.dispatch_median_us'),
      p99: num(r, 'ours.dispatch_p99_us'),
      baseline: 'Map lookup + direct call',
      baselineMedian: num(r, 'baseline.median_us'),
      ratio: num(r, 'ratio'),
      target: 'overhead ≤ 10 µs',
      met: atMost(num(r, 'ours.dispatch_overhead_us'), num(r, 'target.dispatch_overhead_us') ?? 10),
    },
    {
      figure: 'tool definitions (Telegram set)',
      unit: 'µs',
      median: num(r, 'ours.get_definitions_median_us'),
      p99: num(r, 'ours.get_definitions_p99_us'),
      target: '≤ 50 µs',
      met: atMost(num(r, 'ours.get_definitions_median_us'), num(r, 'target.get_definitions_us') ?? 50),
    },
  ],
  approval: (r) => [
    {
      figure: 'detector per command',
      unit: 'µs',
      median: num(r, 'ours.median_us'),
      p99: num(r, 'ours.p99_us'),
      baseline: 'String.prototype.includes',
      baselineMedian: num(r, 'baseline.median_us'),
      ratio: num(r, 'ratio'),
      target: 'median ≤ 20 µs, p99 ≤ 200 µs',
      met:
        atMost(num(r, 'ours.median_us'), 20) === null
          ? null
          : (atMost(num(r, 'ours.median_us'), 20) ?? false) && (atMost(num(r, 'ours.p99_us'), 200) ?? false),
    },
    {
      figure: 'detector, 100 KB command',
      unit: 'ms',
      median: num(r, 'large_100kb_ms'),
      target: '≤ 50 ms',
      met: atMost(num(r, 'large_100kb_ms'), 50),
    },
  ],
  'approval-roundtrip': (r) => [
    {
      figure: 'button press → command start (Redis)',
      unit: 'ms',
      median: num(r, 'ours.redis.median'),
      p99: num(r, 'ours.redis.p99'),
      baseline: 'approval store decide alone',
      baselineMedian: num(r, 'baseline.redis.gate_decide.median'),
      ratio: num(r, 'ratios.redis'),
      target: 'p50 ≤ 50 ms',
      met: atMost(num(r, 'ours.redis.median'), num(r, 'target.redis_p50_ms') ?? 50),
    },
    {
      figure: 'button press → command start (embedded)',
      unit: 'ms',
      median: num(r, 'ours.embedded.median'),
      p99: num(r, 'ours.embedded.p99'),
      baseline: 'approval store decide alone',
      baselineMedian: num(r, 'baseline.embedded.gate_decide.median'),
      ratio: num(r, 'ratios.embedded'),
    },
  ],
  'terminal-sandbox': (r) => [
    {
      figure: 'terminal command (local backend)',
      unit: 'ms',
      median: num(r, 'ours.local.median_ms'),
      p99: num(r, 'ours.local.p99_ms'),
      baseline: 'child_process.spawn',
      baselineMedian: num(r, 'baseline.median_ms'),
      ratio: num(r, 'ratio.local'),
    },
    {
      figure:
        str(r, 'ours.sandbox.skipped') === null
          ? 'terminal command (bubblewrap sandbox)'
          : `terminal command (sandbox skipped: ${str(r, 'ours.sandbox.skipped')})`,
      unit: 'ms',
      median: num(r, 'ours.sandbox.median_ms'),
      p99: num(r, 'ours.sandbox.p99_ms'),
      baseline: 'child_process.spawn',
      baselineMedian: num(r, 'baseline.median_ms'),
      ratio: num(r, 'ratio.sandbox'),
      target: 'added ≤ 15 ms',
      met: atMost(num(r, 'ours.sandbox.added_ms'), num(r, 'target.sandbox_added_ms') ?? 15),
    },
  ],
  'long-session': (r) => [
    {
      figure: 'turn in a long session',
      unit: 'ms',
      median: num(r, 'ours.ms_median'),
      p99: num(r, 'ours.ms_p99'),
      baseline: 'turn in a fresh session',
      baselineMedian: num(r, 'baseline.ms_median'),
      ratio: num(r, 'ratio.cpu_long_vs_fresh.median'),
      target: 'informational (ratio = CPU long ÷ fresh)',
    },
  ],
  'gateway-scale-out': (r) => [
    ...(['workers_1', 'workers_2'] as const).map((name) => ({
      figure: `turns/s, gateway + ${name.slice(-1)} worker process(es)`,
      unit: 'turns/s',
      median: num(r, `ours.${name}.turns_per_s`),
      p99: null,
      baseline: 'one process (default start)',
      baselineMedian: num(r, 'baseline.turns_per_s'),
      ratio: num(r, `ratio.${name}_vs_one_process.median`),
      target: 'informational',
    })),
    ...(['1', '2', '4'] as const).map((n) => ({
      figure: `turns/s, gateway + ${n} worker(s) on PostgreSQL state, each on an empty home`,
      unit: 'turns/s',
      median: num(r, `ours.postgres_workers_${n}.turns_per_s`),
      p99: null,
      baseline: 'one process on SQLite (default start)',
      baselineMedian: num(r, 'baseline.turns_per_s'),
      ratio: num(r, `ratio.postgres_workers_${n}_vs_one_process.median`),
      target: 'informational',
    })),
    {
      figure: 'turns/s after adding a 2nd worker mid-run (PostgreSQL)',
      unit: 'turns/s',
      median: num(r, 'ours.postgres_add_worker_mid_run.turns_per_s_after'),
      p99: null,
      baseline: 'the same run before the worker was added',
      baselineMedian: num(r, 'ours.postgres_add_worker_mid_run.turns_per_s_before'),
      ratio: num(r, 'ours.postgres_add_worker_mid_run.ratio_after_vs_before'),
      target: 'ratio > 1',
      met: (() => {
        const ratio = num(r, 'ours.postgres_add_worker_mid_run.ratio_after_vs_before');
        return ratio === null ? null : ratio > 1;
      })(),
    },
  ],
  gateway: (r) => [
    {
      figure: 'API turns/s, BullMQ mode',
      unit: 'turns/s',
      median: num(r, 'ours.bullmq.turns_per_s'),
      baseline: 'minimal pipeline (fastify → BullMQ → openai)',
      baselineMedian: num(r, 'baseline.minimal_pipeline.turns_per_s'),
      ratio: num(r, 'ratio.vs_minimal_pipeline.median'),
      target: 'ratio ≥ 0.5',
      met: atLeast(num(r, 'ratio.vs_minimal_pipeline.median'), num(r, 'target.vs_minimal_pipeline') ?? 0.5),
    },
    {
      figure: 'API turns/s, BullMQ mode',
      unit: 'turns/s',
      median: num(r, 'ours.bullmq.turns_per_s'),
      baseline: 'bare BullMQ round trip',
      baselineMedian: num(r, 'baseline.bare_bullmq.jobs_per_s'),
      ratio: num(r, 'ratio.vs_bare_bullmq.median'),
      target: 'ratio ≥ 0.25',
      met: atLeast(num(r, 'ratio.vs_bare_bullmq.median'), num(r, 'target.vs_bare_bullmq') ?? 0.25),
    },
    {
      figure: 'API turns/s, embedded mode',
      unit: 'turns/s',
      median: num(r, 'ours.embedded.turns_per_s'),
      baseline: 'minimal pipeline (fastify → BullMQ → openai)',
      baselineMedian: num(r, 'baseline.minimal_pipeline.turns_per_s'),
      ratio: num(r, 'ratio.embedded_vs_minimal_pipeline.median'),
      target: 'ratio ≥ 0.5',
      met: atLeast(num(r, 'ratio.embedded_vs_minimal_pipeline.median'), 0.5),
    },
    // The latency the gateway adds is measured one request at a time: with 16 in flight the
    // difference to the model alone is mostly waiting behind the other 15 (turns/s sets it).
    {
      figure: 'API turn latency added over the model, BullMQ, one request at a time',
      unit: 'ms',
      median: num(r, 'ours.bullmq.c1_added_p50_ms'),
      p99: num(r, 'ours.bullmq.c1_added_p99_ms'),
      target: 'p50 ≤ 5 ms',
      met: atMost(num(r, 'ours.bullmq.c1_added_p50_ms'), num(r, 'target.added_p50_ms') ?? 5),
    },
    {
      figure: 'API turn latency added over the model, BullMQ, 16 in flight',
      unit: 'ms',
      median: num(r, 'ours.bullmq.added_p50_ms'),
      p99: num(r, 'ours.bullmq.added_p99_ms'),
      target: 'informational (includes queueing behind the other requests)',
    },
    {
      figure: 'RSS after 2 × N turns (embedded)',
      unit: 'MB',
      median: num(r, 'ours.memory.rss_mb_after_second'),
      target: '≤ 200 MB',
      met: atMost(num(r, 'ours.memory.rss_mb_after_second'), num(r, 'target.rss_mb_after_turns') ?? 200),
    },
  ],
  'http-overhead': (r) => [
    {
      figure: 'gateway HTTP route (GET /healthz)',
      unit: 'ms',
      median: num(r, 'ours.healthz.p50_ms'),
      p99: num(r, 'ours.healthz.p99_ms'),
      baseline: 'no-op fastify route',
      baselineMedian: num(r, 'baseline.p50_ms'),
      ratio: num(r, 'ratio.healthz_vs_noop'),
      target: 'ratio ≤ 1.5',
      met: atMost(num(r, 'ratio.healthz_vs_noop'), 1.5),
    },
    {
      figure: 'API turn, embedded (POST /v1/chat/completions)',
      unit: 'ms',
      median: num(r, 'ours.turn.p50_ms'),
      p99: num(r, 'ours.turn.p99_ms'),
      baseline: 'no-op fastify route',
      baselineMedian: num(r, 'baseline.p50_ms'),
      ratio: num(r, 'ratio.turn_vs_noop'),
      target: 'informational (includes a model call)',
    },
  ],
  soak: (r) => [
    {
      figure: `soak: turn latency (${num(r, 'params.turns') ?? '?'} turns / ${num(r, 'params.sessions') ?? '?'} sessions)`,
      unit: 'ms',
      median: num(r, 'ours.turn_p50_ms'),
      p99: num(r, 'ours.turn_p99_ms'),
    },
    {
      figure: 'soak: event-loop lag',
      unit: 'ms',
      median: num(r, 'ours.event_loop_lag_p50_ms'),
      p99: num(r, 'ours.event_loop_lag_p99_ms'),
      target: 'p99 ≤ 100 ms',
      met: atMost(num(r, 'ours.event_loop_lag_p99_ms'), 100),
    },
    {
      figure: 'soak: peak RSS',
      unit: 'MB',
      median: num(r, 'ours.rss_mb_peak'),
      target: '≤ 200 MB',
      met: atMost(num(r, 'ours.rss_mb_peak'), 200),
    },
    {
      figure: 'soak: heap kept per session after idle-out',
      unit: 'KB',
      median: num(r, 'ours.heap_kb_per_session_after_idle'),
      target: '≤ 1 KB',
      met: atMost(num(r, 'ours.heap_kb_per_session_after_idle'), 1),
    },
    {
      figure: 'soak: heap snapshot diff, kinds of object growing with the session count',
      unit: 'kinds',
      median: num(r, 'ours.heap_snapshot_kinds_growing_with_sessions'),
      target: '0',
      met: atMost(num(r, 'ours.heap_snapshot_kinds_growing_with_sessions'), 0),
    },
  ],
};

/** The rows of one bench's JSON object (a failed bench gets one row saying so). */
export function rowsOf(result: Json): ReportRow[] {
  const name = typeof result['name'] === 'string' ? result['name'] : 'unknown';
  if (typeof result['error'] === 'string') {
    return [
      row(name, { figure: `failed: ${result['error']}`, unit: '', median: null, target: '—', met: false }),
    ];
  }
  const reader = READERS[name];
  if (reader !== undefined) return reader(result).map((input) => row(name, input));
  const ratio = num(result, 'ratio');
  return [row(name, { figure: 'see report.json', unit: '', median: null, ratio })];
}

const cell = (value: number | null): string => {
  if (value === null) return '—';
  if (Math.abs(value) >= 100) return String(Math.round(value));
  return String(Math.round(value * 100) / 100);
};

/** The summary table in markdown, with a short header naming the machine and the run. */
export function markdownReport(rows: readonly ReportRow[], environment: Json, generatedAt: string): string {
  const lines = [
    '# Benchmark report',
    '',
    `Generated by \`npm run bench\` at ${generatedAt} on ${String(environment['cores'])} cores, Node ${String(environment['node'])}` +
      `${typeof environment['redis_version'] === 'string' ? `, Redis ${environment['redis_version']}` : ''}. ` +
      'Every baseline was measured in the same run on the same machine; ratio = ours ÷ baseline (for rates, ' +
      'higher is better; for times, lower is). bench/report.json holds every figure, parameter and spread. ' +
      'A missed target is reported here, never asserted by a test.',
    '',
    '| bench | figure | unit | median | p99 | baseline (same run) | baseline median | ratio | target | met |',
    '|---|---|---|---|---|---|---|---|---|---|',
  ];
  for (const r of rows) {
    const met = r.met === null ? '—' : r.met ? 'yes' : '**no**';
    lines.push(
      `| ${r.bench} | ${r.figure} | ${r.unit} | ${cell(r.median)} | ${cell(r.p99)} | ${r.baseline ?? '—'} | ${cell(r.baselineMedian)} | ${cell(r.ratio)} | ${r.target} | ${met} |`,
    );
  }
  const missed = rows.filter((r) => r.met === false).length;
  const met = rows.filter((r) => r.met === true).length;
  lines.push(
    '',
    `Targets met: ${met}; missed: ${missed}; informational rows: ${rows.length - met - missed}.`,
    '',
  );
  return lines.join('\n');
}
