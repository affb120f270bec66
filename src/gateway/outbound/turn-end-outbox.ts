import type { RecordedTurnEnd, TurnEndOutbox } from '../../platforms/webhook-run-records.js';
import type { OutboxEntry } from '../store/outbox-entry.js';
import type { OutboxStore } from '../store/outbox-store.js';

/**
 * The outbox as a platform that answers outside chats sees it (webhook runs): the turn ends the
 * runner recorded for the platform before publishing them, for whichever gateway process is up
 * to deliver what the live event did not.
 */
export function createTurnEndOutbox(
  store: Pick<OutboxStore, 'listOutbox' | 'completeOutbox'>,
): TurnEndOutbox {
  return {
    async listTurnEnds(platform, options) {
      const entries = await store.listOutbox({
        platform,
        olderThan: options.olderThan,
        ...(options.limit !== undefined ? { limit: options.limit } : {}),
      });
      return entries.map(endOf);
    },
    completeTurnEnd: (id) => store.completeOutbox(id),
  };
}

function endOf(entry: OutboxEntry): RecordedTurnEnd {
  const base = { turnId: entry.turnId, sessionKey: entry.sessionKey };
  const end: RecordedTurnEnd['end'] =
    entry.kind === 'final'
      ? { type: 'final', ...base, text: entry.text }
      : entry.kind === 'failed'
        ? { type: 'failed', ...base, code: 'failed', message: entry.text }
        : { type: 'parked', ...base, reason: entry.prompt?.reason ?? 'approval' };
  return { id: entry.id, eventIds: entry.eventIds, end, createdAt: entry.createdAt };
}
