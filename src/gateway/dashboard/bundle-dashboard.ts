import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

/** The operator dashboard's script, bundled and minified from `web/dashboard.js` (no CDN: served by the gateway). */
export async function bundleDashboard(): Promise<string> {
  const here = dirname(fileURLToPath(import.meta.url));
  // From the sources, or from dist/src/… (the compiler does not copy the browser script).
  const candidates = [
    join(here, 'web', 'dashboard.js'),
    join(here, '../../../../src/gateway/dashboard/web/dashboard.js'),
  ];
  const entry = candidates.find((path) => existsSync(path)) ?? (candidates[0] as string);
  const result = await build({
    entryPoints: [entry],
    bundle: true,
    minify: true,
    format: 'iife',
    target: ['es2020'],
    write: false,
    logLevel: 'silent',
  });
  return result.outputFiles[0]?.text ?? '';
}
