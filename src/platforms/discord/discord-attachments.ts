import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { InboundEvent } from '../adapter.js';
import type { DiscordAttachmentView } from './translate-message.js';

export interface DiscordAttachmentOptions {
  readonly logger: Logger;
  /** Largest file fetched, bytes. */
  readonly maxBytes: number;
  /** Where files are kept: `<inboxDir>/<channel id>/<attachment id>-<name>`. */
  readonly inboxDir: string;
  /** Also hand images to the chat model (off when a vision model looks at saved files instead). */
  readonly attachImages: boolean;
  /** Files per message fetched at most. */
  readonly maxFiles?: number;
}

const IMAGE_TYPES = new Set(['image/png', 'image/jpeg', 'image/webp', 'image/gif']);

function sizeText(bytes: number): string {
  if (bytes >= 1_048_576) return `${(bytes / 1_048_576).toFixed(1)} MB`;
  if (bytes >= 1024) return `${Math.round(bytes / 1024)} KB`;
  return `${bytes} bytes`;
}

function safeName(name: string): string {
  const cleaned = name
    .replace(/[^A-Za-z0-9._-]+/g, '_')
    .replace(/\.{2,}/g, '.')
    .replace(/^[.]+/, '');
  return (cleaned === '' ? 'file' : cleaned).slice(-100);
}

/** The body, or undefined as soon as it grows past `maxBytes`. */
async function readCapped(response: Response, maxBytes: number): Promise<Buffer | undefined> {
  if (Number(response.headers.get('content-length') ?? '0') > maxBytes) {
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
 * Fetches a message's files within the size cap into the inbox and notes each in the text (the
 * agent reads them with its file tools); images also go to the model when it looks at them
 * itself. A file that cannot be fetched is named in the text, so the words still arrive.
 */
export async function addDiscordAttachments(
  event: InboundEvent,
  attachments: readonly DiscordAttachmentView[],
  options: DiscordAttachmentOptions,
): Promise<InboundEvent> {
  if (event.kind !== 'message') return event;
  const notes: string[] = [];
  const images: { url: string }[] = [];
  const dir = join(options.inboxDir, safeName(event.chat.threadId ?? event.chat.chatId));
  for (const attachment of attachments.slice(0, options.maxFiles ?? 10)) {
    const label = `file "${attachment.name}"`;
    if (attachment.size > options.maxBytes) {
      notes.push(
        `[${label} not downloaded: ${sizeText(attachment.size)} is over the ${sizeText(options.maxBytes)} limit]`,
      );
      continue;
    }
    try {
      const response = await fetch(attachment.url, { signal: AbortSignal.timeout(60_000) });
      if (!response.ok) {
        await response.body?.cancel();
        throw new Error(`download answered HTTP ${response.status}`);
      }
      const bytes = await readCapped(response, options.maxBytes);
      if (bytes === undefined) {
        notes.push(`[${label} not downloaded: it is over the ${sizeText(options.maxBytes)} limit]`);
        continue;
      }
      await mkdir(dir, { recursive: true, mode: 0o700 });
      const path = join(dir, `${safeName(attachment.id)}-${safeName(attachment.name)}`);
      await writeFile(path, bytes, { mode: 0o600 });
      const type = attachment.contentType?.split(';')[0]?.trim().toLowerCase();
      if (type !== undefined && IMAGE_TYPES.has(type)) {
        notes.push(`[image saved at ${path} — look at it with vision_analyze]`);
        if (options.attachImages) images.push({ url: `data:${type};base64,${bytes.toString('base64')}` });
      } else {
        notes.push(`[file saved at ${path}]`);
      }
    } catch (error) {
      options.logger.warn(
        { chatId: event.chat.chatId, err: error instanceof Error ? error.message : String(error) },
        'discord attachment not downloaded',
      );
      notes.push(`[${label} could not be downloaded]`);
    }
  }
  if (attachments.length > (options.maxFiles ?? 10))
    notes.push(`[${attachments.length - (options.maxFiles ?? 10)} more files not downloaded]`);
  const note = notes.join('\n');
  return {
    ...event,
    text: event.text.trim() === '' ? note : `${event.text}\n\n${note}`,
    ...(images.length > 0 ? { images: [...(event.images ?? []), ...images] } : {}),
  };
}
