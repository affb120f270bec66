import type { StoredMessage, TranscriptStore } from '../store/transcript-store.js';

/** A session's loaded transcript: its last messages, and how many older ones were left out. */
export interface LoadedTranscript {
  readonly transcript: StoredMessage[];
  readonly earlierOmitted: number;
}

export interface TranscriptCacheOptions {
  /** Sessions kept at most (least recently loaded go first). Default 32. */
  readonly maxSessions?: number;
  /** Characters of content and tool-call arguments kept at most, over all sessions. Default 4 M. */
  readonly maxChars?: number;
}

interface Entry {
  readonly loaded: LoadedTranscript;
  readonly chars: number;
}

/**
 * The transcripts of recently active sessions, so a turn reads only the messages appended since
 * the session's previous turn instead of the whole transcript (up to `maxLoaded` rows, each
 * parsed into an object: ≈ 10 ms of CPU per turn once a chat has a thousand messages).
 *
 * Sound because a session id's messages are append-only with gap-free `seq`s: nothing in the
 * gateway edits or deletes them (only deleting the whole session id does, and no turn runs on a
 * deleted id). Whatever any process appended since is read back by `seq`, together with the last
 * cached message; if that one changed, the `seq`s do not continue or the session's message count
 * disagrees with what is cached (something was deleted), everything is read again. The loaded array is handed to the turn,
 * which appends its own messages to it (`persist`); a session runs one turn at a time, so the
 * array is never shared by two turns. Memory is bounded by sessions and characters; an array
 * grows past its recorded size only by what one turn appends.
 */
export class TranscriptCache {
  readonly #maxSessions: number;
  readonly #maxChars: number;
  readonly #entries = new Map<string, Entry>();
  #chars = 0;

  constructor(options: TranscriptCacheOptions = {}) {
    this.#maxSessions = options.maxSessions ?? 32;
    this.#maxChars = options.maxChars ?? 4_000_000;
  }

  get size(): number {
    return this.#entries.size;
  }

  /** The last `maxLoaded` messages of the session (never starting with a tool result). */
  async load(store: TranscriptStore, sessionId: string, maxLoaded: number): Promise<LoadedTranscript> {
    const cached = this.#take(sessionId);
    const loaded =
      (cached === undefined ? undefined : await extend(store, sessionId, cached, maxLoaded)) ??
      (await loadAll(store, sessionId, maxLoaded));
    this.#keep(sessionId, loaded);
    return loaded;
  }

  #take(sessionId: string): LoadedTranscript | undefined {
    const entry = this.#entries.get(sessionId);
    if (entry === undefined) return undefined;
    this.#entries.delete(sessionId);
    this.#chars -= entry.chars;
    return entry.loaded;
  }

  #keep(sessionId: string, loaded: LoadedTranscript): void {
    if (this.#maxSessions === 0) return;
    const chars = charsOf(loaded.transcript);
    if (chars > this.#maxChars) return;
    this.#entries.set(sessionId, { loaded, chars });
    this.#chars += chars;
    while (this.#entries.size > this.#maxSessions || this.#chars > this.#maxChars) {
      const oldest = this.#entries.keys().next();
      if (oldest.done === true) break;
      this.#take(oldest.value);
    }
  }
}

/** The cached transcript plus what was appended since, or undefined when it must be reread. */
async function extend(
  store: TranscriptStore,
  sessionId: string,
  cached: LoadedTranscript,
  maxLoaded: number,
): Promise<LoadedTranscript | undefined> {
  const { transcript } = cached;
  const last = transcript.at(-1);
  if (last === undefined) return undefined;
  // Read from the last cached message on: it must still be there, unchanged.
  const [anchor, ...added] = await store.listMessages(sessionId, {
    afterSeq: last.seq - 1,
    limit: maxLoaded + 1,
  });
  if (anchor === undefined || !sameMessage(anchor, last)) return undefined;
  if (added.length >= maxLoaded) return undefined;
  if (added.length > 0 && added[0]!.seq !== last.seq + 1) return undefined;
  // And nothing before it went missing: every stored message is cached or counted as left out.
  const stored = await store.countMessages(sessionId);
  if (stored !== cached.earlierOmitted + transcript.length + added.length) return undefined;
  transcript.push(...added);
  if (transcript.length <= maxLoaded) return cached;
  const start = windowStart(transcript, transcript.length - maxLoaded);
  return { transcript: transcript.slice(start), earlierOmitted: cached.earlierOmitted + start };
}

async function loadAll(
  store: TranscriptStore,
  sessionId: string,
  maxLoaded: number,
): Promise<LoadedTranscript> {
  const tail = await store.listMessages(sessionId, { limit: maxLoaded, tail: true });
  // Fewer than the limit came back: that is the whole transcript (no count query needed).
  if (tail.length < maxLoaded) return { transcript: tail, earlierOmitted: 0 };
  const count = await store.countMessages(sessionId);
  if (count <= tail.length) return { transcript: tail, earlierOmitted: 0 };
  const start = windowStart(tail, 0);
  return { transcript: tail.slice(start), earlierOmitted: count - tail.length + start };
}

/** The first index at or after `from` that is not a tool result (a window never starts with one). */
function windowStart(messages: readonly StoredMessage[], from: number): number {
  let start = from;
  while (start < messages.length && messages[start]!.role === 'tool') start += 1;
  return start;
}

function sameMessage(a: StoredMessage, b: StoredMessage): boolean {
  return (
    a.seq === b.seq &&
    a.role === b.role &&
    a.content === b.content &&
    a.name === b.name &&
    a.toolCallId === b.toolCallId &&
    a.createdAt === b.createdAt
  );
}

function charsOf(messages: readonly StoredMessage[]): number {
  let chars = 0;
  for (const message of messages) {
    chars += 100 + (message.content?.length ?? 0) + (message.name?.length ?? 0);
    for (const call of message.toolCalls ?? []) chars += call.function.arguments.length + 50;
  }
  return chars;
}
