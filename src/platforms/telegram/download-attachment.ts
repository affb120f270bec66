import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Api } from 'grammy';
import type { Logger } from 'pino';
import type { InboundMessage } from '../adapter.js';
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
  /**
   * Also hand photos to the chat model as image parts. Off when a vision model is configured:
   * then the agent looks at the saved file with vision_analyze, and any chat model works.
   */
  readonly attachImages?: boolean;
  readonly fetch?: typeof fetch;
}

const IMAGE_TYPES: Readonly<Record<string, string>> = {
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  png: 'image/png',
  webp: 'image/webp',
  gif: 'image/gif',
};

function sizeText(bytes: number): string {
  if (bytes >= 1_048_576) return `${(bytes / 1_048_576).toFixed(1)} MB`;
  if (bytes >= 1024) return `${Math.round(bytes / 1024)} KB`;
  return `${bytes} bytes`;
}

/** A file name safe on every file system: no separators, no dot-dot, bounded. */
function safeFileName(name: string): string {
  const cleaned = name
    .replace(/[^A-Za-z0-9._-]+/g, '_')
    .replace(/\.{2,}/g, '.')
    .replace(/^[.]+/, '');
  return (cleaned === '' ? 'file' : cleaned).slice(-100);
}

/** Reads a response body, failing as soon as it grows past `maxBytes`. */
async function readCapped(response: Response, maxBytes: number): Promise<Buffer | undefined> {
  const declared = Number(response.headers.get('content-length') ?? '0');
  if (declared > maxBytes) {
    await response.body?.cancel();
    return undefined;
  }
  const chunks: Uint8Array[] = [];
  let total = 0;
  const reader = response.body?.getReader();
  if (reader === undefined) return Buffer.alloc(0);
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel();
      return undefined;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}

/**
 * Fetches a message's photo or document (getFile, then the file URL) within the size cap and
 * adds it to the event: a photo becomes an image (data: URL) for the model, a document is saved
 * in the inbox and its path appended to the text. A file that cannot be fetched is mentioned in
 * the text instead, so the user's words still reach the agent.
 */
export async function addAttachment(
  event: InboundMessage,
  attachment: Attachment,
  options: AttachmentOptions,
): Promise<InboundMessage> {
  const label = attachment.kind === 'photo' ? 'photo' : `file "${attachment.fileName ?? 'unnamed'}"`;
  const withNote = (note: string): InboundMessage => ({
    ...event,
    text: event.text.trim() === '' ? note : `${event.text}\n\n${note}`,
  });
  if (attachment.size !== undefined && attachment.size > options.maxBytes) {
    return withNote(
      `[${label} not downloaded: ${sizeText(attachment.size)} is over the ${sizeText(options.maxBytes)} limit]`,
    );
  }
  try {
    const file = await options.api.getFile(attachment.fileId);
    if (file.file_path === undefined) return withNote(`[${label} could not be downloaded]`);
    const response = await (options.fetch ?? fetch)(
      `${options.apiRoot}/file/bot${options.token}/${file.file_path}`,
    );
    if (!response.ok) {
      await response.body?.cancel();
      throw new Error(`file download answered HTTP ${response.status}`);
    }
    const bytes = await readCapped(response, options.maxBytes);
    if (bytes === undefined) {
      return withNote(`[${label} not downloaded: it is over the ${sizeText(options.maxBytes)} limit]`);
    }
    const extension = /\.([A-Za-z0-9]+)$/.exec(file.file_path)?.[1]?.toLowerCase() ?? 'jpg';
    const dir = join(options.inboxDir, safeFileName(event.chat.chatId));
    await mkdir(dir, { recursive: true, mode: 0o700 });
    const name = attachment.kind === 'photo' ? `photo.${extension}` : (attachment.fileName ?? 'file');
    const path = join(dir, `${safeFileName(attachment.fileUniqueId)}-${safeFileName(name)}`);
    await writeFile(path, bytes, { mode: 0o600 });
    if (attachment.kind === 'photo') {
      const noted = withNote(`[photo saved at ${path} — look at it with vision_analyze]`);
      if (options.attachImages !== true) return noted;
      const type = IMAGE_TYPES[extension] ?? 'image/jpeg';
      return {
        ...noted,
        images: [...(event.images ?? []), { url: `data:${type};base64,${bytes.toString('base64')}` }],
      };
    }
    return withNote(`[file saved at ${path}]`);
  } catch (error) {
    options.logger.warn(
      { chatId: event.chat.chatId, kind: attachment.kind, err: errorMessage(error, options.token) },
      'telegram attachment not downloaded',
    );
    return withNote(`[${label} could not be downloaded]`);
  }
}
