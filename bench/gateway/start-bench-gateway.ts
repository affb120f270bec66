import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pino } from 'pino';
import { createGateway, type Gateway } from '../../src/app/create-gateway.js';
import { loadConfig } from '../../src/config/load-config.js';
import type { PlatformAdapter } from '../../src/platforms/adapter.js';
import { FAKE_MODEL } from './fake-model-answer.js';
import { REDIS_URL } from './redis-keys.js';

export type QueueMode = 'embedded' | 'bullmq';

export interface BenchGateway {
  readonly gateway: Gateway;
  /** `http://127.0.0.1:<port>` */
  readonly origin: string;
  /** Its HERMES_HOME (state.db, config.yaml), for worker processes sharing it. */
  readonly home: string;
  /** Scratch working directory of the terminal tool. */
  readonly workdir: string;
  close(): Promise<void>;
}

/**
 * A real gateway (`createGateway`, role `gateway`: HTTP server, workers and any chat adapters in
 * this process) on a random loopback port, with its own HERMES_HOME and Redis key prefix, a
 * silent logger, and the model pointed at the bench's fake. Config otherwise at its defaults,
 * plus the lines a bench adds (`config`).
 */
export async function startBenchGateway(options: {
  readonly mode: QueueMode;
  readonly modelBaseURL: string;
  readonly prefix: string;
  /** Extra config.yaml lines (top-level sections). */
  readonly config?: readonly string[];
  readonly model?: string;
  readonly adapters?: readonly PlatformAdapter[];
  /** Run workers in this process (default true); false leaves every turn to worker processes. */
  readonly workers?: boolean;
}): Promise<BenchGateway> {
  const home = mkdtempSync(join(tmpdir(), 'hermes-bench-gw-'));
  const workdir = mkdtempSync(join(tmpdir(), 'hermes-bench-work-'));
  writeFileSync(
    join(home, 'config.yaml'),
    ['http:', '  port: 0', 'redis:', `  prefix: ${options.prefix}`, ...(options.config ?? []), ''].join('\n'),
  );
  const gateway = await createBenchGateway({
    home,
    workdir,
    mode: options.mode,
    modelBaseURL: options.modelBaseURL,
    role: 'gateway',
    ...(options.model !== undefined ? { model: options.model } : {}),
    ...(options.adapters !== undefined ? { adapters: options.adapters } : {}),
  });
  const address = await gateway.start({ workers: options.workers ?? true });
  if (address === undefined) throw new Error('the gateway did not listen');
  return {
    gateway,
    origin: address.replace('localhost', '127.0.0.1'),
    home,
    workdir,
    async close() {
      await gateway.close();
      rmSync(home, { recursive: true, force: true });
      rmSync(workdir, { recursive: true, force: true });
    },
  };
}

/**
 * `createGateway` on an existing HERMES_HOME (its config.yaml already written): a silent logger,
 * the model pointed at the bench's fake, Redis when `mode` is bullmq. Nothing started.
 */
export function createBenchGateway(options: {
  readonly home: string;
  readonly workdir: string;
  readonly mode: QueueMode;
  readonly modelBaseURL: string;
  readonly role: 'gateway' | 'worker';
  readonly model?: string;
  readonly adapters?: readonly PlatformAdapter[];
}): Promise<Gateway> {
  const config = loadConfig({
    home: options.home,
    env: {
      TERMINAL_CWD: options.workdir,
      OPENAI_BASE_URL: options.modelBaseURL,
      OPENAI_API_KEY: 'sk-bench',
      HERMES_MODEL: options.model ?? FAKE_MODEL,
      ...(options.mode === 'bullmq' ? { REDIS_URL } : {}),
    },
  });
  return createGateway({
    config,
    logger: pino({ level: 'silent' }),
    baseEnv: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', HOME: options.workdir },
    builtinToolsDir: resolve(import.meta.dirname, '../../src/tools'),
    role: options.role,
    ...(options.adapters !== undefined ? { adapters: options.adapters } : {}),
  });
}
