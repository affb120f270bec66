import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import OpenAI from 'openai';
import { z } from 'zod';
import { createApprovalGate } from '../../../src/approval/create-approval-gate.js';
import { createMemoryApprovalStore } from '../../../src/approval/memory-approval-store.js';
import type { InboxItem, TurnContext } from '../../../src/gateway/queue/turn-queue.js';
import { createSqliteGatewayStore } from '../../../src/gateway/store/sqlite-gateway-store.js';
import { createAgentTaskTable } from '../../../src/gateway/turn/agent-task-table.js';
import { createSubAgentRunner } from '../../../src/gateway/turn/create-sub-agent-runner.js';
import { createTurnRunner, type TurnRunnerDeps } from '../../../src/gateway/turn/create-turn-runner.js';
import { createResumableApprovalGate } from '../../../src/gateway/turn/resumable-approval-gate.js';
import type {
  TurnEvents,
  TurnFailedEvent,
  TurnFinalEvent,
  TurnParkedEvent,
  TurnProgressEvent,
} from '../../../src/gateway/turn/turn-events.js';
import type { TurnOrigin } from '../../../src/gateway/turn/turn-origin.js';
import { createRegistry } from '../../../src/registry/create-registry.js';
import { defineTool } from '../../../src/registry/define-tool.js';
import type { ToolDefinition } from '../../../src/registry/tool-types.js';
import { createToolsets } from '../../../src/registry/toolsets.js';
import { clarifyTool } from '../../../src/tools/clarify.js';
import { delegateTaskTool } from '../../../src/tools/delegate-task.js';
import { MemoryStore } from '../../../src/tools/memory/memory-store.js';
import { sessionSearchTool } from '../../../src/tools/session-search.js';
import { terminalTool } from '../../../src/tools/terminal.js';
import { startFakeOpenAi } from '../../fakes/fake-openai.js';
import { makeTempHome, silentLogger, testConfig, testServices } from '../../helpers/test-config.js';

export const SESSION_KEY = 'agent:main:telegram:dm:42';

export const ORIGIN: TurnOrigin = {
  platform: 'telegram',
  chatType: 'dm',
  chatId: '42',
  userId: '42',
  userName: 'Ann',
  unattended: false,
  toolset: 'kit',
};

export function message(eventId: string, text: string, origin: Partial<TurnOrigin> = {}): InboxItem {
  return {
    sessionKey: SESSION_KEY,
    eventId,
    kind: 'message',
    text,
    payload: { ...ORIGIN, ...origin },
    receivedAt: 0,
  };
}

export interface Recorded {
  readonly type: 'progress' | 'final' | 'parked' | 'failed';
  readonly event: TurnProgressEvent | TurnFinalEvent | TurnParkedEvent | TurnFailedEvent;
}

export function recordEvents() {
  const all: Recorded[] = [];
  const events: TurnEvents = {
    progress: (event) => {
      all.push({ type: 'progress', event });
    },
    final: (event) => {
      all.push({ type: 'final', event });
    },
    parked: (event) => {
      all.push({ type: 'parked', event });
    },
    failed: (event) => {
      all.push({ type: 'failed', event });
    },
  };
  const of = <T>(type: Recorded['type']) =>
    all.filter((entry) => entry.type === type).map((entry) => entry.event as T);
  return {
    events,
    all,
    terminal: () => all.filter((entry) => entry.type !== 'progress'),
    finals: () => of<TurnFinalEvent>('final'),
    parks: () => of<TurnParkedEvent>('parked'),
    failures: () => of<TurnFailedEvent>('failed'),
    progress: () => of<TurnProgressEvent>('progress'),
    clear: () => {
      all.length = 0;
    },
  };
}

/** Test tools sharing counters with the test. */
export function kitTools() {
  const runs = new Map<string, number>();
  const count = (name: string) => runs.set(name, (runs.get(name) ?? 0) + 1);
  let active = 0;
  let maxActive = 0;
  let barrier: { promise: Promise<void>; resolve: () => void } = deferred();
  const blockRelease = deferred();
  const blockStarted = deferred();

  const echo = defineTool({
    name: 'echo_text',
    toolset: 'testkit',
    description: 'Echoes text back.',
    emoji: '📣',
    parameters: z.object({ text: z.string() }),
    handler: (args) => {
      count('echo_text');
      return `echo: ${args.text}`;
    },
  });
  const slowRead = defineTool({
    name: 'slow_read',
    toolset: 'testkit',
    description: 'Reads something slowly (read-only).',
    readOnly: true,
    parameters: z.object({ key: z.string() }),
    handler: async (args) => {
      count('slow_read');
      active += 1;
      maxActive = Math.max(maxActive, active);
      if (active >= 2) barrier.resolve();
      // Waits for a second reader; the bound only keeps a sequential (buggy) runner from hanging.
      await Promise.race([barrier.promise, new Promise((resolve) => setTimeout(resolve, 2_000))]);
      active -= 1;
      return `value of ${args.key}`;
    },
  });
  const block = defineTool({
    name: 'block_tool',
    toolset: 'testkit',
    description: 'Runs until released or stopped.',
    parameters: z.object({}),
    handler: async (_args, ctx) => {
      count('block_tool');
      blockStarted.resolve();
      await new Promise<void>((resolve, reject) => {
        if (ctx.signal.aborted) {
          reject(new Error('stopped'));
          return;
        }
        ctx.signal.addEventListener('abort', () => reject(new Error('stopped')), { once: true });
        void blockRelease.promise.then(() => resolve());
      });
      return 'block done';
    },
  });
  return {
    tools: [echo, slowRead, block] as ToolDefinition[],
    runs,
    maxActive: () => maxActive,
    resetBarrier: () => {
      barrier = deferred();
      maxActive = 0;
    },
    blockStarted: blockStarted.promise,
    releaseBlock: () => blockRelease.resolve(),
  };
}

export function deferred<T = void>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

export interface HarnessOptions {
  readonly yaml?: string;
  readonly env?: Record<string, string>;
  readonly deps?: Partial<TurnRunnerDeps>;
  readonly noModel?: boolean;
  /** Gives the tools (and the system prompt) a memory store under the temp home. */
  readonly memory?: boolean;
}

/** A runner on a real SQLite store, a real registry, a real approval gate and the fake model. */
export async function turnHarness(options: HarnessOptions = {}) {
  const temp = makeTempHome('hermes-turn-');
  const work = makeTempHome('hermes-turn-work-');
  if (options.yaml !== undefined) writeFileSync(join(temp.home, 'config.yaml'), options.yaml);
  const fake = await startFakeOpenAi();
  const config = testConfig(temp.home, {
    ...(options.noModel
      ? {}
      : { OPENAI_BASE_URL: fake.baseURL, OPENAI_API_KEY: 'test-key', HERMES_MODEL: 'fake-model' }),
    TERMINAL_CWD: work.home,
    ...options.env,
  });
  const store = createSqliteGatewayStore({ path: join(temp.home, 'state.db'), logger: silentLogger });
  const controller = createApprovalGate({ config, store: createMemoryApprovalStore(), logger: silentLogger });
  const approvals = createResumableApprovalGate(controller);
  const tasks = createAgentTaskTable();
  const kit = kitTools();
  const clientFactory = () =>
    options.noModel ? undefined : new OpenAI({ apiKey: 'test-key', baseURL: fake.baseURL, maxRetries: 0 });
  let host:
    | { registry: ReturnType<typeof createRegistry>; toolsets: ReturnType<typeof createToolsets> }
    | undefined;
  const subAgent = createSubAgentRunner({
    config,
    logger: silentLogger,
    tasks,
    host: () => host!,
    clientFactory,
    modelRetry: { baseDelayMs: 1, maxDelayMs: 5 },
  });
  const services = testServices(config, {
    approvalGate: approvals.gate,
    baseEnv: { PATH: '/usr/local/bin:/usr/bin:/bin', HOME: temp.home },
    sessionSearch: store,
    subAgent,
    ...(options.memory ? { memoryStore: new MemoryStore({ root: join(temp.home, 'memories') }) } : {}),
  });
  const registry = createRegistry({ services, logger: silentLogger });
  for (const tool of [...kit.tools, terminalTool, clarifyTool, sessionSearchTool, delegateTaskTool]) {
    registry.register(tool as ToolDefinition);
  }
  registry.seal();
  const toolsets = createToolsets(registry, {
    kit: {
      description: 'test kit',
      tools: [],
      includes: ['testkit', 'terminal', 'clarify', 'session_search', 'delegation'],
    },
  });
  host = { registry, toolsets };
  const rec = recordEvents();
  const runnerOf = (deps: Partial<TurnRunnerDeps>) =>
    createTurnRunner({
      config,
      logger: silentLogger,
      store,
      registry,
      toolsets,
      events: rec.events,
      clientFactory,
      approvals,
      tasks,
      modelRetry: { attempts: 3, baseDelayMs: 1, maxDelayMs: 5 },
      ...options.deps,
      ...deps,
    });
  const runner = runnerOf({});
  let turns = 0;

  /**
   * A second runner on the same store, model and tools with some deps replaced (a process that
   * "dies" at a chosen step); runs one first attempt of a queue turn and rejects as it dies.
   */
  function runnerWith(deps: Partial<TurnRunnerDeps>) {
    const other = runnerOf(deps);
    return (items: readonly InboxItem[], turnId: string) =>
      other.handle({
        turnId,
        sessionKey: SESSION_KEY,
        items,
        attempt: 1,
        signal: new AbortController().signal,
        takeSteering: async () => [],
      });
  }

  /** Runs one queue turn through the handler. */
  async function run(
    items: readonly InboxItem[],
    opts: {
      turnId?: string;
      attempt?: number;
      signal?: AbortSignal;
      steering?: InboxItem[][];
    } = {},
  ): Promise<TurnContext> {
    turns += 1;
    const steering = [...(opts.steering ?? [])];
    const ctx: TurnContext = {
      turnId: opts.turnId ?? `turn-${turns}`,
      sessionKey: items[0]?.sessionKey ?? SESSION_KEY,
      items,
      attempt: opts.attempt ?? 1,
      signal: opts.signal ?? new AbortController().signal,
      takeSteering: async () => steering.shift() ?? [],
    };
    await runner.handle(ctx);
    return ctx;
  }

  async function transcript(key = SESSION_KEY) {
    const session = await store.getOrCreateSession(key);
    return store.listMessages(session.sessionId);
  }

  function victim(name = 'victim'): string {
    const dir = join(work.home, name);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'file.txt'), 'x');
    return dir;
  }

  return {
    config,
    fake,
    store,
    controller,
    approvals,
    tasks,
    kit,
    registry,
    toolsets,
    rec,
    runner,
    runnerWith,
    run,
    transcript,
    victim,
    work: work.home,
    async close() {
      await fake.close();
      await store.close();
      temp.cleanup();
      work.cleanup();
    },
  };
}

export type Harness = Awaited<ReturnType<typeof turnHarness>>;

/** The messages array of a recorded model request. */
export function requestMessages(fake: Harness['fake'], index: number): Array<Record<string, unknown>> {
  const body = fake.requests[index]?.body;
  return (body?.['messages'] as Array<Record<string, unknown>> | undefined) ?? [];
}
