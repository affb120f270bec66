import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { Config } from '../config/config-schema.js';
import { HermesError } from '../errors/hermes-error.js';
import { isLoopbackHost } from '../lib/bearer-auth.js';
import type { PlatformAdapter } from '../platforms/adapter.js';
import { registerApiServer } from '../platforms/api-server/register-api-server.js';
import { registerWebhookPlatform } from '../platforms/webhook/register-webhook-platform.js';
import { validateWebhookRoutes } from '../platforms/webhook/validate-webhook-routes.js';
import { createToolRuntime, type ToolRuntime } from '../runtime/create-tool-runtime.js';
import { createAccessControl } from './access/create-access-control.js';
import { createCommandHandler } from './commands/create-command-handler.js';
import { type ControlPlane, createControlPlane } from './control/create-control-plane.js';
import { createDelivery } from './delivery/create-delivery.js';
import type { EventBus } from './events/event-bus.js';
import { createMemoryEventBus } from './events/memory-event-bus.js';
import { createRedisEventBus } from './events/redis-event-bus.js';
import { createTurnEventPublisher } from './events/turn-event-publisher.js';
import { acquireHomeLock, type HomeLock } from './home-lock.js';
import { createHttpServer, httpAuthOf, type ReadinessCheck } from './http/create-http-server.js';
import { GatewayMetrics } from './metrics/gateway-metrics.js';
import { createTurnQueue } from './queue/create-turn-queue.js';
import type { TurnQueue } from './queue/turn-queue.js';
import { waitForRedis } from './redis-reachable.js';
import { createSqliteApprovalStore } from './store/sqlite-approval-store.js';
import { createSqliteGatewayStore, type SqliteGatewayStore } from './store/sqlite-gateway-store.js';
import { createTurnRunner, type TurnRunner } from './turn/create-turn-runner.js';

const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());

export type GatewayRole = 'gateway' | 'worker';

export interface CreateGatewayOptions {
  readonly config: Config;
  readonly logger: Logger;
  readonly baseEnv: Readonly<Record<string, string | undefined>>;
  readonly builtinToolsDir: string;
  /** `gateway`: HTTP server, platforms and workers; `worker`: workers only (needs Redis). */
  readonly role: GatewayRole;
  /** Interval of the housekeeping sweep (expired approvals, pruning), ms. Default 15 s. */
  readonly sweepIntervalMs?: number;
  /** Chat platforms to run (gateway role only): real adapters, or the in-memory test adapter. */
  readonly adapters?: readonly PlatformAdapter[];
  /** False leaves the webhook routes to the caller (embedding, tests with their own wiring). */
  readonly webhooks?: boolean;
}

export interface Gateway {
  readonly config: Config;
  readonly runtime: ToolRuntime;
  readonly store: SqliteGatewayStore;
  readonly queue: TurnQueue;
  readonly bus: EventBus;
  readonly runner: TurnRunner;
  readonly metrics: GatewayMetrics;
  /** The chat control plane; undefined without chat adapters. */
  readonly control: ControlPlane | undefined;
  /** Undefined for a worker. */
  readonly app: FastifyInstance | undefined;
  /**
   * Starts workers (unless `workers: false`) and, for the gateway role, listens; resolves to the
   * HTTP address.
   */
  start(options?: { readonly workers?: boolean }): Promise<string | undefined>;
  /** Starts this process' workers (once); `start()` does it unless told not to. */
  startWorkers(): Promise<void>;
  /** Why turns cannot be answered right now (no model), or undefined. */
  unavailableReason(): string | undefined;
  /** Stops intake, lets running turns finish (then aborts them), closes everything. Idempotent. */
  close(): Promise<void>;
}

/** Builds the daemon from its parts. Nothing listens or runs until `start()`. */
export async function createGateway(options: CreateGatewayOptions): Promise<Gateway> {
  const { config, logger } = options;
  if (options.role === 'worker' && config.redis.url === undefined) {
    throw new HermesError(
      'config_invalid',
      'hermes-gateway worker needs REDIS_URL: workers share the queue through Redis (without it, `start` runs everything in one process)',
    );
  }
  const api = config.platforms.api_server;
  if (
    options.role === 'gateway' &&
    api.enabled &&
    api.key === undefined &&
    !isLoopbackHost(config.http.host)
  ) {
    throw new HermesError(
      'config_invalid',
      `the API server refuses to listen on ${config.http.host} without a key: set API_SERVER_KEY, or bind HERMES_HTTP_HOST to 127.0.0.1`,
    );
  }
  // Checked before anything is opened: a wrong http.metrics_auth stops the start here.
  const httpAuth = options.role === 'gateway' ? httpAuthOf(config, logger) : undefined;
  const adapters = options.role === 'gateway' ? (options.adapters ?? []) : [];
  const webhooks = options.role === 'gateway' && options.webhooks !== false;
  if (webhooks) validateWebhookRoutes(config, { canDeliverToChat: adapters.length > 0 });
  mkdirSync(config.home, { recursive: true, mode: 0o700 });
  if (config.redis.url !== undefined) {
    await waitForRedis(config.redis.url, { timeoutMs: config.redis.connect_timeout_ms });
  }
  // The embedded queue's session locks live in this process: one such gateway per home.
  const homeLock =
    config.redis.url === undefined
      ? acquireHomeLock(config.home, {
          command: `hermes-gateway ${options.role === 'gateway' ? 'start' : 'worker'}`,
        })
      : undefined;
  try {
    return await assemble(options, { adapters, webhooks, homeLock, httpAuth });
  } catch (error) {
    homeLock?.release();
    throw error;
  }
}

/** What `createGateway` checked and took before the parts are built. */
interface Prepared {
  readonly adapters: readonly PlatformAdapter[];
  readonly webhooks: boolean;
  readonly homeLock: HomeLock | undefined;
  readonly httpAuth: ReturnType<typeof httpAuthOf> | undefined;
}

async function assemble(options: CreateGatewayOptions, prepared: Prepared): Promise<Gateway> {
  const { config, logger } = options;
  const { adapters, webhooks, homeLock, httpAuth } = prepared;
  const api = config.platforms.api_server;
  const store = createSqliteGatewayStore({ path: join(config.home, 'state.db'), logger });
  const runtime = await createToolRuntime({
    config,
    logger,
    baseEnv: options.baseEnv,
    builtinToolsDir: options.builtinToolsDir,
    localApprovalStore: () => createSqliteApprovalStore(store.db, { logger }),
    sessionSearch: store,
  });
  const bus =
    config.redis.url === undefined
      ? createMemoryEventBus()
      : createRedisEventBus({ url: config.redis.url, logger, prefix: `${config.redis.prefix}:events:` });
  const queue = createTurnQueue({
    logger,
    redis: config.redis.url,
    busyInputMode: config.display.busy_input_mode,
    maxAttempts: config.queue.max_attempts,
    shutdownGraceMs: config.queue.shutdown_grace_ms,
    bullmq: {
      prefix: config.redis.prefix,
      lockDurationMs: config.queue.lock_duration_ms,
      stalledIntervalMs: config.queue.stalled_interval_ms,
      localFirst: config.queue.local_first,
    },
  });
  const metrics = new GatewayMetrics({
    queueDepth: () => queue.depth(),
    pendingApprovals: async () =>
      (await store.listParkedTurns()).filter((t) => t.reason === 'approval').length,
  });
  const publisher = createTurnEventPublisher(bus, logger, store);
  const runner = createTurnRunner({
    config,
    logger,
    store,
    registry: runtime.registry,
    toolsets: runtime.toolsets,
    events: publisher.events,
    approvals: runtime.approvals,
    tasks: runtime.tasks,
    submit: (item) => queue.submit(item),
    observer: {
      turnEnded: ({ outcome, failureCode, durationMs }) => {
        metrics.turns.inc({
          outcome: outcome === 'failed' && failureCode === 'interrupted' ? 'interrupted' : outcome,
        });
        metrics.turnSeconds.observe(durationMs / 1000);
      },
      modelCall: ({ durationMs }) => metrics.modelSeconds.observe(durationMs / 1000),
    },
  });

  const unavailableReason = (): string | undefined => {
    if (config.model.name === undefined) {
      return 'No model is configured, so the gateway cannot answer yet: set HERMES_MODEL (and OPENAI_BASE_URL or OPENAI_API_KEY for the endpoint), then restart.';
    }
    if (config.model.base_url === undefined && config.model.api_key === undefined) {
      return `Model ${config.model.name} has no endpoint: set OPENAI_BASE_URL (any OpenAI-compatible server) or OPENAI_API_KEY, then restart.`;
    }
    return undefined;
  };

  const readiness = (): ReadinessCheck[] => [
    {
      name: 'store',
      check: async () => {
        await store.ping();
        return { ok: true };
      },
    },
    { name: 'queue', check: () => queue.health() },
    ...adapters.map((adapter) => ({ name: `platform:${adapter.platform}`, check: () => adapter.health() })),
    {
      name: 'model',
      check: async () => {
        const reason = unavailableReason();
        return reason === undefined ? { ok: true } : { ok: false, reason };
      },
    },
  ];

  const delivery = createDelivery({ store, logger });
  let control: ControlPlane | undefined;
  if (adapters.length > 0) {
    const access = createAccessControl({ config, store, logger });
    const commands = createCommandHandler({
      config,
      logger,
      store,
      queue,
      approvals: runtime.approvalGate,
      toolsets: runtime.toolsets,
      resumeTurn: ({ requestId, decision }) =>
        control?.resumeApproval(requestId, decision) ?? Promise.resolve(),
      approvePairing: (platform, code, approvedBy) => access.approveCode(platform, code, approvedBy),
    });
    control = createControlPlane(
      {
        config,
        logger,
        store,
        queue,
        bus,
        runner,
        approvals: runtime.approvalGate,
        access,
        commands,
        delivery,
        toolsets: runtime.toolsets,
        now: Date.now,
        observer: {
          inbound: (platform, status) => metrics.inbound.inc({ platform, status }),
          deliveryFailed: (platform) => metrics.deliveriesFailed.inc({ platform }),
        },
      },
      adapters,
    );
  }
  const chatAdapters = new Map(adapters.map((adapter) => [adapter.platform, adapter]));

  let app: FastifyInstance | undefined;
  if (options.role === 'gateway') {
    app = createHttpServer({ logger, metrics, readiness, auth: httpAuth ?? httpAuthOf(config, logger) });
    if (api.enabled) {
      registerApiServer(app, {
        config,
        logger,
        store,
        submit: (item) => queue.submit(item),
        bus,
        unavailableReason,
      });
    }
    if (webhooks)
      registerWebhookPlatform(app, {
        config,
        logger,
        store,
        submit: (item) => queue.submit(item),
        bus,
        unavailableReason,
        ...(adapters.length > 0
          ? {
              deliverToChat: async (platform: string, chatId: string, text: string) => {
                const adapter = chatAdapters.get(platform);
                if (adapter === undefined) throw new Error(`no ${platform} platform is running`);
                // `chat_id: home` is the chat someone made home with /sethome (looked up per delivery),
                // else the one configured (DISCORD_HOME_CHANNEL).
                let to: { chatId: string; threadId?: string } = { chatId };
                if (chatId === 'home') {
                  const configured =
                    platform === 'discord' ? config.platforms.discord.home_channel : undefined;
                  const home =
                    (await store.getHomeChannel(platform)) ??
                    (configured !== undefined ? { chatId: configured, threadId: undefined } : undefined);
                  if (home === undefined) {
                    throw new Error(
                      `no home channel is set for ${platform}: send /sethome in the chat that should get these messages`,
                    );
                  }
                  to =
                    home.threadId === undefined
                      ? { chatId: home.chatId }
                      : { chatId: home.chatId, threadId: home.threadId };
                }
                const result = await delivery.deliverText({
                  adapter,
                  to,
                  sessionKey: `webhook-delivery:${platform}:${to.chatId}`,
                  receiptKey: `webhook:${platform}:${to.chatId}:${Date.now()}`,
                  text,
                });
                if (result.status === 'failed') throw new Error(result.error);
              },
            }
          : {}),
      });
  }

  const timers: NodeJS.Timeout[] = [];
  async function sweep(): Promise<void> {
    try {
      for (const parked of await store.listParkedTurns({ expiredBy: Date.now() })) {
        await runner.resume({ turnId: parked.turnId });
      }
      await store.prune();
    } catch (error) {
      logger.warn({ err: (error as Error).message }, 'housekeeping sweep failed');
    }
  }

  let closing: Promise<void> | undefined;
  let workersStarted = false;
  async function startWorkers(): Promise<void> {
    if (workersStarted) return;
    workersStarted = true;
    await queue.startWorkers(runner.handle, {
      concurrency: config.queue.concurrency,
      onFailed: async (sessionKey, items, error) => {
        logger.error(
          { sessionKey, items: items.length, err: (error as Error)?.message },
          'turn given up after retries',
        );
        await publisher.givenUp(
          sessionKey,
          items,
          'Sorry — this message could not be processed after several attempts. Please try again.',
        );
      },
    });
  }
  return {
    config,
    runtime,
    store,
    queue,
    bus,
    runner,
    metrics,
    control,
    app,
    unavailableReason,
    async start(startOptions = {}) {
      // Commands left running by a gateway or worker process that died are killed first (and
      // then every few seconds), before a retry of their turn can start them again.
      runtime.commandGroups.start();
      if (startOptions.workers !== false) await startWorkers();
      await control?.start();
      const timer = setInterval(() => void sweep(), options.sweepIntervalMs ?? 15_000);
      timer.unref();
      timers.push(timer);
      if (app === undefined) return undefined;
      try {
        return await app.listen({ host: config.http.host, port: config.http.port });
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error;
        throw new HermesError(
          'address_in_use',
          `${config.http.host}:${config.http.port} is already in use (another hermes-gateway, or another server): ` +
            'stop it, or pick a free port with HERMES_HTTP_PORT (http.port in config.yaml)',
          { cause: error },
        );
      }
    },
    startWorkers,
    close() {
      closing ??= (async () => {
        for (const timer of timers) clearInterval(timer);
        await control?.stop();
        // Stop intake first; requests already waiting for an answer get it while turns finish.
        const httpClosed = app
          ?.close()
          .catch((e: Error) => logger.warn({ err: e.message }, 'http close failed'));
        await queue.close({ graceMs: config.queue.shutdown_grace_ms });
        if (httpClosed !== undefined) {
          const settled = await Promise.race([httpClosed.then(() => true), delay(2_000).then(() => false)]);
          if (!settled) app?.server.closeAllConnections();
          await httpClosed;
        }
        await bus.close();
        await runtime.close();
        await store.close();
        homeLock?.release();
      })();
      return closing;
    },
  };
}
