import type { Logger } from 'pino';
import { HermesError } from '../../errors/hermes-error.js';
import type { GatewayStore } from './gateway-store.js';
import { createControlRepo } from './sqlite-control-repo.js';
import { createCronRepo } from './sqlite-cron-repo.js';
import { errorText, openSqliteDatabase, type SqliteDatabase } from './sqlite-database.js';
import { createHomeChannelRepo } from './sqlite-home-channel-repo.js';
import { createLedgerRepo } from './sqlite-ledger-repo.js';
import { createMessageIndexer } from './sqlite-message-indexer.js';
import { createMessageRepo } from './sqlite-message-repo.js';
import { createOutboxRepo } from './sqlite-outbox-repo.js';
import { createPairingRepo } from './sqlite-pairing-repo.js';
import { createParkedTurnRepo } from './sqlite-parked-turn-repo.js';
import { createSessionRepo } from './sqlite-session-repo.js';
import { createTurnFailureRepo } from './sqlite-turn-failure-repo.js';
import { createWebhookRunRepo } from './sqlite-webhook-run-repo.js';
import { createSqliteWriteBatch } from './sqlite-write-batch.js';
import { DEFAULT_DELIVERY_RETENTION_MS } from './store-upkeep.js';

export interface SqliteGatewayStoreOptions {
  /** `$HERMES_HOME/state.db` in production (main.ts passes it); `:memory:` works for throwaway use. */
  readonly path: string;
  readonly logger: Logger;
  /** The store clock (epoch ms). Defaults to Date.now. */
  readonly now?: () => number;
  /** How long a write waits for another process' lock (ms). Default 5000. */
  readonly busyTimeoutMs?: number;
  /**
   * How often new messages are added to the search index in the background (ms). Default 1000;
   * 0 turns the background catch-up off (every search and `close()` still catch up).
   */
  readonly searchIndexIntervalMs?: number;
}

export const DEFAULT_SEARCH_INDEX_INTERVAL_MS = 1000;

export interface SqliteGatewayStore extends GatewayStore {
  readonly path: string;
  /**
   * The open connection, for stores sharing the file (`createSqliteApprovalStore({ db })`).
   * Owned by this store: closed by `close()`.
   */
  readonly db: SqliteDatabase;
}

/**
 * The embedded gateway store: one SQLite file in WAL mode. better-sqlite3 is synchronous, so reads
 * run to completion on the event loop when called; writes are grouped per event-loop tick into
 * one commit (`createSqliteWriteBatch`) and resolve once it is durable. Writes that read first
 * run in IMMEDIATE transactions so a second process on the same file (the CLI, say) cannot
 * interleave.
 */
export function createSqliteGatewayStore(options: SqliteGatewayStoreOptions): SqliteGatewayStore {
  const now = options.now ?? Date.now;
  const db = openSqliteDatabase({
    path: options.path,
    logger: options.logger,
    ...(options.busyTimeoutMs === undefined ? {} : { busyTimeoutMs: options.busyTimeoutMs }),
  });
  const sessions = createSessionRepo(db, now);
  const indexer = createMessageIndexer(db, options.logger);
  const messages = createMessageRepo(db, now, sessions.touch, indexer);
  const ledger = createLedgerRepo(db, now);
  const pairing = createPairingRepo(db, now);
  const parked = createParkedTurnRepo(db, now);
  const control = createControlRepo(db, now);
  const homes = createHomeChannelRepo(db, now);
  const outbox = createOutboxRepo(db, now);
  const webhookRuns = createWebhookRunRepo(db, now);
  const cron = createCronRepo(db, now);
  const turnFailures = createTurnFailureRepo(db, now);
  let closed = false;
  indexer.start(options.searchIndexIntervalMs ?? DEFAULT_SEARCH_INDEX_INTERVAL_MS);

  const batch = createSqliteWriteBatch(db);

  function storeError(what: string, error: unknown): unknown {
    if (error instanceof HermesError) return error;
    return new HermesError('store_failed', `state store ${what} failed: ${errorText(error)}`, {
      cause: error,
    });
  }

  /** Runs synchronous reads as a Promise, turning driver errors into `store_failed`. */
  async function run<T>(what: string, work: () => T): Promise<T> {
    if (closed) throw new HermesError('store_failed', `state store is closed (${what})`);
    try {
      return work();
    } catch (error) {
      throw storeError(what, error);
    }
  }

  /** Writes go through the group commit: resolved once committed (see createSqliteWriteBatch). */
  async function write<T>(what: string, work: () => T): Promise<T> {
    if (closed) throw new HermesError('store_failed', `state store is closed (${what})`);
    try {
      return await batch.write(work);
    } catch (error) {
      throw storeError(what, error);
    }
  }

  return {
    path: options.path,
    db,

    getOrCreateSession: (key) => write('getOrCreateSession', () => sessions.getOrCreate(key)),
    getSession: (key) => run('getSession', () => sessions.get(key)),
    rotateSession: (key) => write('rotateSession', () => sessions.rotate(key)),
    updateSession: (key, patch) => write('updateSession', () => sessions.update(key, patch)),
    listSessions: (listOptions = {}) => run('listSessions', () => sessions.list(listOptions)),
    sessionKeyOf: (sessionId) => run('sessionKeyOf', () => sessions.keyOf(sessionId)),

    appendMessages: (sessionId, list) => write('appendMessages', () => messages.append(sessionId, list)),
    listMessages: (sessionId, listOptions = {}) =>
      run('listMessages', () => messages.list(sessionId, listOptions)),
    countMessages: (sessionId) => run('countMessages', () => messages.count(sessionId)),
    searchMessages: (query, searchOptions = {}) =>
      run('searchMessages', () => messages.search(query, searchOptions)),

    markEventProcessed: (platform, eventId, ttlMs) =>
      write('markEventProcessed', () => ledger.markEventProcessed(platform, eventId, ttlMs)),
    releaseEvent: (platform, eventId) => write('releaseEvent', () => ledger.releaseEvent(platform, eventId)),
    recordDelivery: (input) => write('recordDelivery', () => ledger.recordDelivery(input)),
    getDelivery: (receiptKey) => run('getDelivery', () => ledger.getDelivery(receiptKey)),

    addPairingCode: (input) => write('addPairingCode', () => pairing.add(input)),
    listPairingCodes: (platform) => run('listPairingCodes', () => pairing.listCodes(platform)),
    consumePairingCode: (platform, code, approvedBy) =>
      write('consumePairingCode', () => pairing.consume(platform, code, approvedBy)),
    clearPairingCodes: (platform) => write('clearPairingCodes', () => pairing.clearCodes(platform)),
    isPairedUser: (platform, userId) => run('isPairedUser', () => pairing.isPaired(platform, userId)),
    listPairedUsers: (platform) => run('listPairedUsers', () => pairing.listUsers(platform)),
    revokePairedUser: (platform, userId) => write('revokePairedUser', () => pairing.revoke(platform, userId)),

    saveParkedTurn: (input) => write('saveParkedTurn', () => parked.save(input)),
    getParkedTurn: (turnId) => run('getParkedTurn', () => parked.get(turnId)),
    takeParkedTurn: (turnId) => write('takeParkedTurn', () => parked.take(turnId)),
    replaceParkedTurn: (turnId, reason, next) =>
      write('replaceParkedTurn', () => parked.replace(turnId, reason, next)),
    deleteParkedTurn: (turnId) => write('deleteParkedTurn', () => parked.delete(turnId)),
    listParkedTurns: (listOptions = {}) => run('listParkedTurns', () => parked.list(listOptions)),

    saveActionPrompt: (input) => write('saveActionPrompt', () => control.savePrompt(input)),
    getActionPrompt: (promptId) => run('getActionPrompt', () => control.getPrompt(promptId)),
    findActionPromptByRequest: (requestId) =>
      run('findActionPromptByRequest', () => control.findPromptByRequest(requestId)),
    findActionPromptByMessage: (platform, chatId, messageId) =>
      run('findActionPromptByMessage', () => control.findPromptByMessage(platform, chatId, messageId)),
    listActionPrompts: (listOptions = {}) => run('listActionPrompts', () => control.listPrompts(listOptions)),
    resolveActionPrompt: (promptId, resolution) =>
      write('resolveActionPrompt', () => control.resolvePrompt(promptId, resolution)),

    recordDeliveryFailure: (input) => write('recordDeliveryFailure', () => control.recordFailure(input)),
    takeDeliveryFailures: (platform, chatId) =>
      write('takeDeliveryFailures', () => control.takeFailures(platform, chatId)),

    setHomeChannel: (input) => write('setHomeChannel', () => homes.set(input)),
    getHomeChannel: (platform) => run('getHomeChannel', () => homes.get(platform)),

    enqueueOutbox: (input) => write('enqueueOutbox', () => outbox.enqueue(input)),
    getOutbox: (id) => run('getOutbox', () => outbox.get(id)),
    listOutbox: (listOptions) => run('listOutbox', () => outbox.list(listOptions)),
    listRecentOutbox: (listOptions) => run('listRecentOutbox', () => outbox.recent(listOptions)),
    markOutboxAttempt: (id) => write('markOutboxAttempt', () => outbox.markAttempt(id)),
    completeOutbox: (id, outcome = 'delivered') =>
      write('completeOutbox', () => outbox.complete(id, outcome)),

    saveWebhookRun: (input) => write('saveWebhookRun', () => webhookRuns.save(input)),
    getWebhookRun: (runId) => run('getWebhookRun', () => webhookRuns.get(runId)),
    findWebhookRunByEvent: (eventId) => run('findWebhookRunByEvent', () => webhookRuns.findByEvent(eventId)),
    updateWebhookRun: (runId, patch) => write('updateWebhookRun', () => webhookRuns.update(runId, patch)),
    claimWebhookDelivery: (runId, leaseUntil) =>
      write('claimWebhookDelivery', () => webhookRuns.claim(runId, leaseUntil)),
    deleteWebhookRun: (runId) => write('deleteWebhookRun', () => webhookRuns.remove(runId)),
    pruneWebhookRuns: (olderThan) => write('pruneWebhookRuns', () => webhookRuns.prune(olderThan)),
    createCronJob: (input) => write('createCronJob', () => cron.create(input)),
    getCronJob: (id) => run('getCronJob', () => cron.get(id)),
    listCronJobs: (listOptions = {}) => run('listCronJobs', () => cron.list(listOptions)),
    updateCronJob: (id, patch) => write('updateCronJob', () => cron.update(id, patch)),
    deleteCronJob: (id) => write('deleteCronJob', () => cron.delete(id)),
    claimCronRun: (jobId, dueAt) => write('claimCronRun', () => cron.claimRun(jobId, dueAt)),

    recordTurnFailure: (input) => write('recordTurnFailure', () => turnFailures.record(input)),
    listTurnFailures: (listOptions = {}) =>
      run('listTurnFailures', () => turnFailures.list(listOptions.limit)),

    prune: (pruneOptions = {}) =>
      write('prune', () => {
        const { events, deliveries } = ledger.prune(pruneOptions);
        const retention = pruneOptions.deliveryRetentionMs ?? DEFAULT_DELIVERY_RETENTION_MS;
        const { actionPrompts, deliveryFailures } = control.prune(now() - retention);
        return {
          events,
          deliveries,
          pairingCodes: pairing.pruneCodes(),
          actionPrompts,
          deliveryFailures,
          outbox: outbox.prune(now() - retention),
          turnFailures: turnFailures.prune(now() - retention),
        };
      }),
    ping: () =>
      run('ping', () => {
        db.prepare('SELECT 1').get();
      }),
    close: async () => {
      if (closed) return;
      closed = true;
      // Writes already accepted are committed (or rejected) before the connection goes.
      batch.flush();
      indexer.stop();
      try {
        indexer.catchUp();
      } catch (error) {
        // Not lost: the next open indexes the rest (on its first search or in the background).
        options.logger.warn({ err: errorText(error) }, 'search index catch-up on close failed');
      }
      // The last connection to close checkpoints the WAL into state.db and removes it.
      db.close();
    },
  };
}
