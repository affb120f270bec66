import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { Config } from '../config/config-schema.js';
import { HermesError } from '../errors/hermes-error.js';
import { createAccessControl } from '../gateway/access/create-access-control.js';
import { createCommandHandler } from '../gateway/commands/create-command-handler.js';
import { type ControlPlane, createControlPlane } from '../gateway/create-control-plane.js';
import { createBullmqCronScheduler } from '../gateway/cron/bullmq-cron-scheduler.js';
import {
  type CronScheduler,
  type CronService,
  createCronService,
  cronSettingsOf,
} from '../gateway/cron/cron-service.js';
import { createLocalCronScheduler } from '../gateway/cron/local-cron-scheduler.js';
import { addDashboardRoutes } from '../gateway/dashboard/register-dashboard.js';
import { createDelivery } from '../gateway/delivery/create-delivery.js';
import type { EventBus } from '../gateway/events/event-bus.js';
import { createMemoryEventBus } from '../gateway/events/memory-event-bus.js';
import { createRedisEventBus } from '../gateway/events/redis-event-bus.js';
import { createTurnEventPublisher } from '../gateway/events/turn-event-publisher.js';
import { acquireHomeLock, type HomeLock } from '../gateway/home-lock.js';
import { createHttpServer, httpAuthOf, type ReadinessCheck } from '../gateway/http/create-http-server.js';
import { createPlatformIngress } from '../gateway/ingress/create-platform-ingress.js';
import { GatewayMetrics } from '../gateway/metrics/gateway-metrics.js';
import { createDeliverToChat } from '../gateway/outbound/deliver-to-chat.js';
import { createTurnEndOutbox } from '../gateway/outbound/turn-end-outbox.js';
import { createTurnQueue } from '../gateway/queue/create-turn-queue.js';
import type { TurnQueue } from '../gateway/queue/turn-queue.js';
import { waitForRedis } from '../gateway/redis-reachable.js';
import type { GatewayStore } from '../gateway/store/gateway-store.js';
import { createSqliteApprovalStore } from '../gateway/store/sqlite-approval-store.js';
import { createTurnRunner, type TurnRunner } from '../gateway/turn/create-turn-runner.js';
import type { SharedFiles } from '../lib/shared-files.js';
import type { PlatformAdapter } from '../platforms/adapter.js';
import type { Ingress } from '../platforms/ingress.js';
import type { Platform, PlatformDefinition, PlatformRoutes, RouteServices } from '../platforms/platform.js';
import { describeMcpState } from '../tools/mcp/create-mcp-manager.js';
import { createToolRuntime, type ToolRuntime } from './create-tool-runtime.js';
import { housekeepingSweep } from './housekeeping-sweep.js';
import { lateSharedFiles } from './late-shared-files.js';
import { openGatewayStore } from './open-gateway-store.js';
import { createPgSharedFiles } from './pg-shared-files.js';
import { PLATFORMS } from './platforms.js';

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
  /**
   * How long an answered approval or question may wait for its resume before the sweep resumes
   * the turn itself (the resume was lost on the way), ms. Default 30 s.
   */
  readonly settledGraceMs?: number;
  /**
   * The platforms to build from the configuration (gateway role only; a worker builds none).
   * Default: the whole list (`src/app/platforms.ts`); each builds only when configured.
   */
  readonly platforms?: readonly PlatformDefinition[];
  /**
   * Ready-made chat adapters (the in-memory test adapter, embedding; gateway role only): each
   * takes the place of the listed platform of the same name. Their routes are mounted too.
   */
  readonly adapters?: readonly PlatformAdapter[];
  /** False leaves the webhook routes to the caller (skips the list's `webhook` platform). */
  readonly webhooks?: boolean;
  /** Embedded mode: between looks for due scheduled tasks, ms. Default 1000. */
  readonly cronTickMs?: number;
}

export interface Gateway {
  readonly config: Config;
  readonly runtime: ToolRuntime;
  readonly store: GatewayStore;
  /** Where the state lives: `$HERMES_HOME/state.db`, or the PostgreSQL URL (password masked). */
  readonly storeLocation: string;
  /** `sqlite` (one machine) or `postgres` (shared state, DATABASE_URL). */
  readonly storeKind: 'sqlite' | 'postgres';
  readonly queue: TurnQueue;
  readonly bus: EventBus;
  readonly runner: TurnRunner;
  readonly metrics: GatewayMetrics;
  /** Scheduled tasks (`cronjob` tool, `/cron`). */
  readonly cron: CronService;
  /** The scheduler firing them: BullMQ job schedulers with Redis, a timer in this process without. */
  readonly cronScheduler: CronScheduler;
  /** The chat control plane; undefined without chat adapters. */
  readonly control: ControlPlane | undefined;
  /** The platforms built for this process (labels for the banner): chat adapters and HTTP ones. */
  readonly platforms: readonly string[];
  /** The narrow ingress platforms' routes get (platforms/ingress.ts). */
  readonly ingress: Ingress;
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
  // Checked before anything is opened: a wrong http.metrics_auth or a half-configured platform
  // stops the start here.
  const httpAuth = options.role === 'gateway' ? httpAuthOf(config, logger) : undefined;
  // Chat attachments go to the shared database too (DATABASE_URL); it is opened further on.
  const sharedFiles = config.database.url === undefined ? undefined : lateSharedFiles();
  const built = options.role === 'gateway' ? buildPlatforms(options, sharedFiles?.files) : [];
  const routes = routesOf(built);
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
    return await assemble(options, { platforms: built, routes, homeLock, httpAuth, sharedFiles });
  } catch (error) {
    homeLock?.release();
    throw error;
  }
}

/**
 * The platforms of the gateway role: the given chat adapters, then the list's chat platforms
 * (those not replaced by a given adapter), then the others, which learn which chat platforms run.
 */
function buildPlatforms(options: CreateGatewayOptions, sharedFiles: SharedFiles | undefined): Platform[] {
  const { config, logger } = options;
  const given = options.adapters ?? [];
  const definitions = (options.platforms ?? PLATFORMS).filter(
    (definition) =>
      !given.some((adapter) => adapter.platform === definition.name) &&
      !(definition.name === 'webhook' && options.webhooks === false),
  );
  const platforms: Platform[] = given.map((adapter) => ({ label: adapter.platform, adapter }));
  const build = (definition: PlatformDefinition) => {
    const chatPlatforms = platforms.flatMap((platform) => platform.adapter?.platform ?? []);
    const platform = definition.fromConfig(config, {
      logger,
      chatPlatforms,
      ...(sharedFiles === undefined ? {} : { sharedFiles }),
    });
    if (platform !== undefined) platforms.push(platform);
  };
  for (const definition of definitions) if (definition.chat) build(definition);
  for (const definition of definitions) if (!definition.chat) build(definition);
  return platforms;
}

/** Prefixes the gateway's own routes use; a platform's routes get one of their own. */
const RESERVED_PREFIXES = ['/healthz', '/readyz', '/metrics'];

/** Every platform's routes (its own and its adapter's), each under a prefix no one else uses. */
function routesOf(platforms: readonly Platform[]): PlatformRoutes[] {
  const routes = platforms.flatMap((platform) => [
    ...(platform.routes !== undefined ? [platform.routes] : []),
    ...(platform.adapter?.routes !== undefined ? [platform.adapter.routes] : []),
  ]);
  const taken = new Set(RESERVED_PREFIXES);
  for (const { prefix } of routes) {
    if (!/^\/[a-z0-9][a-z0-9_-]*$/.test(prefix) || taken.has(prefix)) {
      throw new HermesError(
        'config_invalid',
        `platform route prefix ${JSON.stringify(prefix)} is invalid or taken`,
      );
    }
    taken.add(prefix);
  }
  return routes;
}

/** Mounts each platform's routes under its prefix (checked by `routesOf`). */
function mountRoutes(app: FastifyInstance, routes: readonly PlatformRoutes[], services: RouteServices): void {
  for (const { prefix, register } of routes) {
    void app.register(async (scope) => register(scope, services), { prefix });
  }
}

/** What `createGateway` checked and took before the parts are built. */
interface Prepared {
  readonly platforms: readonly Platform[];
  readonly routes: readonly PlatformRoutes[];
  readonly homeLock: HomeLock | undefined;
  readonly httpAuth: ReturnType<typeof httpAuthOf> | undefined;
  readonly sharedFiles: ReturnType<typeof lateSharedFiles> | undefined;
}

async function assemble(options: CreateGatewayOptions, prepared: Prepared): Promise<Gateway> {
  const { config, logger } = options;
  const { platforms, routes, homeLock, httpAuth } = prepared;
  const adapters = platforms.flatMap((platform) => platform.adapter ?? []);
  const opened = await openGatewayStore(config, logger);
  const store: GatewayStore = opened.store;
  if (opened.kind === 'postgres') prepared.sharedFiles?.bind(createPgSharedFiles(opened.store.pool));
  const cronLogger = logger.child({ component: 'cron' });
  const cron = createCronService(
    {
      store,
      submit: (item) => queue.submit(item),
      settings: cronSettingsOf(config),
      logger: cronLogger,
      now: Date.now,
      presetOf: (platform) =>
        runtime.toolsets.has(`hermes-${platform}`) ? `hermes-${platform}` : 'hermes-cli',
      configuredHome: (platform) =>
        adapters.find((adapter) => adapter.platform === platform)?.homeChannel ??
        configuredHome(config, platform),
    },
    () => cronScheduler,
  );
  let runtime: ToolRuntime;
  try {
    runtime = await createToolRuntime({
      config,
      logger,
      baseEnv: options.baseEnv,
      builtinToolsDir: options.builtinToolsDir,
      // Without Redis there is one process: approvals stay in its SQLite file (on PostgreSQL
      // deployments, which run Redis to scale out, they live in Redis).
      localApprovalStore: () =>
        opened.kind === 'sqlite'
          ? createSqliteApprovalStore(opened.store.db, { logger })
          : createSqliteApprovalStore(join(config.home, 'approvals.db'), { logger }),
      sessionSearch: store,
      cronjobs: cron,
      ...(opened.kind === 'postgres' ? { sharedState: { pool: opened.store.pool } } : {}),
    });
  } catch (error) {
    await store.close();
    throw error;
  }
  const cronScheduler: CronScheduler =
    config.redis.url === undefined
      ? createLocalCronScheduler({
          store,
          fire: (jobId, dueAt) => cron.fire(jobId, dueAt),
          logger: cronLogger,
          now: Date.now,
          ...(options.cronTickMs !== undefined ? { tickMs: options.cronTickMs } : {}),
        })
      : createBullmqCronScheduler({
          url: config.redis.url,
          prefix: config.redis.prefix,
          store,
          fire: (jobId, dueAt) => cron.fire(jobId, dueAt),
          logger: cronLogger,
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
  const publisher = createTurnEventPublisher(bus, logger, store, store);
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
        metrics.observeTurn(durationMs / 1000);
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
    // Informational: where chats and unattended sessions run commands, and why (never blocks readiness).
    {
      name: 'terminal',
      check: async () => ({ ok: true, reason: runtime.terminalPlacement().join('; ') }),
    },
    // Informational too: an MCP server that is down makes its tools unavailable, not the gateway.
    ...runtime.mcp.states().map((state) => ({
      name: `mcp:${state.name}`,
      check: async () => ({ ok: true, reason: describeMcpState(state) }),
    })),
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
      reloadMcp: async () =>
        (await runtime.mcp.reload()).map((state) => `${state.name}: ${describeMcpState(state)}`),
      cron,
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
          answerDelivery: (report) => cron.noteDelivery(report),
        },
      },
      adapters,
    );
  }
  const chatAdapters = new Map(adapters.map((adapter) => [adapter.platform, adapter]));

  const ingress = createPlatformIngress({
    store,
    queue,
    bus,
    unavailableReason,
    prompts: {
      store,
      approvals: runtime.approvalGate,
      runner,
      queue,
      logger,
      now: Date.now,
      adapters: chatAdapters,
    },
  });
  let app: FastifyInstance | undefined;
  if (options.role === 'gateway') {
    const auth = httpAuth ?? httpAuthOf(config, logger);
    app = createHttpServer({ logger, metrics, readiness, auth });
    addDashboardRoutes(app, {
      tokenSet: auth.dashboardToken !== undefined,
      store,
      queue,
      ingress,
      readiness,
      metrics,
      now: Date.now,
    });
    mountRoutes(app, routes, {
      ingress,
      deliverToChat:
        adapters.length > 0
          ? createDeliverToChat({ adapters: chatAdapters, delivery, store, now: Date.now })
          : undefined,
      durable: { webhookRuns: store, turnEnds: createTurnEndOutbox(store) },
    });
  }

  const timers: NodeJS.Timeout[] = [];
  const sweep = () =>
    housekeepingSweep({
      store,
      runner,
      approvals: runtime.approvalGate,
      logger,
      now: Date.now,
      settledGraceMs: options.settledGraceMs ?? 30_000,
    });

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
    // Workers also run the scheduled tasks that come due.
    await cronScheduler.start({ work: true });
  }
  return {
    config,
    runtime,
    store,
    storeLocation: opened.location,
    storeKind: opened.kind,
    queue,
    bus,
    runner,
    metrics,
    cron,
    cronScheduler,
    control,
    platforms: platforms.map((platform) => platform.label),
    ingress,
    app,
    unavailableReason,
    async start(startOptions = {}) {
      // Commands left running by a gateway or worker process that died are killed first (and
      // then every few seconds), before a retry of their turn can start them again.
      runtime.commandGroups.start();
      // MCP servers connect in the background: a slow or dead one never holds up the start.
      runtime.mcp.start();
      if (startOptions.workers !== false) await startWorkers();
      await cronScheduler.start({ work: false });
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
        await cronScheduler.close();
        await control?.stop();
        // Stop intake first; requests already waiting for an answer get it while turns finish.
        const httpClosed = app
          ?.close()
          .catch((e: Error) => logger.warn({ err: e.message }, 'http close failed'));
        await queue.close({ graceMs: config.queue.shutdown_grace_ms });
        if (httpClosed !== undefined) {
          const settled = await Promise.race([
            httpClosed.then(() => true),
            delay(2_000, false, { ref: false }),
          ]);
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

/** A platform's home channel from its settings (`platforms.<name>.home_channel`), if it has one. */
function configuredHome(config: Config, platform: string): { readonly chatId: string } | undefined {
  const section: unknown = (config.platforms as Readonly<Record<string, unknown>>)[platform];
  if (typeof section !== 'object' || section === null) return undefined;
  const home = (section as { home_channel?: unknown }).home_channel;
  return typeof home === 'string' && home !== '' ? { chatId: home } : undefined;
}
