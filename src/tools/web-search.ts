import { z } from 'zod';
import { HermesError } from '../errors/hermes-error.js';
import { defineTool } from '../registry/define-tool.js';
import { createSearchProvider } from './web/create-search-provider.js';

export const webSearchTool = defineTool({
  name: 'web_search',
  toolset: 'web',
  description:
    'Search the web. Returns a list of results with title, URL and a short snippet; ' +
    'read a result in full with web_extract.',
  emoji: '🔍',
  readOnly: true,
  parameters: z.object({
    query: z.string().trim().min(1).max(400).describe('What to search for.'),
    limit: z
      .number()
      .int()
      .min(1)
      .max(50)
      .optional()
      .describe('How many results to return (default from config).'),
  }),
  checkFn: (services) => {
    const choice = createSearchProvider(services.config.web);
    return choice.ok ? true : { ok: false, reason: choice.reason };
  },
  handler: async (args, ctx) => {
    const web = ctx.services.config.web;
    const choice = createSearchProvider(web);
    if (!choice.ok) throw new HermesError('search_failed', choice.reason);
    const limit = args.limit ?? web.search.max_results;
    const results = await choice.provider.search(args.query, { limit, signal: ctx.signal });
    return { query: args.query, provider: choice.provider.name, results };
  },
});
