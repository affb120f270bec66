import { createTestAdapter } from '../../src/platforms/test-adapter/create-test-adapter.js';
import type { TestAdapter } from '../../src/platforms/test-adapter/test-adapter-types.js';
import { deleteKeys } from '../gateway/redis-keys.js';
import { type BenchGateway, type QueueMode, startBenchGateway } from '../gateway/start-bench-gateway.js';
import { TOOL_MODEL } from './round-text.js';

export type { QueueMode };

export interface RoundTripGateway extends Omit<BenchGateway, 'close'> {
  readonly adapter: TestAdapter;
  /** Closes the gateway, removes its directories and (BullMQ mode) its Redis keys; returns how many keys. */
  close(): Promise<number>;
}

/** The user every round runs as (allowed on the test platform, not an admin). */
export const BENCH_USER = { userId: 'alice', userName: 'Alice' } as const;

/**
 * The bench gateway with the in-memory test adapter as its only chat platform and the tool-calling
 * fake model. Config at its defaults otherwise (manual approvals, tool progress `new`).
 */
export async function startRoundTripGateway(options: {
  readonly mode: QueueMode;
  readonly modelBaseURL: string;
  readonly prefix: string;
}): Promise<RoundTripGateway> {
  const adapter = createTestAdapter();
  const gw = await startBenchGateway({
    ...options,
    model: TOOL_MODEL,
    config: ['gateway:', `  allowed_users: ["test:${BENCH_USER.userId}"]`],
    adapters: [adapter],
  });
  return {
    ...gw,
    adapter,
    async close() {
      await gw.close();
      return options.mode === 'bullmq' ? await deleteKeys(`${options.prefix}*`) : 0;
    },
  };
}
