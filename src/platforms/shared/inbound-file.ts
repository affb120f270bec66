import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { readCapped } from '../../lib/read-capped.js';
import type { SharedFiles } from '../../lib/shared-files.js';
import type { InboundMessage } from '../adapter.js';

/**
 * A file on an inbound message, fetched within a size cap and kept where the agent can read it —
 * the download part every chat adapter shares:
 *
 *   const withFile = await attachInboundFile(event, file, () => openDownload(), options);
 *
 * The platform describes the file (`InboundFile`) and opens its download (`open`: the fetch
 * `Response`, and the remote name whose extension tells the image type). A file over the cap —
 * announced, or counted while reading — is not kept and the text says so. A document is saved
 * under `<inboxDir>/<chat id>/` and its path added to the text; a photo too, and with
 * `attachImages` it also goes to the model as an image. A failure becomes a note in the text, so
 * the user's words still reach the agent.
 *
 * With a shared database (`shared`, DATABASE_URL) the saved file is also stored there under its
 * path, so a worker on another machine opens the same path (its file tools fetch a copy). A file
 * over `shared.maxBytes` is not kept at all — a worker elsewhere could not open it — and the
 * text says it was too large to share.
 */

export interface InboundFile {
  readonly kind: 'photo' | 'document';
  /** The platform's stable id of the file (the saved name starts with it). */
  readonly uniqueId: string;
  readonly fileName?: string;
  /** The size the platform announced, bytes. */
  readonly size?: number;
}

export interface OpenedFile {
  /** A fetch answer; for a Node stream (an SDK download), `new Response(Readable.toWeb(stream))`. */
  readonly response: Response;
  /** The file's remote path or name; its extension names the type (default `jpg` for photos). */
  readonly remoteName?: string;
}

export interface InboundFileOptions {
  /** Largest file fetched, bytes. */
  readonly maxBytes: number;
  /** Where files are kept: `<inboxDir>/<chat id>/<file>`. */
  readonly inboxDir: string;
  /**
   * Also hand photos to the chat model as image parts. Off when a vision model is configured:
   * then the agent looks at the saved file with vision_analyze, and any chat model works.
   */
  readonly attachImages?: boolean;
  readonly logger: Logger;
  /** The platform, for the log line (`telegram attachment not downloaded`). */
  readonly what: string;
  /** An error as text without secrets (a token in the download URL). */
  readonly describeError: (error: unknown) => string;
  /** The shared database's file store, with the largest file kept there and for how long. */
  readonly shared?: SharedAttachments;
}

export interface SharedAttachments {
  readonly files: SharedFiles;
  readonly maxBytes: number;
  readonly ttlMs: number;
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

/** The body within `maxBytes`, or undefined when it is longer (announced or counted). */
async function bodyWithin(response: Response, maxBytes: number): Promise<Buffer | undefined> {
  const declared = Number(response.headers.get('content-length') ?? '0');
  if (declared > maxBytes) {
    await response.body?.cancel();
    return undefined;
  }
  const { bytes, truncated } = await readCapped(response.body, maxBytes);
  return truncated ? undefined : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

export async function attachInboundFile(
  event: InboundMessage,
  file: InboundFile,
  open: () => Promise<OpenedFile | undefined>,
  options: InboundFileOptions,
): Promise<InboundMessage> {
  const label = file.kind === 'photo' ? 'photo' : `file "${file.fileName ?? 'unnamed'}"`;
  const withNote = (note: string): InboundMessage => ({
    ...event,
    text: event.text.trim() === '' ? note : `${event.text}\n\n${note}`,
  });
  if (file.size !== undefined && file.size > options.maxBytes) {
    return withNote(
      `[${label} not downloaded: ${sizeText(file.size)} is over the ${sizeText(options.maxBytes)} limit]`,
    );
  }
  try {
    const opened = await open();
    if (opened === undefined) return withNote(`[${label} could not be downloaded]`);
    const { response } = opened;
    if (!response.ok) {
      await response.body?.cancel();
      throw new Error(`file download answered HTTP ${response.status}`);
    }
    const bytes = await bodyWithin(response, options.maxBytes);
    if (bytes === undefined) {
      return withNote(`[${label} not downloaded: it is over the ${sizeText(options.maxBytes)} limit]`);
    }
    const extension = /\.([A-Za-z0-9]+)$/.exec(opened.remoteName ?? '')?.[1]?.toLowerCase() ?? 'jpg';
    const type = IMAGE_TYPES[extension] ?? 'image/jpeg';
    const withImage = (noted: InboundMessage): InboundMessage =>
      file.kind === 'photo' && options.attachImages === true
        ? {
            ...noted,
            images: [...(event.images ?? []), { url: `data:${type};base64,${bytes.toString('base64')}` }],
          }
        : noted;
    const { shared } = options;
    if (shared !== undefined && bytes.byteLength > shared.maxBytes) {
      return withImage(
        withNote(
          `[${label} not kept: ${sizeText(bytes.byteLength)} is over the ${sizeText(shared.maxBytes)} limit for files shared with the workers, so it cannot be opened; ask for a smaller file if you need it]`,
        ),
      );
    }
    const dir = join(options.inboxDir, safeFileName(event.chat.chatId));
    await mkdir(dir, { recursive: true, mode: 0o700 });
    const name = file.kind === 'photo' ? `photo.${extension}` : (file.fileName ?? 'file');
    const path = join(dir, `${safeFileName(file.uniqueId)}-${safeFileName(name)}`);
    await writeFile(path, bytes, { mode: 0o600 });
    let where = '';
    if (shared !== undefined) {
      try {
        await shared.files.put(path, 'attachment', bytes, shared.ttlMs);
      } catch (error) {
        options.logger.warn(
          { chatId: event.chat.chatId, err: options.describeError(error) },
          `${options.what} attachment not stored in the shared database`,
        );
        where = ' (on the receiving machine only: it could not be stored in the shared database)';
      }
    }
    if (file.kind === 'photo') {
      return withImage(withNote(`[photo saved at ${path}${where} — look at it with vision_analyze]`));
    }
    return withNote(`[file saved at ${path}${where}]`);
  } catch (error) {
    options.logger.warn(
      { chatId: event.chat.chatId, kind: file.kind, err: options.describeError(error) },
      `${options.what} attachment not downloaded`,
    );
    return withNote(`[${label} could not be downloaded]`);
  }
}
