// Compiles src/ and bench/ to dist/ (tsconfig.build.json), bundles the web pages' scripts into
// dist/ui/ (esbuild, no network; the compiled gateway serves them from there) and prints their
// sizes, and records which sources it was made from, so bin/hermes-gateway runs dist/ only while
// it matches src/. `npm install` runs it as
// `prepare` with --if-possible: without the compiler (a production install) or on a compile error it
// says so and leaves no dist/, and the executable runs the sources through tsx instead.
import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { BUILD_INFO, sourceFingerprint } from './source-fingerprint.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const lenient = process.argv.includes('--if-possible');
const say = (text) => process.stderr.write(`[build] ${text}\n`);

function give(reason) {
  rmSync(join(root, 'dist'), { recursive: true, force: true });
  if (!lenient) {
    say(`failed: ${reason}`);
    process.exit(1);
  }
  say(`skipped: ${reason}; bin/hermes-gateway runs the TypeScript sources through tsx`);
  process.exit(0);
}

let tsc;
try {
  tsc = join(dirname(createRequire(import.meta.url).resolve('typescript/package.json')), 'bin', 'tsc');
} catch {
  give('the TypeScript compiler is not installed (npm install --omit=dev leaves it out)');
}

// Taken before compiling: a source edited while tsc runs makes the build count as stale.
const sources = sourceFingerprint(root);
// Stale outputs must go: a compiled file whose source was removed would still load (tools/ is scanned).
rmSync(join(root, 'dist'), { recursive: true, force: true });
const started = Date.now();
const result = spawnSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json')], {
  cwd: root,
  stdio: 'inherit',
});
if (result.status !== 0) give(`tsc exited with ${result.status ?? result.signal}`);
mkdirSync(join(root, 'dist'), { recursive: true });
let uiLine = '';
// The web pages' scripts, bundled with the compiled code that serves them (src/app/ui-assets.ts).
try {
  const { buildUiAssets, describeUiSizes } = await import(
    pathToFileURL(join(root, 'dist', 'src', 'app', 'ui-assets.js')).href
  );
  uiLine = `ui (served from dist/ui/): ${describeUiSizes(await buildUiAssets(root))}`;
} catch (error) {
  give(`bundling the web pages' scripts failed: ${error instanceof Error ? error.message : String(error)}`);
}
writeFileSync(
  join(root, BUILD_INFO),
  `${JSON.stringify({ ...sources, builtAt: new Date().toISOString() })}\n`,
);
say(`dist/ compiled in ${Date.now() - started} ms`);
say(uiLine);
