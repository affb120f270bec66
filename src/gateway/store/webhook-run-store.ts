import type { WebhookRunRecords } from '../../platforms/webhook-run-records.js';

/*
 * One area of the gateway's durable state (see GatewayStore in gateway-store.ts, the whole).
 * Every method returns a Promise so a networked database can implement it later. Times are
 * epoch milliseconds from the store's clock; optional values are `undefined` when absent.
 */

export type {
  WebhookDeliveryState,
  WebhookRunInput,
  WebhookRunPatch,
  WebhookRunRecord,
  WebhookRunStatus,
} from '../../platforms/webhook-run-records.js';

/**
 * Webhook runs: what `GET /webhooks/<route>/runs/<id>` reports and whether a run's result was
 * delivered, kept across restarts and shared by every gateway process on the store. The shapes
 * belong to the platform contract (platforms/webhook-run-records.ts), which the webhook platform
 * is handed; see there for each method's rules.
 */
export interface WebhookRunStore extends WebhookRunRecords {}
