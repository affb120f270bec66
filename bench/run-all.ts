import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

/** Runs every bench/*.ts (except this file) in its own process; each prints one JSON object. */
const dir = import.meta.dirname;
const files = readdirSync(dir)
  .filter((name) => name.endsWith('.ts') && name !== 'run-all.ts')
  .sort();
let failed = 0;
for (const file of files) {
  const result = spawnSync(process.execPath, ['--expose-gc', '--import', 'tsx', join(dir, file)], {
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
