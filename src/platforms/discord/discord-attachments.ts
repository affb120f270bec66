import type { Logger } from 'pino';
import type { InboundEvent } from '../adapter.js';
import { attachInboundFile, type SharedAttachments } from '../shared/inbound-file.js';
import type { DiscordAttachmentView } from './translate-message.js';

export interface DiscordAttachmentOptions {
  readonly logger: Logger;
  /** Largest file fetched, bytes. */
  readonly maxBytes: number;
  /** Where files are kept: `<inboxDir>/<channel id>/<attachment id>-<name>`. */
  readonly inboxDir: string;
  /** Also hand images to the chat model (off when a vision model looks at saved files instead). */
  readonly attachImages: boolean;
  readonly describeError: (error: unknown) => string;
  /** Kept in the shared database too (DATABASE_URL). */
  readonly shared?: SharedAttachments;
}

/** Files of one message fetched at most (Discord allows 10 per message). */
const MAX_FILES = 10;
/** Milliseconds one download may take. */
const DOWNLOAD_TIMEOUT_MS = 60_000;
const IMAGE_TYPES = new Set(['image/png', 'image/jpeg', 'image/webp', 'image/gif']);

/**
 * A message's files, fetched from Discord's CDN within the size cap by the shared inbound-file
 * part: each is saved in the inbox and named in the text; images also go to the model when it
 * looks at them itself. A file that cannot be fetched is named in the text instead.
 */
export async function addDiscordAttachments(
  event: InboundEvent,
  attachments: readonly DiscordAttachmentView[],
  options: DiscordAttachmentOptions,
): Promise<InboundEvent> {
  if (event.kind !== 'message') return event;
  let message = event;
  for (const attachment of attachments.slice(0, MAX_FILES)) {
    const type = attachment.contentType?.split(';')[0]?.trim().toLowerCase();
    message = await attachInboundFile(
      message,
      {
        kind: type !== undefined && IMAGE_TYPES.has(type) ? 'photo' : 'document',
        uniqueId: attachment.id,
        fileName: attachment.name,
        size: attachment.size,
      },
      async () => ({
        response: await fetch(attachment.url, { signal: AbortSignal.timeout(DOWNLOAD_TIMEOUT_MS) }),
        remoteName: attachment.name,
      }),
      {
        maxBytes: options.maxBytes,
        inboxDir: options.inboxDir,
        attachImages: options.attachImages,
        logger: options.logger,
        what: 'discord',
        describeError: options.describeError,
        ...(options.shared === undefined ? {} : { shared: options.shared }),
      },
    );
  }
  if (attachments.length > MAX_FILES) {
    const note = `[${attachments.length - MAX_FILES} more files not downloaded]`;
    message = { ...message, text: `${message.text}\n\n${note}` };
  }
  return message;
}
