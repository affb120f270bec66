/*
 * The gateway's durable state: sessions, transcripts, inbound dedupe, delivery receipts, pairing,
 * parked turns, action prompts, delivery failures, home channels, the chat outbox, webhook runs,
 * scheduled tasks, failed turns
 * and the full-text index for `session_search`. Each area has its own interface (the files re-exported
 * below), and each module depends on the areas it uses; `GatewayStore` is all of them, for the
 * composition root and the stores that implement everything (`createSqliteGatewayStore`).
 */
import type { ActionPromptStore } from './action-prompt-store.js';
import type { CronStore } from './cron-store.js';
import type { DeliveryFailureStore } from './delivery-failure-store.js';
import type { HomeChannelStore } from './home-channel-store.js';
import type { DeliveryReceiptStore, InboundDedupeStore } from './ledger-store.js';
import type { OutboxStore } from './outbox-store.js';
import type { PairingStore } from './pairing-store.js';
import type { ParkedTurnStore } from './parked-turn-store.js';
import type { SessionStore } from './session-store.js';
import type { StoreUpkeep } from './store-upkeep.js';
import type { TranscriptStore } from './transcript-store.js';
import type { TurnFailureStore } from './turn-failure-store.js';
import type { WebhookRunStore } from './webhook-run-store.js';

export * from './action-prompt-store.js';
export * from './cron-store.js';
export * from './delivery-failure-store.js';
export * from './home-channel-store.js';
export * from './ledger-store.js';
export * from './outbox-entry.js';
export * from './outbox-store.js';
export * from './pairing-store.js';
export * from './parked-turn-store.js';
export * from './session-store.js';
export * from './store-upkeep.js';
export * from './transcript-store.js';
export * from './turn-failure-store.js';
export * from './webhook-run-store.js';

export interface GatewayStore
  extends SessionStore,
    TranscriptStore,
    InboundDedupeStore,
    DeliveryReceiptStore,
    PairingStore,
    ParkedTurnStore,
    ActionPromptStore,
    DeliveryFailureStore,
    HomeChannelStore,
    OutboxStore,
    WebhookRunStore,
    CronStore,
    TurnFailureStore,
    StoreUpkeep {}
