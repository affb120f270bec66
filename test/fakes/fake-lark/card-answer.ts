import { isRecord } from './api-answer.js';
import type { LarkState } from './lark-state.js';
import { type ContentLimits, checkContent } from './message-content.js';

/** What became of a card click once the app answered. */
export interface ClickRecord {
  readonly messageId: string;
  readonly operator: string;
  readonly value: unknown;
  readonly via: 'webhook' | 'ws';
  /** updated: the answer carried a card that now shows; failed: the user saw Lark's error. */
  readonly outcome: 'updated' | 'unchanged' | 'failed';
  readonly toast: { readonly type: string; readonly content: string } | undefined;
}

/**
 * Applies the app's answer to a `card.action.trigger` the way Lark does: `{}` changes nothing,
 * `{toast}` shows a toast, `{card: {type: 'raw', data}}` (or a template) replaces the card. An
 * answer that was not delivered (not HTTP 200 with JSON, not acked with 200) or has any other
 * shape is a failure the user sees as Lark's error. Other payloads are ignored.
 */
export function applyCardAnswer(
  state: LarkState,
  limits: ContentLimits,
  clicks: ClickRecord[],
  payload: object,
  via: ClickRecord['via'],
  delivered: boolean,
  answer: unknown,
): void {
  if (!isRecord(payload) || !isRecord(payload['header'])) return;
  if (payload['header']['event_type'] !== 'card.action.trigger') return;
  const event = isRecord(payload['event']) ? payload['event'] : {};
  const context = isRecord(event['context']) ? event['context'] : {};
  const operator = isRecord(event['operator']) ? event['operator'] : {};
  const action = isRecord(event['action']) ? event['action'] : {};
  const messageId = String(context['open_message_id'] ?? '');
  const toastValue = isRecord(answer) && isRecord(answer['toast']) ? answer['toast'] : undefined;
  const toast =
    toastValue === undefined
      ? undefined
      : { type: String(toastValue['type'] ?? 'info'), content: String(toastValue['content'] ?? '') };
  const known =
    answer === undefined ||
    (isRecord(answer) && Object.keys(answer).every((k) => k === 'toast' || k === 'card'));
  let outcome: ClickRecord['outcome'] = 'unchanged';
  if (!delivered || !known) {
    outcome = 'failed';
  } else if (isRecord(answer) && isRecord(answer['card'])) {
    const card = answer['card'];
    const content = card['type'] === 'template' ? JSON.stringify(card) : JSON.stringify(card['data']);
    const check = checkContent('interactive', content, Buffer.byteLength(content), limits);
    const message = state.messages.get(messageId);
    if (!check.ok || (card['type'] !== 'raw' && card['type'] !== 'template') || message === undefined) {
      outcome = 'failed';
    } else {
      state.replaceContent(message, 'card_callback', 'interactive', content, check.rendered);
      outcome = 'updated';
    }
  }
  clicks.push({
    messageId,
    operator: String(operator['open_id'] ?? ''),
    value: action['value'],
    via,
    outcome,
    toast,
  });
}
