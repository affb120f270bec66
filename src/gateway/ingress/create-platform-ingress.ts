import type { Ingress } from '../../platforms/ingress.js';
import type { EventBus } from '../events/event-bus.js';
import { platformChannel } from '../events/gateway-event.js';
import type { JsonValue, TurnQueue } from '../queue/turn-queue.js';
import { buildSessionKey } from '../session-key.js';
import type { InboundDedupeStore } from '../store/ledger-store.js';
import type { SessionStore } from '../store/session-store.js';
import type { TranscriptStore } from '../store/transcript-store.js';
import { parseTurnOrigin } from '../turn/turn-origin.js';
import { createPlatformPrompts, type PlatformPromptDeps } from './answer-platform-prompt.js';
import { createTurnWatcher } from './turn-watcher.js';

export interface PlatformIngressDeps {
  readonly store: Pick<SessionStore, 'getOrCreateSession' | 'updateSession'> &
    Pick<TranscriptStore, 'appendMessages'> &
    InboundDedupeStore;
  readonly queue: Pick<TurnQueue, 'submit'>;
  readonly bus: EventBus;
  readonly unavailableReason: () => string | undefined;
  /** Prompts answered over HTTP (runs, the dashboard): the gate, the runner, the prompt records. */
  readonly prompts: PlatformPromptDeps;
}

/**
 * The narrow ingress (platforms/ingress.ts) on the gateway's parts: session keys, the turn queue,
 * the event bus (turn outcomes by inbound event id) and the store's dedupe, session and transcript
 * areas. Origins go into the inbox item's payload as they are; the turn runner checks them again.
 */
export function createPlatformIngress(deps: PlatformIngressDeps): Ingress {
  const { store } = deps;
  const prompts = createPlatformPrompts(deps.prompts);
  return {
    sessionKey: (input) => buildSessionKey(input),
    checkOrigin(origin) {
      const checked = parseTurnOrigin(origin);
      return checked.ok ? undefined : checked.problem;
    },
    submit: (request) =>
      deps.queue.submit({
        sessionKey: request.sessionKey,
        eventId: request.eventId,
        kind: 'message',
        text: request.text,
        payload: request.origin as unknown as JsonValue,
        receivedAt: request.receivedAt,
        ...(request.dedupe !== undefined ? { dedupe: request.dedupe } : {}),
        ...(request.solo !== undefined ? { solo: request.solo } : {}),
      }),
    watchTurns: (platform, options = {}) => createTurnWatcher(deps.bus, platformChannel(platform), options),
    claimEvent: (platform, eventId, ttlMs) => store.markEventProcessed(platform, eventId, ttlMs),
    releaseEvent: (platform, eventId) => store.releaseEvent(platform, eventId),
    async appendHistory(sessionKey, messages) {
      const session = await store.getOrCreateSession(sessionKey);
      await store.appendMessages(session.sessionId, messages);
    },
    async setSessionToolsets(sessionKey, toolsets) {
      await store.updateSession(sessionKey, { toolsetOverrides: [...toolsets] });
    },
    unavailableReason: () => deps.unavailableReason(),
    answerPrompt: (prompt, answer, by) => prompts.answer(prompt, answer, by),
    stopSession: (sessionKey, pending) => prompts.stop(sessionKey, pending),
  };
}
