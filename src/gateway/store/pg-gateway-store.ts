import type { Logger } from 'pino';
import { HermesError } from '../../errors/hermes-error.js';
import type { GatewayStore } from './gateway-store.js';
import { createPgControlRepo } from './pg-control-repo.js';
import { createPgCronRepo } from './pg-cron-repo.js';
import { openPgPool, type PgPool, redactDatabaseUrl } from './pg-database.js';
import { createPgHomeChannelRepo } from './pg-home-channel-repo.js';
import { createPgLedgerRepo } from './pg-ledger-repo.js';
import { createPgMessageRepo } from './pg-message-repo.js';
import { runPgMigrations } from './pg-migrations.js';
import { createPgOutboxRepo } from './pg-outbox-repo.js';
import { createPgPairingRepo } from './pg-pairing-repo.js';
import { createPgParkedTurnRepo } from './pg-parked-turn-repo.js';
import { createPgSessionRepo } from './pg-session-repo.js';
import { createPgTurnFailureRepo } from './pg-turn-failure-repo.js';
import { createPgWebhookRunRepo } from './pg-webhook-run-repo.js';
import { errorText } from './sqlite-database.js';
import { DEFAULT_DELIVERY_RETENTION_MS } from './store-upkeep.js';

export interface PgGatewayStoreOptions {
  /** DATABASE_URL. */
  readonly url: string;
  readonly logger: Logger;
  /** Schema holding the tables (created when missing); default `public`. */
  readonly schema?: string;
  /** Pool size; default 10. */
  readonly poolMax?: number;
  /** The store clock (epoch ms). Defaults to Date.now. */
  readonly now?: () => number;
}

export interface PgGatewayStore extends GatewayStore {
  /** The URL with its password masked (banner, doctor). */
  readonly location: string;
  readonly schema: string;
  /** The pool, for stores sharing the database; owned by this store (closed by `close()`). */
  readonly pool: PgPool;
}

/**
 * The shared gateway store on PostgreSQL: every worker on every machine sees the same sessions,
 * transcripts, receipts, pairing, parked turns, prompts and outbox. The store interfaces are
 * asynchronous already, so each call is one statement on the pool, or one transaction on one
 * connection where a call reads before it writes. The schema is migrated before this resolves
 * (under an advisory lock: the first process migrates, the others wait and find it done).
 */
export async function createPgGatewayStore(options: PgGatewayStoreOptions): Promise<PgGatewayStore> {
  const now = options.now ?? Date.now;
  const schema = options.schema ?? 'public';
  const location = redactDatabaseUrl(options.url);
  const pool = openPgPool({
    url: options.url,
    logger: options.logger,
    schema,
    ...(options.poolMax === undefined ? {} : { poolMax: options.poolMax }),
  });
  try {
    const applied = await runPgMigrations(pool, schema, options.logger);
    options.logger.info({ database: location, schema, migrated: applied.length }, 'state database open');
  } catch (error) {
    await pool.end().catch(() => undefined);
    if (error instanceof HermesError) throw error;
    throw new HermesError('store_failed', `cannot open state database ${location}: ${errorText(error)}`, {
      cause: error,
    });
  }
  const sessions = createPgSessionRepo(pool, now);
  const messages = createPgMessageRepo(pool, now);
  const ledger = createPgLedgerRepo(pool, now);
  const pairing = createPgPairingRepo(pool, now);
  const parked = createPgParkedTurnRepo(pool, now);
  const control = createPgControlRepo(pool, now);
  const homes = createPgHomeChannelRepo(pool, now);
  const outbox = createPgOutboxRepo(pool, now);
  const webhookRuns = createPgWebhookRunRepo(pool, now);
  const cron = createPgCronRepo(pool, now);
  const turnFailures = createPgTurnFailureRepo(pool, now);
  let closed = false;
  let closing: Promise<void> | undefined;

  /** Runs one store call, turning driver errors into `store_failed`. */
  async function run<T>(what: string, work: () => Promise<T>): Promise<T> {
    if (closed) throw new HermesError('store_failed', `state store is closed (${what})`);
    try {
      return await work();
    } catch (error) {
      if (error instanceof HermesError) throw error;
      throw new HermesError('store_failed', `state store ${what} failed: ${errorText(error)}`, {
        cause: error,
      });
    }
  }

  return {
    location,
    schema,
    pool,

    getOrCreateSession: (key) => run('getOrCreateSession', () => sessions.getOrCreate(key)),
    getSession: (key) => run('getSession', () => sessions.get(key)),
    rotateSession: (key) => run('rotateSession', () => sessions.rotate(key)),
    updateSession: (key, patch) => run('updateSession', () => sessions.update(key, patch)),
    listSessions: (listOptions = {}) => run('listSessions', () => sessions.list(listOptions)),
    sessionKeyOf: (sessionId) => run('sessionKeyOf', () => sessions.keyOf(sessionId)),

    appendMessages: (sessionId, list) => run('appendMessages', () => messages.append(sessionId, list)),
    listMessages: (sessionId, listOptions = {}) =>
      run('listMessages', () => messages.list(sessionId, listOptions)),
    countMessages: (sessionId) => run('countMessages', () => messages.count(sessionId)),
    searchMessages: (query, searchOptions = {}) =>
      run('searchMessages', () => messages.search(query, searchOptions)),

    markEventProcessed: (platform, eventId, ttlMs) =>
      run('markEventProcessed', () => ledger.markEventProcessed(platform, eventId, ttlMs)),
    releaseEvent: (platform, eventId) => run('releaseEvent', () => ledger.releaseEvent(platform, eventId)),
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
    replaceParkedTurn: (turnId, reason, next) =>
      run('replaceParkedTurn', () => parked.replace(turnId, reason, next)),
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
    listRecentOutbox: (listOptions) => run('listRecentOutbox', () => outbox.recent(listOptions)),
    markOutboxAttempt: (id) => run('markOutboxAttempt', () => outbox.markAttempt(id)),
    completeOutbox: (id, outcome = 'delivered') => run('completeOutbox', () => outbox.complete(id, outcome)),

    saveWebhookRun: (input) => run('saveWebhookRun', () => webhookRuns.save(input)),
    getWebhookRun: (runId) => run('getWebhookRun', () => webhookRuns.get(runId)),
    findWebhookRunByEvent: (eventId) => run('findWebhookRunByEvent', () => webhookRuns.findByEvent(eventId)),
    updateWebhookRun: (runId, patch) => run('updateWebhookRun', () => webhookRuns.update(runId, patch)),
    claimWebhookDelivery: (runId, leaseUntil) =>
      run('claimWebhookDelivery', () => webhookRuns.claim(runId, leaseUntil)),
    deleteWebhookRun: (runId) => run('deleteWebhookRun', () => webhookRuns.remove(runId)),
    pruneWebhookRuns: (olderThan) => run('pruneWebhookRuns', () => webhookRuns.prune(olderThan)),

    createCronJob: (input) => run('createCronJob', () => cron.create(input)),
    getCronJob: (id) => run('getCronJob', () => cron.get(id)),
    listCronJobs: (listOptions = {}) => run('listCronJobs', () => cron.list(listOptions)),
    updateCronJob: (id, patch) => run('updateCronJob', () => cron.update(id, patch)),
    deleteCronJob: (id) => run('deleteCronJob', () => cron.delete(id)),
    claimCronRun: (jobId, dueAt) => run('claimCronRun', () => cron.claimRun(jobId, dueAt)),

    recordTurnFailure: (input) => run('recordTurnFailure', () => turnFailures.record(input)),
    listTurnFailures: (listOptions = {}) =>
      run('listTurnFailures', () => turnFailures.list(listOptions.limit)),

    prune: (pruneOptions = {}) =>
      run('prune', async () => {
        const at = now();
        const before = at - (pruneOptions.deliveryRetentionMs ?? DEFAULT_DELIVERY_RETENTION_MS);
        const { events, deliveries } = await ledger.prune(at, before);
        const { actionPrompts, deliveryFailures } = await control.prune(before);
        return {
          events,
          deliveries,
          pairingCodes: await pairing.pruneCodes(),
          actionPrompts,
          deliveryFailures,
          outbox: await outbox.prune(before),
          turnFailures: await turnFailures.prune(before),
        };
      }),
    ping: () =>
      run('ping', async () => {
        await pool.query('SELECT 1');
      }),
    close: () => {
      closed = true;
      closing ??= pool.end().catch((error: unknown) => {
        options.logger.warn({ err: errorText(error) }, 'postgres pool close failed');
      });
      return closing;
    },
  };
}
