import { ENTRY_DELIMITER, formatUsage } from './memory-entries.js';
import type { MemoryStore, MemoryTarget, MemoryView } from './memory-store.js';

const HEADINGS: Readonly<Record<MemoryTarget, string>> = {
  memory: 'MEMORY: your own notes from earlier sessions',
  user: 'USER PROFILE: what you know about this user',
};

function block(view: MemoryView): string | undefined {
  if (view.entries.length === 0) return undefined;
  const heading = `## ${HEADINGS[view.target]} [${formatUsage(view.used, view.limit)}]`;
  return `${heading}\n${view.entries.join(ENTRY_DELIMITER)}`;
}

/**
 * The memory section of the system prompt for one scope (`memoryScope(...)`): agent notes, then
 * the user profile, each with its usage; an empty string when both are empty. The turn runner
 * calls it once when a session starts and keeps the text for the whole session (as Hermes does):
 * memory writes during the session reach the disk at once but the prompt only from the next
 * session, which keeps the prompt prefix stable for caching.
 */
export async function renderMemoryForPrompt(store: MemoryStore, scope: string): Promise<string> {
  const [memory, user] = await Promise.all([store.read(scope, 'memory'), store.read(scope, 'user')]);
  return [block(memory), block(user)].filter((part) => part !== undefined).join('\n\n');
}
