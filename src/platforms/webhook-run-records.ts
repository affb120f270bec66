/**
 * Durable webhook runs, part of the platform contract: the run record behind
 * `GET /webhooks/<route>/runs/<id>`, and the turn ends the gateway recorded for a platform that
 * answers outside chats (its outbox), so whichever gateway process is up delivers a run's result
 * once — also when the process that accepted the delivery restarted meanwhile.
 *
 * The gateway's store implements `WebhookRunRecords` (gateway/store/webhook-run-store.ts) and its
 * outbox `TurnEndOutbox`; platforms get both through `RouteServices.durable` (platform.ts).
 */

import type { TurnEnd } from './ingress.js';

export type WebhookRunStatus = 'queued' | 'running' | 'done' | 'failed' | 'delivery_failed';

export type WebhookDeliveryState =
  | { readonly status: 'pending' }
  | { readonly status: 'delivered'; readonly attempts: number }
  | { readonly status: 'logged' }
  /** The answer was empty or `[SILENT]`: nothing to deliver. */
  | { readonly status: 'skipped' }
  | { readonly status: 'failed'; readonly attempts: number; readonly error: string };

export interface WebhookRunInput {
  readonly runId: string;
  readonly route: string;
  readonly deliveryId: string;
  readonly sessionKey: string;
  /** The inbound event id of the run's input (`webhook:<route>:<delivery id>`): how its turn end is found. */
  readonly eventId: string;
  /** Defaults to the store clock. */
  readonly createdAt?: number;
}

export interface WebhookRunRecord {
  readonly runId: string;
  readonly route: string;
  readonly deliveryId: string;
  readonly sessionKey: string;
  readonly eventId: string;
  readonly createdAt: number;
  readonly updatedAt: number;
  readonly status: WebhookRunStatus;
  readonly result: string | undefined;
  readonly error: string | undefined;
  readonly delivery: WebhookDeliveryState;
}

/** `undefined` leaves a field alone. */
export interface WebhookRunPatch {
  readonly status?: WebhookRunStatus;
  readonly result?: string;
  readonly error?: string;
  readonly delivery?: WebhookDeliveryState;
}

/** Webhook run records (every method a Promise; times are epoch ms of the store clock). */
export interface WebhookRunRecords {
  /** Records an accepted delivery's run (`queued`, delivery `pending`); idempotent on `runId`. */
  saveWebhookRun(input: WebhookRunInput): Promise<void>;
  getWebhookRun(runId: string): Promise<WebhookRunRecord | undefined>;
  /** The run started by this inbound event id. */
  findWebhookRunByEvent(eventId: string): Promise<WebhookRunRecord | undefined>;
  /** Applies a patch; an unknown run is left alone (false). */
  updateWebhookRun(runId: string, patch: WebhookRunPatch): Promise<boolean>;
  /**
   * Takes the right to deliver a run's result until `leaseUntil`: true only for one caller at a
   * time, and only while its delivery is `pending`. A holder that dies lets the lease run out, and
   * the next caller after that takes it (a result is then delivered at least once, never by two
   * processes at the same time).
   */
  claimWebhookDelivery(runId: string, leaseUntil: number): Promise<boolean>;
  /** Forgets a run (its delivery could not be queued after all). */
  deleteWebhookRun(runId: string): Promise<boolean>;
  /** Deletes runs created before `olderThan`; returns how many. */
  pruneWebhookRuns(olderThan: number): Promise<number>;
}

/** A turn end recorded for a platform before its live event went out. */
export interface RecordedTurnEnd {
  /** The outbox entry id; pass it to `completeTurnEnd`. */
  readonly id: string;
  /** Inbound event ids the turn handled. */
  readonly eventIds: readonly string[];
  readonly end: Exclude<TurnEnd, { readonly type: 'timeout' }>;
  readonly createdAt: number;
}

/** The turn ends recorded for a platform and not yet handled, oldest first. */
export interface TurnEndOutbox {
  listTurnEnds(
    platform: string,
    options: { readonly olderThan: number; readonly limit?: number },
  ): Promise<RecordedTurnEnd[]>;
  /** Marks one handled; true only for the first caller. */
  completeTurnEnd(id: string): Promise<boolean>;
}
