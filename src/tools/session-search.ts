import { z } from 'zod';
import { HermesError } from '../errors/hermes-error.js';
import { defineTool } from '../registry/define-tool.js';
import type { CheckResult } from '../registry/tool-types.js';
import type {} from './agent/agent-services.js';
import { sessionSearchScope } from './agent/session-search-scope.js';

const MAX_LIMIT = 20;

export const sessionSearchTool = defineTool({
  name: 'session_search',
  toolset: 'session_search',
  emoji: '🔎',
  readOnly: true,
  description:
    'Search the earlier conversations you had with this user (or in this chat) for words or phrases, e.g. to recall what was decided or done before. ' +
    'The current conversation is not searched. Every word of the query must occur in a message; results are excerpts around the first match, best matches first.',
  parameters: z.object({
    query: z.string().trim().min(1).max(500).describe('Words or a phrase to look for.'),
    limit: z
      .number()
      .int()
      .min(1)
      .max(MAX_LIMIT)
      .default(5)
      .describe(`Results to return, 1-${MAX_LIMIT} (default 5).`),
  }),
  checkFn: (services): CheckResult =>
    services.sessionSearch === undefined
      ? { ok: false, reason: 'session store not configured' }
      : { ok: true },
  handler: async (args, ctx) => {
    const search = ctx.services.sessionSearch;
    if (search === undefined)
      throw new HermesError('usage', 'Session search is not available in this gateway.');
    const scope = sessionSearchScope(ctx.sessionKey);
    const current = await search.getSession(ctx.sessionKey);
    const hits = await search.searchMessages(args.query, {
      sessionKeyPrefix: scope.prefix,
      ...(current === undefined ? {} : { excludeSessionId: current.sessionId }),
      limit: scope.exact ? Math.min(200, args.limit * 4) : args.limit,
    });
    const results = hits
      .filter((hit) => !scope.exact || hit.sessionKey === ctx.sessionKey)
      .slice(0, args.limit)
      .map((hit) => ({
        session_id: hit.sessionId,
        date: new Date(hit.createdAt).toISOString(),
        role: hit.role,
        excerpt: hit.snippet,
      }));
    return {
      query: args.query,
      count: results.length,
      results,
      ...(results.length === 0
        ? { note: 'No earlier conversation matches. Try fewer or different words.' }
        : {}),
    };
  },
});
