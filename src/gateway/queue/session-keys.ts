import { hash } from 'node:crypto';

/** Redis keys of one session. The session key is hashed so any text is a safe key part. */
export interface SessionKeys {
  readonly sessionKey: string;
  readonly hash: string;
  /** Owner token of the worker running the session's turn; PX, renewed while it runs. */
  readonly lock: string;
  /** Hash of the turn in progress: id, starts, failures, running. Kept until the turn is done. */
  readonly turn: string;
  /** List of the items handed to the turn in progress (wire form), steering appends. */
  readonly turnItems: string;
  /** List of items waiting for the next turn (wire form). */
  readonly inbox: string;
  /** Id of the turn asked to stop (busy mode interrupt); PX. */
  readonly interrupt: string;
}

export interface QueueKeys {
  /** Hash: session hash → session key, for every session with waiting or unfinished work. */
  readonly sessions: string;
  /** Counter of items waiting in inboxes. */
  readonly depth: string;
  /** Pub/sub channel carrying the ids of turns to interrupt. */
  readonly interruptChannel: string;
  session(sessionKey: string): SessionKeys;
  /** Dedupe marker of one inbound event of one session; PX. */
  seen(keys: SessionKeys, eventId: string): string;
}

function digest(text: string): string {
  // One-shot `crypto.hash` (Node ≥ 20.12) costs half of a `createHash` object per call.
  return hash('sha256', text, 'base64url').slice(0, 27);
}

/** `base` is `<prefix>:gw:<queueName>`, next to (never inside) BullMQ's own keys. */
export function queueKeys(base: string): QueueKeys {
  return {
    sessions: `${base}:sessions`,
    depth: `${base}:depth`,
    interruptChannel: `${base}:interrupt`,
    session(sessionKey) {
      const hash = digest(sessionKey);
      return {
        sessionKey,
        hash,
        lock: `${base}:lock:${hash}`,
        turn: `${base}:turn:${hash}`,
        turnItems: `${base}:titems:${hash}`,
        inbox: `${base}:inbox:${hash}`,
        interrupt: `${base}:intr:${hash}`,
      };
    },
    seen(keys, eventId) {
      return `${base}:seen:${keys.hash}:${digest(eventId)}`;
    },
  };
}
