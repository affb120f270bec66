import { open, realpath } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Config } from '../../config/config-schema.js';
import { HermesError } from '../../errors/hermes-error.js';
import { safeFetch } from '../web/safe-fetch.js';
import { createSsrfGuard } from '../web/ssrf-guard.js';
import { detectImageType, type ImageMime, MAGIC_BYTES, SUPPORTED_IMAGE_TYPES } from './detect-image-type.js';

/** Bytes an image may have, local or fetched (the model's own limits are usually about this). */
export const MAX_IMAGE_BYTES = 20 * 1024 * 1024;

export interface LoadedImage {
  readonly mime: ImageMime;
  readonly bytes: Uint8Array;
}

export interface LoadImageOptions {
  readonly config: Config;
  /** Base for relative paths. */
  readonly cwd: string;
  readonly signal: AbortSignal;
}

/**
 * Reads the image named by `source`: an http(s) URL (fetched through the SSRF guard) or a local
 * path (`file://` URLs and `~/` accepted). Either way the bytes must be a supported image format,
 * checked by its magic bytes, so the tool cannot be used to send other files to the model.
 */
export async function loadImage(source: string, options: LoadImageOptions): Promise<LoadedImage> {
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(source)?.[1]?.toLowerCase();
  if (scheme === 'http' || scheme === 'https') return fetchImage(source, options);
  if (scheme === 'file') return readImageFile(fileURLToPath(source), options);
  if (scheme !== undefined && scheme.length > 1) {
    throw new HermesError(
      'fetch_failed',
      `image_url must be an http(s) URL or a local file path, not a ${scheme}: URL`,
    );
  }
  const expanded = source.startsWith('~/') ? join(homedir(), source.slice(2)) : source;
  return readImageFile(resolve(options.cwd, expanded), options);
}

async function fetchImage(url: string, options: LoadImageOptions): Promise<LoadedImage> {
  const { web } = options.config;
  const response = await safeFetch(url, {
    guard: createSsrfGuard({ allowPrivate: web.allow_private }),
    timeoutMs: web.timeout_ms,
    maxBytes: MAX_IMAGE_BYTES,
    maxRedirects: web.max_redirects,
    signal: options.signal,
    accept: 'image/png, image/jpeg, image/gif, image/webp;q=0.9, image/*;q=0.5',
    wantBody: (mime) => mime.startsWith('image/'),
  });
  if (response.status < 200 || response.status > 299) {
    throw new HermesError(
      'fetch_failed',
      `fetching the image failed: HTTP ${response.status} from ${response.finalUrl}`,
    );
  }
  if (response.body === undefined) {
    throw new HermesError(
      'fetch_failed',
      `${response.finalUrl} is not an image (content type ${response.mime || 'missing'})`,
    );
  }
  if (response.truncated) {
    throw new HermesError('fetch_failed', `the image at ${url} is larger than ${MAX_IMAGE_BYTES} bytes`);
  }
  return asImage(response.body, url);
}

async function readImageFile(path: string, options: LoadImageOptions): Promise<LoadedImage> {
  let real: string;
  try {
    real = await realpath(path);
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    throw new HermesError(
      'fetch_failed',
      code === 'ENOENT' ? `no such file: ${path}` : `cannot read ${path} (${String(code)})`,
    );
  }
  if (await isGatewaySecret(real, options.config)) {
    throw new HermesError(
      'path_refused',
      `refused ${path}: it is one of the gateway's own configuration files`,
    );
  }
  const handle = await open(real, 'r');
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) throw new HermesError('fetch_failed', `${path} is not a regular file`);
    if (stat.size > MAX_IMAGE_BYTES) {
      throw new HermesError(
        'fetch_failed',
        `${path} is ${stat.size} bytes; images may be at most ${MAX_IMAGE_BYTES}`,
      );
    }
    const head = new Uint8Array(MAGIC_BYTES);
    await handle.read(head, 0, MAGIC_BYTES, 0);
    if (detectImageType(head) === undefined) throw notAnImage(path);
    const bytes = await handle.readFile();
    if (bytes.byteLength > MAX_IMAGE_BYTES) {
      throw new HermesError('fetch_failed', `${path} grew beyond ${MAX_IMAGE_BYTES} bytes while being read`);
    }
    return asImage(bytes, path);
  } finally {
    await handle.close();
  }
}

function asImage(bytes: Uint8Array, source: string): LoadedImage {
  const mime = detectImageType(bytes);
  if (mime === undefined) throw notAnImage(source);
  return { mime, bytes };
}

function notAnImage(source: string): HermesError {
  return new HermesError('fetch_failed', `${source} is not a ${SUPPORTED_IMAGE_TYPES} image`);
}

/** `$HERMES_HOME/.env`, `config.yaml` and the state database are never read, image or not. */
async function isGatewaySecret(real: string, config: Config): Promise<boolean> {
  const protectedPaths = [join(config.home, '.env'), config.configPath, join(config.home, 'state.db')];
  for (const candidate of protectedPaths) {
    const resolved = await realpath(candidate).catch(() => candidate);
    if (resolved === real) return true;
  }
  return false;
}
