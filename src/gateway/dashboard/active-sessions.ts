import type { TurnHandler } from '../queue/turn-queue.js';

/** Sessions whose turn runs in this process right now, with when it started. */
export interface ActiveSessions {
  /** The handler, wrapped so each turn is counted while it runs. */
  wrap(handler: TurnHandler): TurnHandler;
  /** Session key → start time (epoch ms) of its running turn. */
  running(): ReadonlyMap<string, number>;
}

export function createActiveSessions(now: () => number = Date.now): ActiveSessions {
  const active = new Map<string, number>();
  return {
    wrap(handler) {
      return async (turn) => {
        active.set(turn.sessionKey, now());
        try {
          await handler(turn);
        } finally {
          active.delete(turn.sessionKey);
        }
      };
    },
    running: () => active,
  };
}
