import type { Logger } from 'pino';
import { HermesError } from '../../errors/hermes-error.js';
import { DEFAULT_DELIVERY_RETENTION_MS, type GatewayStore } from './gateway-store.js';
import { createControlRepo } from './sqlite-control-repo.js';
import { errorText, openSqliteDatabase, type SqliteDatabase } from './sqlite-database.js';
import { createHomeChannelRepo } from './sqlite-home-channel-repo.js';
import { createLedgerRepo } from './sqlite-ledger-repo.js';
import { createMessageIndexer } from './sqlite-message-indexer.js';
import { createMessageRepo } from './sqlite-message-repo.js';
import { createOutboxRepo } from './sqlite-outbox-repo.js';
import { createPairingRepo } from './sqlite-pairing-repo.js';
import { createParkedTurnRepo } from './sqlite-parked-turn-repo.js';
import { createSessionRepo } from './sqlite-session-repo.js';

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
 * The embedded gateway store: one SQLite file in WAL mode. better-sqlite3 is synchronous, so each
 * method runs to completion on the event loop; writes that read first run in IMMEDIATE
 * transactions so a second process on the same file (the CLI, say) cannot interleave.
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
  let closed = false;
  indexer.start(options.searchIndexIntervalMs ?? DEFAULT_SEARCH_INDEX_INTERVAL_MS);

  /** Runs synchronous work as a Promise, turning driver errors into `store_failed`. */
  async function run<T>(what: string, work: () => T): Promise<T> {
    if (closed) throw new HermesError('store_failed', `state store is closed (${what})`);
    try {
      return work();
    } catch (error) {
      if (error instanceof HermesError) throw error;
      throw new HermesError('store_failed', `state store ${what} failed: ${errorText(error)}`, {
        cause: error,
      });
    }
  }

  return {
    path: options.path,
    db,

    getOrCreateSession: (key) => run('getOrCreateSession', () => sessions.getOrCreate(key)),
    getSession: (key) => run('getSession', () => sessions.get(key)),
    rotateSession: (key) => run('rotateSession', () => sessions.rotate(key)),
    updateSession: (key, patch) => run('updateSession', () => sessions.update(key, patch)),
    listSessions: (listOptions = {}) => run('listSessions', () => sessions.list(listOptions)),
    sessionKeyOf: (sessionId) => run('sessionKeyOf', () => sessions.keyOf(sessionId)),

    appendMessages: (sessionId, batch) => run('appendMessages', () => messages.append(sessionId, batch)),
    listMessages: (sessionId, listOptions = {}) =>
      run('listMessages', () => messages.list(sessionId, listOptions)),
    countMessages: (sessionId) => run('countMessages', () => messages.count(sessionId)),
    searchMessages: (query, searchOptions = {}) =>
      run('searchMessages', () => messages.search(query, searchOptions)),

    markEventProcessed: (platform, eventId, ttlMs) =>
      run('markEventProcessed', () => ledger.markEventProcessed(platform, eventId, ttlMs)),
    recordDelivery: (input) => run('recordDelivery', () => ledger.recordDelivery(input)),
    getDelivery: (receiptKey) => run('getDelivery', () => ledger.getDelivery(receiptKey)),

    addPairingCode: (input) => run('addPairingCode', () => pairing.add(input)),
    listPairingCodes: (platform) => run('listPairingCodes', () => pairing.listCodes(platform)),
    consumePairingCode: (platform, code, approvedBy) =>
      run('consumePairingCode', () => pairing.consume(platform, code, approvedBy)),
    clearPairingCodes: (platform) => run('clearPairingCodes', () => pairing.clearCodes(platform)),
    isPairedUser: (platform, userId) => run('isPairedUser', () => pairing.isPaired(platform, userId)),
    listPairedUsers: (platform) => run('listPairedUsers', () => pairing.listUsers(platform)),
    revokePairedUser: (platform, userId) => run('revokePairedUser', () => pairing.revoke(platform, userId)),

    saveParkedTurn: (input) => run('saveParkedTurn', () => parked.save(input)),
    getParkedTurn: (turnId) => run('getParkedTurn', () => parked.get(turnId)),
    takeParkedTurn: (turnId) => run('takeParkedTurn', () => parked.take(turnId)),
    deleteParkedTurn: (turnId) => run('deleteParkedTurn', () => parked.delete(turnId)),
    listParkedTurns: (listOptions = {}) => run('listParkedTurns', () => parked.list(listOptions)),

    saveActionPrompt: (input) => run('saveActionPrompt', () => control.savePrompt(input)),
    getActionPrompt: (promptId) => run('getActionPrompt', () => control.getPrompt(promptId)),
    findActionPromptByRequest: (requestId) =>
      run('findActionPromptByRequest', () => control.findPromptByRequest(requestId)),
    findActionPromptByMessage: (platform, chatId, messageId) =>
      run('findActionPromptByMessage', () => control.findPromptByMessage(platform, chatId, messageId)),
    listActionPrompts: (listOptions = {}) => run('listActionPrompts', () => control.listPrompts(listOptions)),
    resolveActionPrompt: (promptId, resolution) =>
      run('resolveActionPrompt', () => control.resolvePrompt(promptId, resolution)),

    recordDeliveryFailure: (input) => run('recordDeliveryFailure', () => control.recordFailure(input)),
    takeDeliveryFailures: (platform, chatId) =>
      run('takeDeliveryFailures', () => control.takeFailures(platform, chatId)),

    setHomeChannel: (input) => run('setHomeChannel', () => homes.set(input)),
    getHomeChannel: (platform) => run('getHomeChannel', () => homes.get(platform)),

    enqueueOutbox: (input) => run('enqueueOutbox', () => outbox.enqueue(input)),
    getOutbox: (id) => run('getOutbox', () => outbox.get(id)),
    listOutbox: (listOptions) => run('listOutbox', () => outbox.list(listOptions)),
    markOutboxAttempt: (id) => run('markOutboxAttempt', () => outbox.markAttempt(id)),
    completeOutbox: (id, outcome = 'delivered') => run('completeOutbox', () => outbox.complete(id, outcome)),

    prune: (pruneOptions = {}) =>
      run('prune', () => {
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
        };
      }),
    ping: () =>
      run('ping', () => {
        db.prepare('SELECT 1').get();
      }),
    close: async () => {
      if (closed) return;
      closed = true;
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
