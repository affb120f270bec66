import { randomUUID } from 'node:crypto';
import { pino } from 'pino';
import { type Config, type ConfigInput, configSchema } from '../../../src/config/config-schema.js';
import {
  type AccessControl,
  createAccessControl,
} from '../../../src/gateway/access/create-access-control.js';
import {
  createSqliteGatewayStore,
  type SqliteGatewayStore,
} from '../../../src/gateway/store/sqlite-gateway-store.js';
import type { ChatType, InboundEvent } from '../../../src/platforms/adapter.js';

export const START = Date.UTC(2025, 0, 15, 12, 0, 0);
export const MINUTE = 60_000;

/** A validated config without touching the file system. */
export function accessConfig(input: ConfigInput = {}): Config {
  return { ...configSchema.parse(input), home: '/nonexistent', configPath: '/nonexistent/config.yaml' };
}

export interface AccessKit {
  readonly access: AccessControl;
  readonly store: SqliteGatewayStore;
  /** Every log line written so far (all levels). */
  readonly logs: string[];
  readonly clock: { now: number };
  advance(ms: number): void;
  close(): Promise<void>;
}

/** Access control over a real in-memory SQLite store sharing one injected clock. */
export function accessKit(input: ConfigInput = {}, options: { randomCode?: () => string } = {}): AccessKit {
  const logs: string[] = [];
  const logger = pino({ level: 'trace' }, { write: (line: string) => logs.push(line) });
  const clock = { now: START };
  const now = () => clock.now;
  const store = createSqliteGatewayStore({ path: ':memory:', logger, now });
  const access = createAccessControl({
    config: accessConfig(input),
    store,
    logger,
    now,
    ...(options.randomCode === undefined ? {} : { randomCode: options.randomCode }),
  });
  return {
    access,
    store,
    logs,
    clock,
    advance: (ms) => {
      clock.now += ms;
    },
    close: () => store.close(),
  };
}

export interface EventOptions {
  readonly platform?: string;
  readonly chatType?: ChatType;
  readonly kind?: InboundEvent['kind'];
  readonly userName?: string;
  readonly isBot?: boolean;
}

/** An inbound event from `userId`: a DM text message on `test` unless told otherwise. */
export function inbound(userId: string, options: EventOptions = {}): InboundEvent {
  const id = randomUUID();
  const base = {
    platform: options.platform ?? 'test',
    eventId: `e-${id}`,
    chat: {
      chatId: options.chatType === undefined || options.chatType === 'dm' ? userId : 'g1',
      chatType: options.chatType ?? 'dm',
    },
    sender: {
      userId,
      ...(options.userName === undefined ? {} : { userName: options.userName }),
      ...(options.isBot === undefined ? {} : { isBot: options.isBot }),
    },
    receivedAt: START,
  } as const;
  switch (options.kind ?? 'message') {
    case 'message':
      return { ...base, kind: 'message', messageId: `m-${id}`, text: 'hello', addressed: true };
    case 'command':
      return { ...base, kind: 'command', messageId: `m-${id}`, name: 'start', args: '', addressed: true };
    case 'action':
      return { ...base, kind: 'action', messageId: `m-${id}`, data: 'x' };
  }
}

/** The code in a pairing reply. */
export function codeIn(reply: string): string {
  const match = /pairing code(?: is still|:) ([A-Z0-9]{8})/.exec(reply);
  if (match?.[1] === undefined) throw new Error(`no pairing code in reply: ${reply}`);
  return match[1];
}
