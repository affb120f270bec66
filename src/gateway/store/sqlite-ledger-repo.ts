import type { Database } from 'better-sqlite3';
import { z } from 'zod';
import { HermesError } from '../../errors/hermes-error.js';
import type { DeliveryInput, DeliveryReceipt, RecordDeliveryResult } from './ledger-store.js';
import { parseJsonColumn, parseRow } from './sqlite-rows.js';
import { DEFAULT_DELIVERY_RETENTION_MS, type PruneOptions } from './store-upkeep.js';

const deliveryRow = z.object({
  receipt_key: z.string(),
  platform: z.string(),
  chat_id: z.string(),
  message_ids: z.string(),
  delivered_at: z.number(),
});
const idList = z.array(z.string());

/** Expired dedupe rows removed by each `markEventProcessed` call, so the table stays bounded. */
const PRUNE_BATCH = 32;
const MAX_ID_LENGTH = 512;

export interface LedgerRepo {
  markEventProcessed(platform: string, eventId: string, ttlMs: number): boolean;
  releaseEvent(platform: string, eventId: string): void;
  recordDelivery(input: DeliveryInput): RecordDeliveryResult;
  getDelivery(receiptKey: string): DeliveryReceipt | undefined;
  prune(options: PruneOptions): { events: number; deliveries: number };
}

/** Inbound dedupe and outbound delivery receipts. */
export function createLedgerRepo(db: Database, now: () => number): LedgerRepo {
  // Inserts a new id, or revives an expired one; a live row makes it a no-op (changes = 0).
  const markStmt = db.prepare(
    `INSERT INTO processed_events (platform, event_id, seen_at, expires_at) VALUES (?, ?, ?, ?)
     ON CONFLICT (platform, event_id) DO UPDATE SET seen_at = excluded.seen_at, expires_at = excluded.expires_at
     WHERE processed_events.expires_at <= excluded.seen_at`,
  );
  const pruneSomeEvents = db.prepare(
    `DELETE FROM processed_events WHERE rowid IN
       (SELECT rowid FROM processed_events WHERE expires_at <= ? LIMIT ${PRUNE_BATCH})`,
  );
  const pruneEvents = db.prepare('DELETE FROM processed_events WHERE expires_at <= ?');
  const releaseStmt = db.prepare('DELETE FROM processed_events WHERE platform = ? AND event_id = ?');
  const insertDelivery = db.prepare(
    `INSERT INTO deliveries (receipt_key, platform, chat_id, message_ids, delivered_at)
     VALUES (@receipt_key, @platform, @chat_id, @message_ids, @delivered_at)
     ON CONFLICT (receipt_key) DO NOTHING`,
  );
  const selectDelivery = db.prepare('SELECT * FROM deliveries WHERE receipt_key = ?');
  const pruneDeliveries = db.prepare('DELETE FROM deliveries WHERE delivered_at <= ?');

  function readDelivery(receiptKey: string): DeliveryReceipt | undefined {
    const row = selectDelivery.get(receiptKey);
    if (row === undefined) return undefined;
    const parsed = parseRow(deliveryRow, row, 'delivery');
    return {
      receiptKey: parsed.receipt_key,
      platform: parsed.platform,
      chatId: parsed.chat_id,
      messageIds: parseJsonColumn(idList, parsed.message_ids, 'delivery message ids'),
      deliveredAt: parsed.delivered_at,
    };
  }

  const recordTx = db.transaction((input: DeliveryInput): RecordDeliveryResult => {
    const at = now();
    const result = insertDelivery.run({
      receipt_key: input.receiptKey,
      platform: input.platform,
      chat_id: input.chatId,
      message_ids: JSON.stringify([...input.messageIds]),
      delivered_at: at,
    });
    const receipt = readDelivery(input.receiptKey);
    if (receipt === undefined)
      throw new HermesError('store_failed', 'delivery receipt vanished after insert');
    return { receipt, created: result.changes === 1 };
  });

  const markTx = db.transaction((platform: string, eventId: string, ttlMs: number): boolean => {
    const at = now();
    pruneSomeEvents.run(at);
    return markStmt.run(platform, eventId, at, at + ttlMs).changes === 1;
  });

  return {
    markEventProcessed: (platform, eventId, ttlMs) => {
      checkId('platform', platform);
      checkId('event id', eventId);
      if (!Number.isFinite(ttlMs) || ttlMs <= 0) {
        throw new HermesError('store_failed', 'dedupe TTL must be a positive number of milliseconds');
      }
      return markTx.immediate(platform, eventId, Math.trunc(ttlMs));
    },
    releaseEvent: (platform, eventId) => {
      checkId('platform', platform);
      checkId('event id', eventId);
      releaseStmt.run(platform, eventId);
    },
    recordDelivery: (input) => {
      checkId('receipt key', input.receiptKey);
      checkId('platform', input.platform);
      checkId('chat id', input.chatId);
      for (const id of input.messageIds) checkId('message id', id);
      return recordTx.immediate(input);
    },
    getDelivery: (receiptKey) => readDelivery(receiptKey),
    prune: (options) => {
      const at = now();
      const retention = options.deliveryRetentionMs ?? DEFAULT_DELIVERY_RETENTION_MS;
      return {
        events: pruneEvents.run(at).changes,
        deliveries: pruneDeliveries.run(at - retention).changes,
      };
    },
  };
}

function checkId(what: string, value: string): void {
  if (typeof value !== 'string' || value.length === 0 || value.length > MAX_ID_LENGTH) {
    throw new HermesError(
      'store_failed',
      `${what} must be a non-empty string of at most ${MAX_ID_LENGTH} characters`,
    );
  }
}
