import { join } from 'node:path';
import type { ApprovalRequest } from '../../../src/approval/approval-types.js';
import {
  type ApprovalGateController,
  createApprovalGate,
} from '../../../src/approval/create-approval-gate.js';
import { createMemoryApprovalStore } from '../../../src/approval/memory-approval-store.js';
import type { Config } from '../../../src/config/config-schema.js';
import type { CommandHandlerDeps, CommandInput } from '../../../src/gateway/commands/command-context.js';
import {
  type CommandHandler,
  createCommandHandler,
} from '../../../src/gateway/commands/create-command-handler.js';
import { parseCommand } from '../../../src/gateway/commands/parse-command.js';
import { createEmbeddedTurnQueue } from '../../../src/gateway/queue/embedded-turn-queue.js';
import type { BusyInputMode, InboxItem, TurnQueue } from '../../../src/gateway/queue/turn-queue.js';
import {
  createSqliteGatewayStore,
  type SqliteGatewayStore,
} from '../../../src/gateway/store/sqlite-gateway-store.js';
import type { ChatRef, Sender } from '../../../src/platforms/adapter.js';
import { CORE_TOOLS } from '../../../src/registry/toolset-catalog.js';
import { createToolsets, type Toolsets } from '../../../src/registry/toolsets.js';
import { makeTempHome, silentLogger, testConfig } from '../../helpers/test-config.js';
import { recorder } from '../queue/queue-test-kit.js';

export const ALICE: Sender = { userId: 'alice', userName: 'Alice' };
export const BOB: Sender = { userId: 'bob' };
export const ADMIN: Sender = { userId: 'root', userName: 'Root' };
export const CHAT: ChatRef = { chatId: 'chat-1', chatType: 'dm' };
export const SESSION = 'agent:main:test:dm:chat-1';
export const CWD = '/srv/project';

export interface KitOptions {
  readonly busyInputMode?: BusyInputMode;
  readonly env?: Record<string, string>;
  readonly deps?: Partial<CommandHandlerDeps>;
}

/**
 * The command handler over real parts: a SQLite store in a temp home, the real approval gate on
 * the in-memory approval store, the embedded queue running a handler the test controls, and the
 * real toolsets (the core tools count as registered). Clocks are manual.
 */
export async function commandKit(options: KitOptions = {}) {
  const { home, cleanup } = makeTempHome('hermes-commands-');
  const config: Config = testConfig(home, options.env ?? {});
  let clock = 1_700_000_000_000;
  const now = () => clock;
  const store: SqliteGatewayStore = createSqliteGatewayStore({
    path: join(home, 'state.db'),
    logger: silentLogger,
    now,
  });
  const gate: ApprovalGateController = createApprovalGate({
    config,
    store: createMemoryApprovalStore({ now }),
    logger: silentLogger,
    now,
  });
  const queue: TurnQueue = createEmbeddedTurnQueue({
    logger: silentLogger,
    busyInputMode: options.busyInputMode ?? 'queue',
  });
  const running = new Set<string>();
  const turns = recorder(async (turn) => {
    running.add(turn.sessionKey);
    try {
      // A turn whose first text is "hold" runs until it is interrupted.
      if (turn.items[0]?.text === 'hold') {
        await new Promise<void>((resolve) => {
          if (turn.signal.aborted) resolve();
          turn.signal.addEventListener('abort', () => resolve(), { once: true });
        });
      }
    } finally {
      running.delete(turn.sessionKey);
    }
  });
  await queue.startWorkers(turns.handler, { concurrency: 4, onFailed: () => undefined });
  const toolsets: Toolsets = createToolsets({
    names: () => [...CORE_TOOLS],
    namesInToolset: () => [],
    toolsets: () => [],
  });
  const resumed: { requestId: string; decision: string }[] = [];
  const deps: CommandHandlerDeps = {
    config,
    logger: silentLogger,
    store,
    queue,
    approvals: gate,
    resumeTurn: async (input) => {
      resumed.push({ ...input });
    },
    toolsets,
    approvePairing: (platform, code, approvedBy) => store.consumePairingCode(platform, code, approvedBy),
    isTurnRunning: async (key) => running.has(key),
    now,
    ...options.deps,
  };
  const handler: CommandHandler = createCommandHandler(deps);
  let events = 0;
  const nextEvent = (label: string) => {
    events += 1;
    return `${label}-${events}`;
  };

  /** The item `/queue` submits: a plain message of the chat. */
  const makeItem = (text: string): InboxItem => ({
    sessionKey: SESSION,
    eventId: nextEvent('queued'),
    kind: 'message',
    text,
    receivedAt: clock,
  });

  return {
    config,
    store,
    gate,
    queue,
    turns,
    running,
    resumed,
    toolsets,
    handler,
    deps,
    /** A handler over the same parts with some dependencies replaced. */
    handlerWith(overrides: Partial<CommandHandlerDeps>): CommandHandler {
      return createCommandHandler({ ...deps, ...overrides });
    },
    advance(ms: number) {
      clock += ms;
    },
    now,
    /** Sends `text` as a chat message from `sender`; it must parse as a command. */
    async send(
      text: string,
      sender: Sender = ALICE,
      extra: Partial<Omit<CommandInput, 'name' | 'args'>> & { handler?: CommandHandler } = {},
    ): Promise<string> {
      const parsed = parseCommand(text);
      if (parsed === undefined) throw new Error(`not a command: ${text}`);
      const { handler: chosen = handler, ...rest } = extra;
      const result = await chosen.handle({
        platform: 'test',
        chat: CHAT,
        sender,
        isAdmin: sender === ADMIN,
        sessionKey: SESSION,
        name: parsed.name,
        args: parsed.args,
        makeItem,
        ...rest,
      });
      return result.replies.join('\n---\n');
    },
    /** Opens a pending approval request in the session, as the terminal tool would. */
    async ask(command: string, userId = ALICE.userId, sessionKey = SESSION): Promise<ApprovalRequest> {
      const decision = await gate.check(command, {
        sessionKey,
        userId,
        cwd: CWD,
        platform: 'test',
        unattended: false,
        backend: 'local',
      });
      if (decision.kind !== 'ask')
        throw new Error(`expected an approval request for ${command}, got ${decision.kind}`);
      return decision.request;
    },
    /** Starts a turn that runs until interrupted; resolves once it runs. */
    async holdTurn(sessionKey = SESSION): Promise<void> {
      await queue.submit({
        sessionKey,
        eventId: nextEvent('hold'),
        kind: 'message',
        text: 'hold',
        receivedAt: clock,
      });
    },
    async close() {
      await queue.close({ graceMs: 100 });
      await store.close();
      cleanup();
    },
  };
}

export type CommandKit = Awaited<ReturnType<typeof commandKit>>;
