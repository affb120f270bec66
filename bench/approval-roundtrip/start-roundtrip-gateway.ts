import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pino } from 'pino';
import { loadConfig } from '../../src/config/load-config.js';
import { createGateway, type Gateway } from '../../src/gateway/create-gateway.js';
import { createTestAdapter } from '../../src/platforms/test-adapter/create-test-adapter.js';
import type { TestAdapter } from '../../src/platforms/test-adapter/test-adapter-types.js';
import { deleteKeys, REDIS_URL } from '../gateway/redis-keys.js';
import { TOOL_MODEL } from './round-text.js';

export type QueueMode = 'embedded' | 'bullmq';

export interface RoundTripGateway {
  readonly gateway: Gateway;
  readonly adapter: TestAdapter;
  /** The terminal's working directory (where the round's marker files appear). */
  readonly workdir: string;
  /** Closes the gateway, removes its directories and (BullMQ mode) its Redis keys; returns how many keys. */
  close(): Promise<number>;
}

/** The user every round runs as (allowed on the test platform, not an admin). */
export const BENCH_USER = { userId: 'alice', userName: 'Alice' } as const;

/**
 * A real gateway (`createGateway`, role `gateway`: workers, control plane and HTTP server in this
 * process) with the in-memory test adapter as its only chat platform, its own HERMES_HOME, a
 * scratch working directory for the terminal, and in BullMQ mode its own Redis key prefix.
 * Config at its defaults otherwise (manual approvals, tool progress `new`).
 */
export async function startRoundTripGateway(options: {
  readonly mode: QueueMode;
  readonly modelBaseURL: string;
  readonly prefix: string;
}): Promise<RoundTripGateway> {
  const home = mkdtempSync(join(tmpdir(), 'hermes-bench-rt-'));
  const workdir = mkdtempSync(join(tmpdir(), 'hermes-bench-rt-work-'));
  writeFileSync(
    join(home, 'config.yaml'),
    [
      'http:',
      '  port: 0',
      'redis:',
      `  prefix: ${options.prefix}`,
      'gateway:',
      `  allowed_users: ["test:${BENCH_USER.userId}"]`,
      '',
    ].join('\n'),
  );
  const config = loadConfig({
    home,
    env: {
      TERMINAL_CWD: workdir,
      OPENAI_BASE_URL: options.modelBaseURL,
      OPENAI_API_KEY: 'sk-bench',
      HERMES_MODEL: TOOL_MODEL,
      ...(options.mode === 'bullmq' ? { REDIS_URL } : {}),
    },
  });
  const adapter = createTestAdapter();
  const gateway = await createGateway({
    config,
    logger: pino({ level: 'silent' }),
    baseEnv: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', HOME: workdir },
    builtinToolsDir: resolve(import.meta.dirname, '../../src/tools'),
    role: 'gateway',
    adapters: [adapter],
  });
  await gateway.start();
  return {
    gateway,
    adapter,
    workdir,
    async close() {
      await gateway.close();
      rmSync(home, { recursive: true, force: true });
      rmSync(workdir, { recursive: true, force: true });
      return options.mode === 'bullmq' ? await deleteKeys(`${options.prefix}*`) : 0;
    },
  };
}
