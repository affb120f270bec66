import type { Config } from '../../config/config-schema.js';
import type { SharedFiles } from '../../lib/shared-files.js';
import type { SharedAttachments } from './inbound-file.js';

/** How chat attachments are shared under this config (DATABASE_URL): undefined without a store. */
export function sharedAttachmentsOf(
  config: Config,
  files: SharedFiles | undefined,
): SharedAttachments | undefined {
  if (files === undefined) return undefined;
  return {
    files,
    maxBytes: config.database.attachment_max_bytes,
    ttlMs: config.database.attachment_ttl_days * 86_400_000,
  };
}

/** `{ shared }` for an options object, or nothing (exactOptionalPropertyTypes). */
export function sharedOption(shared: SharedAttachments | undefined): { shared?: SharedAttachments } {
  return shared === undefined ? {} : { shared };
}
