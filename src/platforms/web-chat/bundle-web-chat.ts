import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

/** The web chat's script, bundled and minified from `web/chat.js` (no CDN: served by the gateway). */
export async function bundleWebChat(): Promise<string> {
  const here = dirname(fileURLToPath(import.meta.url));
  // From the sources, or from dist/src/… (the compiler does not copy the browser script).
  const candidates = [
    join(here, 'web', 'chat.js'),
    join(here, '../../../../src/platforms/web-chat/web/chat.js'),
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
