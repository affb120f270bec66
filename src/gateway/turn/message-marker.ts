import type { StoredMessage } from '../store/transcript-store.js';

/**
 * Transcript messages carry no turn id, so the runner keeps one in the `name` field of the user
 * and assistant messages it writes: `hg1;t=<turnId>&e=<eventId>` (URL-encoded parts; `e` only on
 * user messages). That is what makes a retried turn recoverable: which inbound events are already
 * in the transcript, which assistant steps belong to the turn, whether it already has a final
 * answer. The name is never sent to the model. Tool messages keep the tool name, as the store
 * documents; they are tied to their turn through the assistant message's tool call ids.
 */
const PREFIX = 'hg1;';

export interface MessageMarker {
  readonly turnId: string;
  readonly eventId?: string;
}

export function encodeMarker(marker: MessageMarker): string {
  const params = new URLSearchParams({ t: marker.turnId });
  if (marker.eventId !== undefined) params.set('e', marker.eventId);
  return PREFIX + params.toString();
}

export function decodeMarker(name: string | undefined): MessageMarker | undefined {
  if (name === undefined || !name.startsWith(PREFIX)) return undefined;
  const params = new URLSearchParams(name.slice(PREFIX.length));
  const turnId = params.get('t');
  if (turnId === null || turnId === '') return undefined;
  const eventId = params.get('e');
  return eventId === null ? { turnId } : { turnId, eventId };
}

/** Decoded markers by message object: the runner re-reads the whole transcript at every step. */
const decoded = new WeakMap<StoredMessage, MessageMarker | null>();

/** The marker of a stored message (`decodeMarker` of its name), decoded once per message object. */
export function markerOf(message: StoredMessage): MessageMarker | undefined {
  let marker = decoded.get(message);
  if (marker === undefined) {
    marker = decodeMarker(message.name) ?? null;
    decoded.set(message, marker);
  }
  return marker ?? undefined;
}

/** The turn a user or assistant message was written for, if the runner wrote it. */
export function turnOf(message: StoredMessage): string | undefined {
  return message.role === 'tool' ? undefined : markerOf(message)?.turnId;
}
