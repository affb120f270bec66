import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { BENCH_EXEC_ARGV, COMPILED } from './lib/fork-bench-child.js';

/**
 * Runs every bench (except this file) in its own process; each prints one JSON object. Under
 * `npm run bench` this file runs from the compiled build (dist/bench) and so does every bench,
 * with plain Node, as `npm start` runs the gateway; run from the sources with tsx, the benches
 * run from their sources too.
 */
const dir = import.meta.dirname;
const extension = COMPILED ? '.js' : '.ts';
const files = readdirSync(dir)
  .filter((name) => name.endsWith(extension) && name !== `run-all${extension}`)
  .sort();
let failed = 0;
for (const file of files) {
  const result = spawnSync(process.execPath, ['--expose-gc', ...BENCH_EXEC_ARGV, join(dir, file)], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  if (result.status !== 0) {
    failed += 1;
    process.stderr.write(`bench ${file} failed with exit code ${result.status}\n`);
    continue;
  }
  process.stdout.write(`${result.stdout.trim()}\n`);
}
process.exitCode = failed === 0 ? 0 : 1;
