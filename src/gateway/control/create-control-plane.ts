import { ADAPTER_CONTRACT_VERSION, type PlatformAdapter } from '../../platforms/adapter.js';
import { COMMANDS } from '../commands/command-table.js';
import { gatewayEventSchema, platformChannel } from '../events/gateway-event.js';
import { editPrompt, settleApprovalPrompt } from './approval-decisions.js';
import type { ChatActivity, ControlDeps } from './control-deps.js';
import { createInboundSink } from './handle-inbound.js';
import { handleTurnEvent } from './handle-turn-event.js';

export interface ControlPlane {
  /** Listens for turn events of each platform, then starts the adapters. */
  start(): Promise<void>;
  /** Continues the turn parked on an approval request after a decision recorded elsewhere. */
  resumeApproval(requestId: string, decision: 'once' | 'session' | 'always' | 'deny'): Promise<void>;
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
  let timer: NodeJS.Timeout | undefined;
  let stopping: Promise<void> | undefined;

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
          const event = parsed.data;
          const previous = lanes.get(event.sessionKey) ?? Promise.resolve();
          const next = previous
            .then(() => handleTurnEvent(deps, adapter, activity, release, event))
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
      timer = setInterval(() => void expirePrompts(), 5_000);
      timer.unref();
    },
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
        if (timer !== undefined) clearInterval(timer);
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
