import type { Logger } from 'pino';
import type { AdapterHealth } from '../adapter.js';
import { eventOfSdkData, type LarkEvent } from './feishu-event.js';
import type { FeishuSettings } from './feishu-settings.js';
import type { LarkSdk } from './lark-client.js';
import { sdkLogger } from './sdk-logger.js';
import type { EventAnswer } from './webhook-route.js';

export interface LongConnectionOptions {
  readonly sdk: LarkSdk;
  readonly settings: Pick<FeishuSettings, 'appId' | 'appSecret' | 'domain'>;
  readonly logger: Logger;
  readonly handle: (event: LarkEvent) => Promise<EventAnswer>;
  /** How long `start` waits for the first connection, ms; default 10 000. */
  readonly readyTimeoutMs?: number;
}

export interface LongConnection {
  /** Opens the connection; resolves once it is up, or after the wait (it keeps trying). */
  start(): Promise<void>;
  /** `/readyz`: connected, or the state and how many reconnects so far. */
  health(): AdapterHealth;
  close(): void;
}

const MESSAGE = 'im.message.receive_v1';
const CARD = 'card.action.trigger';

/**
 * The SDK's long connection (`WSClient`): events and card clicks arrive over it (frames are not
 * signed, the connection itself is authenticated with the app secret), are handled exactly as
 * webhook ones, and a card click's answer goes back in the frame's acknowledgement. The SDK
 * reconnects by itself; its state and the reconnect count are what /readyz reports.
 */
export function createLongConnection(options: LongConnectionOptions): LongConnection {
  const { settings, logger, sdk } = options;
  let reconnects = 0;
  let lastError: string | undefined;
  let onReady: (() => void) | undefined;
  const ws = new sdk.WSClient({
    appId: settings.appId,
    appSecret: settings.appSecret,
    domain: settings.domain,
    logger: sdkLogger(logger),
    loggerLevel: sdk.LoggerLevel.warn,
    autoReconnect: true,
    onReady: () => {
      lastError = undefined;
      logger.info('feishu long connection up');
      onReady?.();
    },
    onReconnecting: () => {
      reconnects += 1;
      logger.warn({ reconnects }, 'feishu long connection lost; reconnecting');
    },
    onReconnected: () => {
      lastError = undefined;
      logger.info({ reconnects }, 'feishu long connection back');
    },
    onError: (error) => {
      lastError = error.message.slice(0, 200);
      logger.error({ err: lastError }, 'feishu long connection failed');
    },
  });

  async function handle(eventType: string, data: unknown): Promise<EventAnswer> {
    const event = eventOfSdkData(eventType, data);
    if (event === undefined) {
      logger.warn({ eventType }, 'feishu long-connection event without an event id; ignored');
      return { status: 200, body: {} };
    }
    return options.handle(event);
  }

  const dispatcher = new sdk.EventDispatcher({
    logger: sdkLogger(logger),
    loggerLevel: sdk.LoggerLevel.warn,
  }).register<{
    [CARD]: (data: unknown) => Promise<unknown>;
  }>({
    [MESSAGE]: async (data: unknown) => {
      const answer = await handle(MESSAGE, data);
      // Not acknowledged: Lark delivers the event again.
      if (answer.status >= 500) throw new Error('feishu event not accepted; it will be delivered again');
    },
    [CARD]: async (data: unknown) => (await handle(CARD, data)).body,
  });

  return {
    async start() {
      const ready = new Promise<void>((resolve) => {
        onReady = resolve;
      });
      await ws.start({ eventDispatcher: dispatcher });
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        ready,
        new Promise<void>((resolve) => {
          timer = setTimeout(resolve, options.readyTimeoutMs ?? 10_000);
        }),
      ]);
      clearTimeout(timer);
      onReady = undefined;
    },
    health() {
      const status = ws.getConnectionStatus();
      const count = reconnects === 0 ? '' : `; ${reconnects} reconnect${reconnects === 1 ? '' : 's'} so far`;
      if (status.state === 'connected') {
        return reconnects === 0 ? { ok: true } : { ok: true, reason: `long connection up${count}` };
      }
      return {
        ok: false,
        reason: `long connection ${status.state}${count}${lastError !== undefined ? ` (${lastError})` : ''}`,
      };
    },
    close() {
      ws.close({ force: true });
    },
  };
}
