import { z } from 'zod';
import { HermesError } from '../../errors/hermes-error.js';
import type { DeliveryInput, DeliveryReceipt, RecordDeliveryResult } from './ledger-store.js';
import type { PgPool } from './pg-database.js';
import { parseRow } from './sqlite-rows.js';
import { checkId, checkTtl } from './store-checks.js';

const deliveryRow = z.object({
  receipt_key: z.string(),
  platform: z.string(),
  chat_id: z.string(),
  message_ids: z.array(z.string()),
  delivered_at: z.number(),
});

/** Expired dedupe rows removed by each `markEventProcessed` call, so the table stays bounded. */
const PRUNE_BATCH = 32;

export interface PgLedgerRepo {
  markEventProcessed(platform: string, eventId: string, ttlMs: number): Promise<boolean>;
  releaseEvent(platform: string, eventId: string): Promise<void>;
  recordDelivery(input: DeliveryInput): Promise<RecordDeliveryResult>;
  getDelivery(receiptKey: string): Promise<DeliveryReceipt | undefined>;
  prune(at: number, deliveriesBefore: number): Promise<{ events: number; deliveries: number }>;
}

/** Inbound dedupe and delivery receipts; each write is one statement, atomic on its own. */
export function createPgLedgerRepo(pool: PgPool, now: () => number): PgLedgerRepo {
  async function readDelivery(receiptKey: string): Promise<DeliveryReceipt | undefined> {
    const result = await pool.query('SELECT * FROM deliveries WHERE receipt_key = $1', [receiptKey]);
    return result.rows[0] === undefined ? undefined : toReceipt(result.rows[0]);
  }

  return {
    markEventProcessed: async (platform, eventId, ttlMs) => {
      checkId('platform', platform);
      checkId('event id', eventId);
      const ttl = checkTtl(ttlMs);
      const at = now();
      await pool.query(
        `DELETE FROM processed_events WHERE ctid IN
           (SELECT ctid FROM processed_events WHERE expires_at <= $1 LIMIT ${PRUNE_BATCH} FOR UPDATE SKIP LOCKED)`,
        [at],
      );
      // Inserts a new id or revives an expired one; a live row makes it a no-op (no row counted).
      const result = await pool.query(
        `INSERT INTO processed_events (platform, event_id, seen_at, expires_at) VALUES ($1, $2, $3, $4)
         ON CONFLICT (platform, event_id) DO UPDATE SET seen_at = excluded.seen_at, expires_at = excluded.expires_at
         WHERE processed_events.expires_at <= excluded.seen_at`,
        [platform, eventId, at, at + ttl],
      );
      return result.rowCount === 1;
    },
    releaseEvent: async (platform, eventId) => {
      checkId('platform', platform);
      checkId('event id', eventId);
      await pool.query('DELETE FROM processed_events WHERE platform = $1 AND event_id = $2', [
        platform,
        eventId,
      ]);
    },
    recordDelivery: async (input) => {
      checkId('receipt key', input.receiptKey);
      checkId('platform', input.platform);
      checkId('chat id', input.chatId);
      for (const id of input.messageIds) checkId('message id', id);
      // One retry covers an earlier receipt pruned between the two statements.
      for (let attempt = 0; ; attempt += 1) {
        const inserted = await pool.query(
          `INSERT INTO deliveries (receipt_key, platform, chat_id, message_ids, delivered_at)
           VALUES ($1, $2, $3, $4, $5) ON CONFLICT (receipt_key) DO NOTHING RETURNING *`,
          [input.receiptKey, input.platform, input.chatId, JSON.stringify([...input.messageIds]), now()],
        );
        if (inserted.rows[0] !== undefined) return { receipt: toReceipt(inserted.rows[0]), created: true };
        const earlier = await readDelivery(input.receiptKey);
        if (earlier !== undefined || attempt > 0) {
          if (earlier === undefined)
            throw new HermesError('store_failed', 'delivery receipt vanished after insert');
          return { receipt: earlier, created: false };
        }
      }
    },
    getDelivery: (receiptKey) => readDelivery(receiptKey),
    prune: async (at, deliveriesBefore) => {
      const events = await pool.query('DELETE FROM processed_events WHERE expires_at <= $1', [at]);
      const deliveries = await pool.query('DELETE FROM deliveries WHERE delivered_at <= $1', [
        deliveriesBefore,
      ]);
      return { events: events.rowCount ?? 0, deliveries: deliveries.rowCount ?? 0 };
    },
  };
}

function toReceipt(row: unknown): DeliveryReceipt {
  const parsed = parseRow(deliveryRow, row, 'delivery');
  return {
    receiptKey: parsed.receipt_key,
    platform: parsed.platform,
    chatId: parsed.chat_id,
    messageIds: parsed.message_ids,
    deliveredAt: parsed.delivered_at,
  };
}
