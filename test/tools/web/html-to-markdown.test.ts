import { describe, expect, it } from 'vitest';
import { htmlToMarkdown } from '../../../src/tools/web/html-to-markdown.js';

const filler = `<p>${'Readable body text. '.repeat(15)}</p>`;

describe('htmlToMarkdown', () => {
  it('keeps the readable parts and drops page chrome', () => {
    const page = htmlToMarkdown(
      `<!doctype html><html><head><title> Guide &amp; Notes </title>
      <style>body { color: red }</style><script>window.secret = 1</script></head>
      <body><header><a href="/">Site home</a></header><nav><a href="/docs">Docs menu</a></nav>
      <main><h1>Install</h1><p>Run <code>npm ci</code> then read <a href="../faq.html#top">the FAQ</a>.</p>
      <h2>Steps</h2><ul><li>first</li><li>second</li></ul><ol><li>one</li></ol>
      <pre><code class="language-sh">npm test\nnpm start</code></pre>${filler}
      <div hidden>invisible</div><aside>Related posts</aside></main>
      <footer>© footer text</footer><script>track()</script></body></html>`,
      'https://example.com/docs/guide/install.html',
    );
    expect(page.title).toBe('Guide & Notes');
    expect(page.markdown).toContain('# Install');
    expect(page.markdown).toContain('## Steps');
    expect(page.markdown).toContain(
      'Run `npm ci` then read [the FAQ](https://example.com/docs/faq.html#top).',
    );
    expect(page.markdown).toMatch(/- first\n- second/);
    expect(page.markdown).toContain('1. one');
    expect(page.markdown).toContain('```sh\nnpm test\nnpm start\n```');
    for (const chrome of [
      'color: red',
      'secret',
      'Site home',
      'Docs menu',
      'footer text',
      'track()',
      'invisible',
      'Related',
    ]) {
      expect(page.markdown).not.toContain(chrome);
    }
  });

  it('uses the body when there is no main element, and a single article when there is one', () => {
    const plain = htmlToMarkdown('<html><body><p>Just a paragraph.</p></body></html>', 'https://x.test/');
    expect(plain).toEqual({ title: '', markdown: 'Just a paragraph.' });

    const withArticle = htmlToMarkdown(
      `<body><div>Sidebar noise</div><article><h1>Post title</h1>${filler}</article></body>`,
      'https://x.test/',
    );
    expect(withArticle.title).toBe('Post title');
    expect(withArticle.markdown.startsWith('# Post title')).toBe(true);
    expect(withArticle.markdown).not.toContain('Sidebar noise');
  });

  it('falls back to og:title and honours <base href>', () => {
    const page = htmlToMarkdown(
      `<head><meta property="og:title" content="Shared title"><base href="https://cdn.test/root/"></head>
      <body><p><a href="page">rel</a> <a href="javascript:alert(1)">js link</a> <img src="pic.png" alt="A chart"><img src="spacer.gif"></p></body>`,
      'https://origin.test/a/b',
    );
    expect(page.title).toBe('Shared title');
    expect(page.markdown).toContain('[rel](https://cdn.test/root/page)');
    expect(page.markdown).toContain('js link');
    expect(page.markdown).not.toContain('javascript:');
    expect(page.markdown).toContain('![A chart](https://cdn.test/root/pic.png)');
    expect(page.markdown).not.toContain('spacer');
  });
});
