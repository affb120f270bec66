import { describe, expect, it } from 'vitest';
import { escapeHtml, renderTelegramHtml } from '../../../src/platforms/telegram/render-telegram-html.js';
import { parseTelegramHtml } from '../../fakes/fake-telegram/telegram-html.js';

describe('renderTelegramHtml', () => {
  it('escapes what Telegram treats as markup', () => {
    expect(escapeHtml('a < b && c > d')).toBe('a &lt; b &amp;&amp; c &gt; d');
    expect(renderTelegramHtml('if a<b then <script>')).toBe('if a&lt;b then &lt;script&gt;');
  });

  it('renders bold, italics, strikethrough, headings and links', () => {
    expect(renderTelegramHtml('**bold** and *it* and _it2_ and ~~gone~~')).toBe(
      '<b>bold</b> and <i>it</i> and <i>it2</i> and <s>gone</s>',
    );
    expect(renderTelegramHtml('## Plan\n- step')).toBe('<b>Plan</b>\n- step');
    expect(renderTelegramHtml('see [the docs](https://x.org/a_b?q=1&r=2)')).toBe(
      'see <a href="https://x.org/a_b?q=1&amp;r=2">the docs</a>',
    );
  });

  it('leaves snake_case, bare URLs and list bullets alone', () => {
    expect(renderTelegramHtml('call my_func_name now')).toBe('call my_func_name now');
    expect(renderTelegramHtml('https://x.org/a_b_c and 2 * 3 * 4')).toBe('https://x.org/a_b_c and 2 * 3 * 4');
    expect(renderTelegramHtml('* one\n* two')).toBe('* one\n* two');
  });

  it('keeps code verbatim (escaped), inline and fenced with its language', () => {
    expect(renderTelegramHtml('run `rm -rf **x**` now')).toBe('run <code>rm -rf **x**</code> now');
    expect(renderTelegramHtml('```ts\nconst a = b < c && d;\n```\nafter **x**')).toBe(
      '<pre><code class="language-ts">const a = b &lt; c &amp;&amp; d;</code></pre>\nafter <b>x</b>',
    );
    expect(renderTelegramHtml('```\nunclosed <tag>')).toBe('<pre>unclosed &lt;tag&gt;</pre>');
  });

  it('produces HTML Telegram accepts, with the same visible text as the plain rendering', () => {
    const samples = [
      'Hello **Ann**! Your `id` is <42> & counting.',
      '# Title\nSome _emphasis_ and [link](https://a.b/c) and ~~old~~.',
      '```bash\necho "<hi>" && ls\n```',
      'emoji 😀 **bold 😀** text',
    ];
    for (const sample of samples) {
      const parsed = parseTelegramHtml(renderTelegramHtml(sample));
      expect(parsed.ok, sample).toBe(true);
      if (parsed.ok) expect(parsed.text.length).toBeLessThanOrEqual(sample.length);
    }
  });
});
