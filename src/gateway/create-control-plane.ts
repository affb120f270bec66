import { ADAPTER_CONTRACT_VERSION, type PlatformAdapter } from '../platforms/adapter.js';
import { COMMANDS } from './commands/command-table.js';
import type { ChatActivity, ControlDeps } from './control-deps.js';
import { type GatewayEvent, gatewayEventSchema, platformChannel } from './events/gateway-event.js';
import { createInboundSink } from './ingress/handle-inbound.js';
import { editPrompt, settleApprovalPrompt } from './outbound/approval-decisions.js';
import { handleTurnEvent } from './outbound/handle-turn-event.js';
import { createOutboxSweep } from './outbound/outbox-sweep.js';

export interface ControlPlane {
  /** Listens for turn events of each platform, then starts the adapters. */
  start(): Promise<void>;
  /** Continues the turn parked on an approval request after a decision recorded elsewhere. */
  resumeApproval(requestId: string, decision: 'once' | 'session' | 'always' | 'deny'): Promise<void>;
  /**
   * Delivers outbox entries whose live event was missed (runs at start and every ~10 s);
   * resolves when the pass is done. `minAgeMs: 0` takes every pending entry.
   */
  sweepOutbox(options?: { readonly minAgeMs?: number }): Promise<void>;
  /** Health of each adapter, for /readyz. */
  health(): Promise<{ name: string; ok: boolean; reason?: string }[]>;
  /** Stops the adapters and listeners; idempotent. */
  stop(): Promise<void>;
}

/**
 * The chat control plane: adapters in, turn events out, prompts and their expiry in between.
 * Events of one session are handled in order; sessions do not wait for each other.
 */
export function createControlPlane(deps: ControlDeps, adapterList: readonly PlatformAdapter[]): ControlPlane {
  const adapters = new Map<string, PlatformAdapter>();
  for (const adapter of adapterList) {
    if (adapter.contractVersion !== ADAPTER_CONTRACT_VERSION) {
      throw new Error(
        `adapter ${adapter.platform} implements contract v${adapter.contractVersion}, this gateway needs v${ADAPTER_CONTRACT_VERSION}`,
      );
    }
    adapters.set(adapter.platform, adapter);
  }
  const activities = new Map<string, ChatActivity>();
  const activity = (sessionKey: string): ChatActivity => {
    let chat = activities.get(sessionKey);
    if (chat === undefined) {
      chat = { typing: undefined, progress: undefined, turnId: undefined };
      activities.set(sessionKey, chat);
    }
    return chat;
  };
  const release = (sessionKey: string) => activities.delete(sessionKey);
  const lanes = new Map<string, Promise<void>>();
  const unsubscribers: (() => Promise<void>)[] = [];
  const timers: NodeJS.Timeout[] = [];
  let stopping: Promise<void> | undefined;

  /** Events of one session are handled in order, live or replayed from the outbox. */
  function dispatch(adapter: PlatformAdapter, event: GatewayEvent, recovered: boolean): Promise<void> {
    const previous = lanes.get(event.sessionKey) ?? Promise.resolve();
    const next = previous
      .then(() => handleTurnEvent(deps, adapter, activity, release, event, recovered))
      .catch((error: unknown) =>
        deps.logger.error(
          { sessionKey: event.sessionKey, err: (error as Error).message },
          'turn event not handled',
        ),
      );
    lanes.set(event.sessionKey, next);
    void next.then(() => {
      if (lanes.get(event.sessionKey) === next) lanes.delete(event.sessionKey);
    });
    return next;
  }
  const outbox = createOutboxSweep(
    deps,
    adapters,
    (adapter, event) => dispatch(adapter, event, true),
    deps.outbox,
  );

  async function expirePrompts(): Promise<void> {
    try {
      for (const prompt of await deps.store.listActionPrompts({ pendingOnly: true, expiredBy: deps.now() })) {
        if (prompt.kind === 'approval')
          await settleApprovalPrompt(deps, adapters, prompt, 'timeout', undefined);
        else if (
          await deps.store.resolveActionPrompt(prompt.promptId, { outcome: 'timeout', at: deps.now() })
        ) {
          await editPrompt(deps, adapters, prompt, '⌛ This question expired without an answer.');
        }
      }
    } catch (error) {
      deps.logger.warn({ err: (error as Error).message }, 'prompt expiry sweep failed');
    }
  }

  return {
    async start() {
      for (const adapter of adapters.values()) {
        const unsubscribe = await deps.bus.subscribe(platformChannel(adapter.platform), (raw) => {
          const parsed = gatewayEventSchema.safeParse(raw);
          if (!parsed.success) return;
          void dispatch(adapter, parsed.data, false);
        });
        unsubscribers.push(unsubscribe);
        const sink = createInboundSink(deps, adapter, adapters, activity);
        await adapter.start(async (event) => {
          const result = await sink(event);
          deps.observer?.inbound?.(adapter.platform, result.status);
          return result;
        });
        await adapter
          .setCommands(COMMANDS.map((command) => ({ name: command.name, description: command.description })))
          .catch((error: Error) =>
            deps.logger.warn({ platform: adapter.platform, err: error.message }, 'command menu not set'),
          );
      }
      const expiry = setInterval(() => void expirePrompts(), 5_000);
      expiry.unref();
      timers.push(expiry);
      // Answers finished while this gateway was away: every pending entry now (a live event
      // racing it is serialised in the same lane and finds the receipts), then the regular pass.
      void outbox.run({ minAgeMs: 0 });
      const sweep = setInterval(() => void outbox.run(), outbox.intervalMs);
      sweep.unref();
      timers.push(sweep);
    },
    sweepOutbox: (options) => outbox.run(options),
    async resumeApproval(requestId, decision) {
      const prompt = await deps.store.findActionPromptByRequest(requestId);
      if (prompt === undefined) {
        deps.logger.warn(
          { requestId },
          'decision recorded for a request without a prompt; its turn resumes at expiry',
        );
        return;
      }
      await settleApprovalPrompt(deps, adapters, prompt, decision, undefined);
    },
    async health() {
      return Promise.all(
        [...adapters.values()].map(async (adapter) => {
          const health = await adapter
            .health()
            .catch((error: Error) => ({ ok: false, reason: error.message }));
          return {
            name: adapter.platform,
            ok: health.ok,
            ...(health.reason !== undefined ? { reason: health.reason } : {}),
          };
        }),
      );
    },
    stop() {
      stopping ??= (async () => {
        for (const timer of timers) clearInterval(timer);
        await outbox.stop();
        for (const adapter of adapters.values()) await adapter.stop().catch(() => undefined);
        for (const unsubscribe of unsubscribers) await unsubscribe().catch(() => undefined);
        await Promise.allSettled([...lanes.values()]);
        for (const chat of activities.values()) chat.typing?.stop();
        activities.clear();
      })();
      return stopping;
    },
  };
}
