/**
 * Which past conversations `session_search` may look at, from the current session key
 * (`agent:<ns>:<platform>:<chat_type>:<chat_id>[:<thread>][:<user>]`):
 *
 * - a DM (`chat_type` `dm`): every session whose key starts with
 *   `agent:<ns>:<platform>:dm:<chat_id>` — the DM itself and its threads, all the same person;
 * - anything else (group, channel, thread, webhook): only sessions with exactly the same key —
 *   in groups the key already ends with the user when sessions are per user, so other members'
 *   conversations never show; a shared thread only sees its own earlier sessions.
 *
 * Past sessions of a key are the ids it had before each `/new`; the current session is left out.
 */
export interface SearchScope {
  /** Passed to the store as `sessionKeyPrefix`. */
  readonly prefix: string;
  /** When true, hits must have exactly this key (the store matches prefixes). */
  readonly exact: boolean;
}

export function sessionSearchScope(sessionKey: string): SearchScope {
  const parts = sessionKey.split(':');
  if (parts.length >= 5 && parts[0] === 'agent' && parts[3] === 'dm') {
    return { prefix: parts.slice(0, 5).join(':'), exact: false };
  }
  return { prefix: sessionKey, exact: true };
}
