import { spawnSync } from 'node:child_process';
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BENCH_EXEC_ARGV, COMPILED } from './lib/fork-bench-child.js';
import { markdownReport, type ReportRow, rowsOf } from './lib/report.js';
import { environment } from './lib/stats.js';

/**
 * Runs every bench (except this file) in its own process; each prints one JSON object. Under
 * `npm run bench` this file runs from the compiled build (dist/bench) and so does every bench,
 * with plain Node, as `npm start` runs the gateway; run from the sources with tsx, the benches
 * run from their sources too. The objects are echoed, then gathered in bench/report.json with a
 * summary table in bench/report.md (figure, same-run baseline, ratio, target, met or not).
 * `BENCH_ONLY=a,b` runs only the named benches (file names without extension).
 */
const dir = import.meta.dirname;
const extension = COMPILED ? '.js' : '.ts';
// The sources' bench/ folder, also when running from dist/bench.
const reportDir = COMPILED ? join(dir, '..', '..', 'bench') : dir;
const only = (process.env['BENCH_ONLY'] ?? '')
  .split(',')
  .map((name) => name.trim())
  .filter(Boolean);
const files = readdirSync(dir)
  .filter((name) => name.endsWith(extension) && name !== `run-all${extension}`)
  .filter((name) => only.length === 0 || only.includes(name.slice(0, -extension.length)))
  .sort();
const started = new Date();
const results: Record<string, unknown>[] = [];
let failed = 0;
for (const file of files) {
  const name = file.slice(0, -extension.length);
  const begin = Date.now();
  process.stderr.write(`[bench] ${name}\n`);
  const result = spawnSync(process.execPath, ['--expose-gc', ...BENCH_EXEC_ARGV, join(dir, file)], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
    maxBuffer: 64 * 1024 * 1024,
  });
  const seconds = Math.round((Date.now() - begin) / 100) / 10;
  if (result.status !== 0) {
    failed += 1;
    process.stderr.write(`bench ${file} failed with exit code ${result.status}\n`);
    results.push({ name, error: `exit code ${result.status ?? result.signal}`, wall_s: seconds });
    continue;
  }
  const text = result.stdout.trim();
  process.stdout.write(`${text}\n`);
  try {
    const parsed = JSON.parse(text.split('\n').pop() ?? '') as Record<string, unknown>;
    results.push({ ...parsed, wall_s: seconds });
  } catch {
    failed += 1;
    results.push({ name, error: 'did not print one JSON object', wall_s: seconds });
  }
}

const rows: ReportRow[] = results.flatMap(rowsOf);
const redis = results
  .map((r) => (r['environment'] as Record<string, unknown> | undefined)?.['redis_version'])
  .find((v) => typeof v === 'string');
const env = { ...environment(), ...(redis === undefined ? {} : { redis_version: redis }) };
const generatedAt = started.toISOString();
writeFileSync(
  join(reportDir, 'report.json'),
  `${JSON.stringify({ generated_at: generatedAt, environment: env, rows, results }, null, 2)}\n`,
);
writeFileSync(join(reportDir, 'report.md'), markdownReport(rows, env, generatedAt));
process.stderr.write(`[bench] wrote ${join(reportDir, 'report.md')} and report.json\n`);
process.exitCode = failed === 0 ? 0 : 1;
