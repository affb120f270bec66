import type { Api } from 'grammy';
import type { Logger } from 'pino';
import type { InboundMessage } from '../adapter.js';
import { attachInboundFile, type SharedAttachments } from '../shared/inbound-file.js';
import { errorMessage } from './telegram-errors.js';
import type { Attachment } from './translate-update.js';

export interface AttachmentOptions {
  readonly api: Api;
  readonly apiRoot: string;
  readonly token: string;
  readonly logger: Logger;
  /** Largest file fetched, bytes. */
  readonly maxBytes: number;
  /** Where files are kept: `<inboxDir>/<chat id>/<file>`. */
  readonly inboxDir: string;
  /** Also hand photos to the chat model as image parts (off when a vision model is configured). */
  readonly attachImages?: boolean;
  readonly fetch?: typeof fetch;
  /** Kept in the shared database too (DATABASE_URL). */
  readonly shared?: SharedAttachments;
}

/**
 * Fetches a message's photo or document (getFile, then the file URL) through the shared capped
 * download (shared/inbound-file.ts) and adds it to the event.
 */
export function addAttachment(
  event: InboundMessage,
  attachment: Attachment,
  options: AttachmentOptions,
): Promise<InboundMessage> {
  return attachInboundFile(
    event,
    {
      kind: attachment.kind,
      uniqueId: attachment.fileUniqueId,
      ...(attachment.fileName !== undefined ? { fileName: attachment.fileName } : {}),
      ...(attachment.size !== undefined ? { size: attachment.size } : {}),
    },
    async () => {
      const file = await options.api.getFile(attachment.fileId);
      if (file.file_path === undefined) return undefined;
      const response = await (options.fetch ?? fetch)(
        `${options.apiRoot}/file/bot${options.token}/${file.file_path}`,
      );
      return { response, remoteName: file.file_path };
    },
    {
      maxBytes: options.maxBytes,
      inboxDir: options.inboxDir,
      ...(options.attachImages !== undefined ? { attachImages: options.attachImages } : {}),
      logger: options.logger,
      what: 'telegram',
      describeError: (error) => errorMessage(error, options.token),
      ...(options.shared === undefined ? {} : { shared: options.shared }),
    },
  );
}
