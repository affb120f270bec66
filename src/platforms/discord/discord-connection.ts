import { type Client, Events } from 'discord.js';
import type { Logger } from 'pino';
import { backoffDelay } from '../../lib/backoff-delay.js';
import type { AdapterHealth } from '../adapter.js';
import { errorMessage, isTokenRejected } from './discord-errors.js';

/** Gateway close codes discord.js does not recover from (it emits shardDisconnect and stops). */
const CLOSE_REASONS: Readonly<Record<number, string>> = {
  4004: 'Discord rejected the bot token (gateway close 4004): check DISCORD_BOT_TOKEN and restart',
  4010: 'Discord refused the shard (gateway close 4010)',
  4011: 'Discord requires sharding for this bot (gateway close 4011)',
  4012: 'Discord refused the gateway API version (gateway close 4012)',
  4013: 'Discord refused the requested intents (gateway close 4013)',
  4014: 'Discord refused a privileged intent (gateway close 4014): enable the Message Content intent for the bot in the developer portal',
};
const MAX_BACKOFF_MS = 300_000;

type Phase = 'idle' | 'connecting' | 'ready' | 'reconnecting' | 'waiting' | 'fatal' | 'stopped';

export interface DiscordConnectionOptions {
  readonly logger: Logger;
  readonly token: string;
  /** A new client with the adapter's own listeners attached; the connection adds its own. */
  readonly buildClient: () => Client;
  /** Called on every READY (first connect and each fresh session). */
  readonly onReady: (client: Client) => void;
  /** Milliseconds the connection may stay down before it is replaced by a fresh one. */
  readonly reconnectAfterMs: number;
  /** First pause before a fresh connection (doubles per failure up to 5 minutes). */
  readonly backoffMs: number;
  /** How long `start` waits for the first READY before it returns anyway. */
  readonly startWaitMs: number;
  readonly now: () => number;
}

export interface DiscordConnection {
  /** Connects; resolves on READY, on a failure, or after `startWaitMs` — never throws. */
  start(): Promise<void>;
  stop(): Promise<void>;
  health(): AdapterHealth;
  ready(): boolean;
  /** The live client (events of any other one are stale: it was replaced or stopped). */
  client(): Client | undefined;
  /** Discord refused the token (a REST 401): stop for good and say so in health. */
  fatal(reason: string): void;
}

/**
 * One gateway connection kept alive: discord.js resumes after drops and zombie sockets itself;
 * this adds what it does not do — a fresh connection with growing pauses when the old one stays
 * down (or login fails), a clear stop on a rejected token, and health from the shard events
 * (not `client.isReady()`, which stays true after a fatal close). Nothing here ever throws into
 * the process: client `error` events are logged.
 */
export function createDiscordConnection(options: DiscordConnectionOptions): DiscordConnection {
  const { logger, token, now } = options;
  let phase: Phase = 'idle';
  /** When the current phase began (stall detection). */
  let since = now();
  /** When the gateway was last seen working, or the start (what health reports). */
  let downSince = now();
  let lastError: string | undefined;
  let fatalReason: string | undefined;
  let client: Client | undefined;
  let failures = 0;
  let watchdog: NodeJS.Timeout | undefined;
  let pause: { timer: NodeJS.Timeout; resolve: () => void } | undefined;
  let settleStart: (() => void) | undefined;

  function enter(next: Phase): void {
    if (phase === next || phase === 'stopped' || phase === 'fatal') return;
    if (phase === 'ready' || phase === 'idle') downSince = now();
    phase = next;
    since = now();
  }

  function settle(): void {
    settleStart?.();
    settleStart = undefined;
  }

  async function drop(current: Client | undefined): Promise<void> {
    if (current === undefined) return;
    if (client === current) client = undefined;
    try {
      await current.destroy();
    } catch (error) {
      logger.debug({ err: errorMessage(error, token) }, 'discord client destroy failed');
    }
  }

  function fatal(reason: string): void {
    if (phase === 'fatal' || phase === 'stopped') return;
    logger.error({ reason }, 'discord stopped: it cannot connect until the configuration is fixed');
    fatalReason = reason;
    phase = 'fatal';
    since = now();
    settle();
    void drop(client);
  }

  /** Replaces the current client after a pause that grows with each failure in a row. */
  function replace(reason: string): void {
    if (phase === 'stopped' || phase === 'fatal' || phase === 'waiting') return;
    const old = client;
    failures += 1;
    const full = backoffDelay(failures, options.backoffMs, MAX_BACKOFF_MS);
    const delay = Math.round(full / 2 + (full / 2) * Math.random());
    logger.warn({ reason, retryInMs: delay, attempt: failures }, 'discord connection replaced');
    lastError = reason;
    enter('waiting');
    settle();
    void drop(old);
    const timer = setTimeout(() => {
      pause = undefined;
      if (phase === 'waiting') void connect();
    }, delay);
    timer.unref();
    pause = { timer, resolve: () => clearTimeout(timer) };
  }

  function watch(current: Client): void {
    current.on(Events.Error, (error) => {
      lastError = errorMessage(error, token);
      logger.warn({ err: lastError }, 'discord client error');
    });
    current.on(Events.ShardError, (error) => {
      if (client !== current) return;
      lastError = errorMessage(error, token);
      logger.debug({ err: lastError }, 'discord gateway connection error (discord.js retries)');
    });
    current.on(Events.ShardReady, () => {
      if (client !== current) return;
      failures = 0;
      lastError = undefined;
      enter('ready');
      logger.info({ bot: current.user?.tag }, 'discord connected');
      settle();
      options.onReady(current);
    });
    current.on(Events.ShardResume, () => {
      if (client !== current) return;
      failures = 0;
      enter('ready');
      logger.info('discord gateway session resumed');
    });
    current.on(Events.ShardReconnecting, () => {
      if (client !== current) return;
      if (phase === 'ready') logger.warn('discord gateway connection lost; discord.js is reconnecting');
      enter('reconnecting');
    });
    current.on(Events.ShardDisconnect, (event) => {
      if (client !== current) return;
      const reason = CLOSE_REASONS[event.code] ?? `Discord closed the gateway with code ${event.code}`;
      if (event.code === 4004) fatal(reason);
      else replace(reason);
    });
  }

  async function connect(): Promise<void> {
    if (phase === 'stopped' || phase === 'fatal') return;
    const current = options.buildClient();
    client = current;
    watch(current);
    enter(phase === 'idle' || phase === 'waiting' ? 'connecting' : 'reconnecting');
    try {
      await current.login(token);
    } catch (error) {
      if (client !== current) return;
      const reason = errorMessage(error, token);
      if (isTokenRejected(error))
        fatal(`Discord rejected the bot token (401): check DISCORD_BOT_TOKEN and restart (${reason})`);
      else replace(`login failed: ${reason}`);
    }
  }

  function checkStall(): void {
    if ((phase === 'connecting' || phase === 'reconnecting') && now() - since > options.reconnectAfterMs) {
      replace(
        `no gateway session for ${Math.round((now() - since) / 1000)} s${lastError ? ` (${lastError})` : ''}`,
      );
    }
  }

  return {
    async start() {
      if (phase !== 'idle') return;
      const first = new Promise<void>((resolve) => {
        settleStart = resolve;
      });
      watchdog = setInterval(
        checkStall,
        Math.max(250, Math.min(5_000, Math.floor(options.reconnectAfterMs / 4))),
      );
      watchdog.unref();
      void connect();
      const timer = setTimeout(settle, options.startWaitMs);
      timer.unref();
      await first;
      clearTimeout(timer);
    },
    async stop() {
      if (phase === 'stopped') return;
      phase = 'stopped';
      settle();
      if (watchdog !== undefined) clearInterval(watchdog);
      pause?.resolve();
      await drop(client);
    },
    health() {
      const seconds = Math.round((now() - downSince) / 1000);
      const detail = lastError !== undefined ? ` (last error: ${lastError})` : '';
      switch (phase) {
        case 'ready':
          return { ok: true };
        case 'idle':
          return { ok: false, reason: 'not started' };
        case 'stopped':
          return { ok: false, reason: 'stopped' };
        case 'fatal':
          return { ok: false, reason: fatalReason ?? 'stopped after a fatal error' };
        case 'connecting':
          return { ok: false, reason: `connecting to the Discord gateway for ${seconds} s${detail}` };
        case 'reconnecting':
          return {
            ok: false,
            reason: `Discord gateway connection lost ${seconds} s ago; reconnecting${detail}`,
          };
        case 'waiting':
          return {
            ok: false,
            reason: `Discord gateway down for ${seconds} s; trying again shortly${detail}`,
          };
      }
    },
    ready: () => phase === 'ready',
    client: () => (phase === 'stopped' || phase === 'fatal' ? undefined : client),
    fatal,
  };
}
