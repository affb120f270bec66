import type { InboxItem, TurnContext } from '../queue/turn-queue.js';

export type TurnSegment =
  | { readonly kind: 'messages'; readonly turnId: string; readonly items: readonly InboxItem[] }
  | { readonly kind: 'resume'; readonly item: InboxItem };

/**
 * Splits a queue turn into what the runner runs, in arrival order: each run of consecutive
 * messages is one turn, each resume item continues its parked turn. The first message run keeps
 * the queue's turn id; later ones get `<turnId>.2`, `.3`… — the same on every retry, because the
 * items come back in the same order.
 */
export function turnSegments(turn: Pick<TurnContext, 'turnId' | 'items'>): TurnSegment[] {
  const segments: TurnSegment[] = [];
  let run: InboxItem[] = [];
  let runs = 0;
  const flush = () => {
    if (run.length === 0) return;
    runs += 1;
    segments.push({
      kind: 'messages',
      turnId: runs === 1 ? turn.turnId : `${turn.turnId}.${runs}`,
      items: run,
    });
    run = [];
  };
  for (const item of turn.items) {
    if (item.kind === 'resume') {
      flush();
      segments.push({ kind: 'resume', item });
    } else {
      run.push(item);
    }
  }
  flush();
  return segments;
}
