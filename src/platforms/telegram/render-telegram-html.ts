/**
 * Basic markdown (as models write it) to the HTML subset Telegram accepts: fenced and inline
 * code, bold, italics, strikethrough, links and headings (shown bold). Everything else is text,
 * with `&`, `<` and `>` escaped. Not a full markdown parser: when the result is still refused by
 * Telegram ("can't parse entities"), the adapter sends the original text plain.
 */

import { escapeHtml } from '../../lib/escape-html.js';

const FENCE = /^ {0,3}(`{3,}|~{3,})([^\n`]*)$/;
const OPEN = '\uE000';
const CLOSE = '\uE001';

export { escapeHtml };

function escapeAttribute(text: string): string {
  return escapeHtml(text, 'attribute');
}

/** Renders a whole message: fenced code blocks verbatim, everything between them as inline markdown. */
export function renderTelegramHtml(markdown: string): string {
  const source = markdown.replace(/[\uE000\uE001]/g, '');
  const lines = source.split('\n');
  const out: string[] = [];
  let prose: string[] = [];
  let index = 0;
  const flushProse = () => {
    if (prose.length > 0) out.push(renderInline(prose.join('\n')));
    prose = [];
  };
  while (index < lines.length) {
    const line = lines[index] ?? '';
    const fence = FENCE.exec(line);
    if (fence === null) {
      prose.push(line);
      index += 1;
      continue;
    }
    flushProse();
    const marker = fence[1] ?? '```';
    const language = (fence[2] ?? '').trim().split(/\s+/)[0] ?? '';
    const body: string[] = [];
    index += 1;
    while (index < lines.length) {
      const inner = lines[index] ?? '';
      const closing = /^ {0,3}(`{3,}|~{3,})\s*$/.exec(inner)?.[1];
      if (closing !== undefined && closing[0] === marker[0] && closing.length >= marker.length) {
        index += 1;
        break;
      }
      body.push(inner);
      index += 1;
    }
    const code = escapeHtml(body.join('\n'));
    const safeLanguage = /^[A-Za-z0-9_+-]{1,32}$/.test(language) ? language : '';
    out.push(
      safeLanguage === ''
        ? `<pre>${code}</pre>`
        : `<pre><code class="language-${safeLanguage}">${code}</code></pre>`,
    );
  }
  flushProse();
  return out.join('\n');
}

/** Inline markdown of text without fences. */
function renderInline(text: string): string {
  const kept: string[] = [];
  const keep = (html: string): string => {
    kept.push(html);
    return `${OPEN}${kept.length - 1}${CLOSE}`;
  };
  let work = text
    // Inline code first: nothing inside it is formatting.
    .replace(/`([^`\n]+)`/g, (_match, code: string) => keep(`<code>${escapeHtml(code)}</code>`))
    // Links: the text is escaped, the URL kept away from the emphasis rules below.
    .replace(/\[([^\]\n]+)\]\(((?:https?|tg|mailto):[^\s)]+)\)/g, (_match, label: string, url: string) =>
      keep(`<a href="${escapeAttribute(url)}">${escapeHtml(label)}</a>`),
    )
    // Bare URLs: underscores and asterisks in them are not emphasis.
    .replace(/\bhttps?:\/\/[^\s<>]+/g, (url) => keep(escapeHtml(url)));
  work = escapeHtml(work);
  work = work
    .replace(/^ {0,3}#{1,6}[ \t]+(.+?)[ \t#]*$/gm, '<b>$1</b>')
    .replace(/\*\*(?=\S)([^\n]+?)(?<=\S)\*\*/g, '<b>$1</b>')
    .replace(/(?<![\w_])__(?=\S)([^\n]+?)(?<=\S)__(?![\w_])/g, '<b>$1</b>')
    .replace(/~~(?=\S)([^\n]+?)(?<=\S)~~/g, '<s>$1</s>')
    .replace(/(?<![\w*])\*(?=[^\s*])([^\n*]+?)(?<=[^\s*])\*(?![\w*])/g, '<i>$1</i>')
    .replace(/(?<![\w_])_(?=[^\s_])([^\n_]+?)(?<=[^\s_])_(?![\w_])/g, '<i>$1</i>');
  const restore = new RegExp(`${OPEN}(\\d+)${CLOSE}`, 'g');
  return work.replace(restore, (_match, n: string) => kept[Number(n)] ?? '');
}
