import { setTimeout as sleep } from 'node:timers/promises';
import {
  type GatewaySendPayload,
  type IShardingStrategy,
  SimpleShardingStrategy,
  type WebSocketShardDestroyOptions,
  WebSocketShardStatus,
} from 'discord.js';

/** Longest wait for a shard to leave its pause between reconnect attempts before destroying anyway. */
const SETTLE_MS = 1_500;
const POLL_MS = 25;

/** @discordjs/ws' manager (discord.js exports its own class under the same name). */
export type ShardManager = ConstructorParameters<typeof SimpleShardingStrategy>[0];

/**
 * discord.js' sharding strategy, with one fix: @discordjs/ws ignores a destroy that arrives while
 * a shard pauses (500 ms, status idle) between two reconnect attempts — and the shard then
 * reconnects and resumes on its own, a "ghost" session nobody listens to any more. This destroy
 * waits for the pause to end (at most 1.5 s) so the destroy is not lost. Everything else is the
 * stock strategy.
 */
export class SettledDestroyStrategy implements IShardingStrategy {
  readonly #inner: SimpleShardingStrategy;

  constructor(manager: ShardManager) {
    this.#inner = new SimpleShardingStrategy(manager);
  }

  spawn(shardIds: number[]): Promise<void> {
    return this.#inner.spawn(shardIds);
  }

  connect(): Promise<void> {
    return this.#inner.connect();
  }

  async destroy(options?: Omit<WebSocketShardDestroyOptions, 'recover'>): Promise<void> {
    const deadline = Date.now() + SETTLE_MS;
    while (Date.now() < deadline) {
      const statuses = await this.#inner.fetchStatus();
      if (statuses.every((status) => status !== WebSocketShardStatus.Idle)) break;
      await sleep(POLL_MS);
    }
    await this.#inner.destroy(options);
  }

  send(shardId: number, payload: GatewaySendPayload): Promise<void> {
    return this.#inner.send(shardId, payload);
  }

  fetchStatus() {
    return this.#inner.fetchStatus();
  }
}
