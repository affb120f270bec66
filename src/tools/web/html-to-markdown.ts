import { NodeHtmlMarkdown } from 'node-html-markdown';
import { type HTMLElement, parse } from 'node-html-parser';

/**
 * Turns a web page into readable markdown: the page chrome (scripts, styles, navigation, footers,
 * sidebars, hidden parts) is dropped, the main content is kept when the page marks it (`<main>`,
 * a single `<article>`), and links and images are made absolute against the page URL.
 * Parsing is node-html-parser; the markdown writer is node-html-markdown (both pure JS, small).
 */
export interface ReadablePage {
  readonly title: string;
  readonly markdown: string;
}

const CHROME = [
  'head',
  'title',
  'meta',
  'link',
  'script',
  'style',
  'noscript',
  'template',
  'svg',
  'canvas',
  'iframe',
  'object',
  'embed',
  'video',
  'audio',
  'button',
  'input',
  'select',
  'textarea',
  'nav',
  'footer',
  'aside',
  'dialog',
  '[role="navigation"]',
  '[role="banner"]',
  '[role="contentinfo"]',
  '[role="complementary"]',
  '[aria-hidden="true"]',
  '[hidden]',
].join(', ');

/** Below this many characters a `<main>`/`<article>` is taken to be a shell and the body is used. */
const MIN_MAIN_TEXT = 200;

const converter = (): NodeHtmlMarkdown =>
  new NodeHtmlMarkdown({ bulletMarker: '-', codeBlockStyle: 'fenced', maxConsecutiveNewlines: 2 });

export function htmlToMarkdown(html: string, pageUrl: string): ReadablePage {
  const document = parse(html, { comment: false, lowerCaseTagName: true });
  const title = findTitle(document);
  const baseHref = document.querySelector('base[href]')?.getAttribute('href');
  const base = resolveUrl(baseHref ?? '', pageUrl) ?? pageUrl;

  for (const element of document.querySelectorAll(CHROME)) element.remove();
  for (const header of document.querySelectorAll('header')) {
    if (header.closest('main, article') === null) header.remove();
  }
  absolutize(document, base);

  const root = pickContentRoot(document);
  const markdown = converter()
    .translate(root.toString())
    .replace(/[ \t]+\n/g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
  return { title, markdown };
}

function findTitle(document: HTMLElement): string {
  const candidates = [
    document.querySelector('title')?.text,
    document.querySelector('meta[property="og:title"]')?.getAttribute('content'),
    document.querySelector('h1')?.text,
  ];
  for (const candidate of candidates) {
    const text = candidate?.replace(/\s+/g, ' ').trim();
    if (text) return text;
  }
  return '';
}

function pickContentRoot(document: HTMLElement): HTMLElement {
  const body = document.querySelector('body') ?? document;
  const main = document.querySelector('main, [role="main"]');
  if (main !== null && textLength(main) >= MIN_MAIN_TEXT) return main;
  const articles = document.querySelectorAll('article');
  const [article] = articles;
  if (articles.length === 1 && article !== undefined && textLength(article) >= MIN_MAIN_TEXT) return article;
  return body;
}

function textLength(element: HTMLElement): number {
  return element.text.replace(/\s+/g, ' ').trim().length;
}

function absolutize(document: HTMLElement, base: string): void {
  for (const link of document.querySelectorAll('a[href]')) {
    const href = resolveUrl(link.getAttribute('href') ?? '', base);
    if (href === undefined || !/^(?:https?|mailto):/i.test(href)) link.removeAttribute('href');
    else link.setAttribute('href', href);
  }
  for (const image of document.querySelectorAll('img')) {
    const src = resolveUrl(image.getAttribute('src') ?? '', base);
    // Images without a description are layout noise for a reader.
    if (src === undefined || !/^https?:/i.test(src) || !image.getAttribute('alt')?.trim()) image.remove();
    else image.setAttribute('src', src);
  }
}

function resolveUrl(href: string, base: string): string | undefined {
  if (href.trim() === '') return undefined;
  try {
    return new URL(href.trim(), base).href;
  } catch {
    return undefined;
  }
}
