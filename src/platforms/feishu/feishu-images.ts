import { Readable } from 'node:stream';
import type { Logger } from 'pino';
import type { InboundMessage } from '../adapter.js';
import { attachInboundFile, type SharedAttachments } from '../shared/inbound-file.js';
import { describeLarkError } from './feishu-errors.js';
import type { LarkClient } from './lark-client.js';

export interface FeishuImageOptions {
  readonly client: () => Promise<LarkClient>;
  readonly logger: Logger;
  /** Largest image fetched, bytes. */
  readonly maxBytes: number;
  /** Where images are kept: `<inboxDir>/<chat id>/<image key>-photo.<ext>`. */
  readonly inboxDir: string;
  /** Also hand images to the chat model (off when a vision model looks at saved files instead). */
  readonly attachImages: boolean;
  /** Kept in the shared database too (DATABASE_URL). */
  readonly shared?: SharedAttachments;
}

/** Images of one message fetched at most. */
const MAX_IMAGES = 9;
const EXTENSIONS: Readonly<Record<string, string>> = {
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/webp': 'webp',
  'image/gif': 'gif',
};

/**
 * The images of a message (an `image` message, or images in a post), downloaded through the
 * message-resource API within the size cap by the shared inbound-file part: saved in the inbox,
 * named in the text, and offered to the model when it looks at images itself.
 */
export async function addFeishuImages(
  event: InboundMessage,
  imageKeys: readonly string[],
  options: FeishuImageOptions,
): Promise<InboundMessage> {
  let message = event;
  for (const key of imageKeys.slice(0, MAX_IMAGES)) {
    message = await attachInboundFile(
      message,
      { kind: 'photo', uniqueId: key },
      async () => {
        const client = await options.client();
        const resource = await client.im.v1.messageResource.get({
          params: { type: 'image' },
          path: { message_id: event.messageId, file_key: key },
        });
        const headers = (resource.headers ?? {}) as Record<string, unknown>;
        const type =
          String(headers['content-type'] ?? '')
            .split(';')[0]
            ?.trim()
            .toLowerCase() ?? '';
        const length = headers['content-length'];
        const stream = Readable.toWeb(resource.getReadableStream()) as ReadableStream<Uint8Array>;
        return {
          response: new Response(stream, {
            headers:
              typeof length === 'string' || typeof length === 'number'
                ? { 'content-length': String(length) }
                : {},
          }),
          remoteName: `image.${EXTENSIONS[type] ?? 'png'}`,
        };
      },
      {
        maxBytes: options.maxBytes,
        inboxDir: options.inboxDir,
        attachImages: options.attachImages,
        logger: options.logger,
        what: 'feishu',
        describeError: describeLarkError,
        ...(options.shared === undefined ? {} : { shared: options.shared }),
      },
    );
  }
  if (imageKeys.length > MAX_IMAGES) {
    message = {
      ...message,
      text: `${message.text}\n\n[${imageKeys.length - MAX_IMAGES} more images not downloaded]`,
    };
  }
  return message;
}
