import { HermesError } from '../errors/hermes-error.js';
import type { SharedFiles } from '../lib/shared-files.js';

/**
 * A SharedFiles handed to the platforms when they are built — before the gateway opens its
 * database — and bound to the real store once it is open. Nothing reaches it earlier (platforms
 * receive files only after `start`); a call before `bind` fails with `store_failed`.
 */
export function lateSharedFiles(): { readonly files: SharedFiles; bind(files: SharedFiles): void } {
  let bound: SharedFiles | undefined;
  const target = (): SharedFiles => {
    if (bound === undefined) throw new HermesError('store_failed', 'the shared database is not open yet');
    return bound;
  };
  return {
    files: {
      put: (path, kind, content, ttlMs) => target().put(path, kind, content, ttlMs),
      get: (path) => target().get(path),
    },
    bind(files) {
      bound = files;
    },
  };
}
