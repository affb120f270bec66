import { z } from 'zod';
import { defineTool } from '../registry/define-tool.js';
import { extractPage } from './web/extract-page.js';
import { createSsrfGuard } from './web/ssrf-guard.js';

export const MAX_EXTRACT_URLS = 5;

export const webExtractTool = defineTool({
  name: 'web_extract',
  toolset: 'web',
  description:
    'Fetch up to 5 web pages and return their readable content as markdown (title, headings, text, lists, links, code). ' +
    'Plain-text and JSON responses are returned as they are; PDFs, images and other binary files are not read. ' +
    'Each URL is reported separately with its final URL after redirects; a failing URL does not affect the others. ' +
    'Addresses on private networks are refused.',
  emoji: '📄',
  readOnly: true,
  parameters: z.object({
    urls: z
      .array(z.string().trim().min(1).max(4096))
      .min(1)
      .max(MAX_EXTRACT_URLS)
      .describe(`The http(s) URLs to read, at most ${MAX_EXTRACT_URLS}.`),
  }),
  handler: async (args, ctx) => {
    const web = ctx.services.config.web;
    const guard = createSsrfGuard({ allowPrivate: web.allow_private });
    const urls = [...new Set(args.urls)];
    const results = await Promise.all(
      urls.map((url) => extractPage(url, { web, guard, signal: ctx.signal })),
    );
    ctx.signal.throwIfAborted();
    return { results };
  },
});
