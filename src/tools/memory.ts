import { z } from 'zod';
import { HermesError } from '../errors/hermes-error.js';
import { defineTool } from '../registry/define-tool.js';
import type { CheckResult } from '../registry/tool-types.js';
import { formatUsage } from './memory/memory-entries.js';
import { memoryScope } from './memory/memory-scope.js';
import type {} from './memory/memory-services.js';
import type { MemoryChange } from './memory/memory-store.js';

const parameters = z.object({
  action: z
    .enum(['add', 'replace', 'remove'])
    .describe('add: save a new entry; replace: rewrite the entry old_text identifies; remove: delete it.'),
  target: z
    .enum(['memory', 'user'])
    .describe("memory: your own notes (environment, conventions, lessons); user: the user's profile."),
  content: z.string().optional().describe("The entry's text, for add and replace."),
  old_text: z
    .string()
    .optional()
    .describe('For replace and remove: a short piece of the existing entry that occurs in no other entry.'),
});

function reply(change: MemoryChange): Record<string, unknown> {
  return {
    success: true,
    target: change.target,
    message: change.message,
    usage: formatUsage(change.used, change.limit),
    entry_count: change.entries.length,
    entries: change.entries,
  };
}

export const memoryTool = defineTool({
  name: 'memory',
  toolset: 'memory',
  emoji: '🧠',
  description:
    'Keep durable memory across sessions. Saved entries are shown to you at the start of every new session with this user, so save what will still matter later — without being asked: ' +
    "the user's name, role, preferences and ways of working, corrections they gave you (target 'user'); facts about their environment and projects, conventions, and lessons learned the hard way (target 'memory'). " +
    'Do not save task progress, one-off details, things you can easily look up again, or secrets. ' +
    'Each target has a size cap; keep entries short and factual, and when a target is full merge or shorten entries with replace, or drop outdated ones with remove. ' +
    'replace and remove find the entry by old_text, a short piece of it that appears in no other entry. ' +
    'Changes are saved at once but appear in your instructions only from the next session; the reply lists the current entries.',
  parameters,
  checkFn: (services): CheckResult =>
    services.memoryStore === undefined ? { ok: false, reason: 'memory store not configured' } : { ok: true },
  handler: async (args, ctx) => {
    const store = ctx.services.memoryStore;
    if (store === undefined) throw new HermesError('usage', 'Memory is not available in this gateway.');
    const scope = memoryScope({ platform: ctx.platform, userId: ctx.userId, sessionKey: ctx.sessionKey });
    const content = args.content ?? '';
    const oldText = args.old_text ?? '';
    switch (args.action) {
      case 'add':
        if (content.trim() === '')
          throw new HermesError('usage', "action 'add' needs 'content': the text to save.");
        return reply(await store.add(scope, args.target, content));
      case 'replace':
        if (oldText.trim() === '' || content.trim() === '') {
          throw new HermesError(
            'usage',
            "action 'replace' needs 'old_text' (a unique piece of the entry to change) and 'content' (its new text).",
          );
        }
        return reply(await store.replace(scope, args.target, oldText, content));
      case 'remove':
        if (oldText.trim() === '') {
          throw new HermesError(
            'usage',
            "action 'remove' needs 'old_text': a unique piece of the entry to delete.",
          );
        }
        return reply(await store.remove(scope, args.target, oldText));
    }
  },
});
