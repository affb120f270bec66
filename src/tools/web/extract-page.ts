import type { Config } from '../../config/config-schema.js';
import { isHermesError } from '../../errors/hermes-error.js';
import { decodeText, looksLikeText } from './decode-text.js';
import { htmlToMarkdown } from './html-to-markdown.js';
import { type SafeResponse, safeFetch } from './safe-fetch.js';
import type { SsrfGuard } from './ssrf-guard.js';

/** What web_extract reports for one URL. `error` is set when nothing usable was read. */
export interface ExtractedPage {
  readonly url: string;
  readonly final_url: string;
  readonly title: string;
  readonly content: string;
  readonly error?: string;
}

type ContentKind = 'html' | 'json' | 'text' | 'unknown' | 'unsupported';

const ACCEPT = 'text/html, application/xhtml+xml;q=0.9, text/plain;q=0.8, application/json;q=0.8, */*;q=0.1';
const TEXT_APPLICATIONS = new Set([
  'application/xml',
  'application/javascript',
  'application/ecmascript',
  'application/x-yaml',
  'application/yaml',
  'application/toml',
  'application/x-ndjson',
  'application/x-sh',
]);

export function contentKind(mime: string): ContentKind {
  if (mime === '') return 'unknown';
  if (mime === 'text/html' || mime === 'application/xhtml+xml') return 'html';
  if (mime === 'application/json' || mime.endsWith('+json') || mime === 'text/json') return 'json';
  if (mime.startsWith('text/') || mime.endsWith('+xml') || TEXT_APPLICATIONS.has(mime)) return 'text';
  return 'unsupported';
}

export interface ExtractOptions {
  readonly web: Config['web'];
  readonly guard: SsrfGuard;
  readonly signal: AbortSignal;
}

/** Fetches one URL and turns it into text; failures become an `error` field, never an exception. */
export async function extractPage(url: string, options: ExtractOptions): Promise<ExtractedPage> {
  const failed = (message: string, finalUrl = url): ExtractedPage => ({
    url,
    final_url: finalUrl,
    title: '',
    content: '',
    error: message,
  });
  let response: SafeResponse;
  try {
    response = await safeFetch(url, {
      guard: options.guard,
      timeoutMs: options.web.timeout_ms,
      maxBytes: options.web.max_bytes,
      maxRedirects: options.web.max_redirects,
      signal: options.signal,
      accept: ACCEPT,
      wantBody: (mime) => contentKind(mime) !== 'unsupported',
    });
  } catch (error) {
    if (options.signal.aborted) return failed('aborted: the turn was stopped');
    return failed(isHermesError(error) ? error.message : `could not fetch ${url}: ${String(error)}`);
  }
  const { finalUrl, body } = response;
  if (response.status < 200 || response.status > 299) {
    return failed(`HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ''}`, finalUrl);
  }
  let kind = contentKind(response.mime);
  if (kind === 'unsupported' || body === undefined) return failed(unsupported(response.mime), finalUrl);
  if (kind === 'unknown') kind = sniff(body);
  if (kind === 'unsupported' || kind === 'unknown')
    return failed(unsupported('unlabelled binary data'), finalUrl);

  const text = decodeText(body, response.charset, kind === 'html');
  const page = kind === 'html' ? htmlToMarkdown(text, finalUrl) : { title: '', markdown: text.trim() };
  let content = capChars(page.markdown, options.web.max_chars_per_url);
  if (response.truncated) {
    content += `\n\n[download stopped at ${options.web.max_bytes} bytes (web.max_bytes); the rest of the page was not read]`;
  }
  return { url, final_url: finalUrl, title: page.title, content };
}

function sniff(body: Uint8Array): ContentKind {
  if (!looksLikeText(body)) return 'unsupported';
  const start = new TextDecoder('utf-8').decode(body.subarray(0, 512)).trimStart().toLowerCase();
  if (start.startsWith('<!doctype html') || start.startsWith('<html')) return 'html';
  return 'text';
}

function unsupported(mime: string): string {
  const hint = mime.startsWith('image/') ? '; use vision_analyze to look at images' : '';
  return `unsupported content type ${mime}: web_extract reads HTML, plain text and JSON${hint}`;
}

/** Keeps the first `max` characters and says how much was cut. */
export function capChars(text: string, max: number): string {
  if (text.length <= max) return text;
  return `${text.slice(0, max)}\n\n[content truncated: first ${max} of ${text.length} characters shown (web.max_chars_per_url)]`;
}
