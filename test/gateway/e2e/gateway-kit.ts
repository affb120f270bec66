import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Redis } from 'ioredis';
import OpenAI from 'openai';
import { createGateway, type Gateway, type GatewayRole } from '../../../src/app/create-gateway.js';
import { loadConfig } from '../../../src/config/load-config.js';
import type { PlatformAdapter } from '../../../src/platforms/adapter.js';
import type { PlatformDefinition } from '../../../src/platforms/platform.js';
import { silentLogger } from '../../helpers/test-config.js';

export type QueueMode = 'embedded' | 'bullmq';
export const REDIS_URL = 'redis://127.0.0.1:6379';
export const TOOLS_DIR = resolve(import.meta.dirname, '../../../src/tools');

export interface TestGateway {
  readonly gateway: Gateway;
  readonly home: string;
  readonly workdir: string;
  /** HOME of the gateway's commands: apart from the working directory, as on a real machine. */
  readonly userHome: string;
  readonly baseURL: string;
  readonly prefix: string;
  client(options?: { apiKey?: string; headers?: Record<string, string> }): OpenAI;
  /** Stops the gateway but keeps its HERMES_HOME and working directory (to restart on them). */
  stop(): Promise<void>;
  close(): Promise<void>;
}

/**
 * A real gateway on a random loopback port with its own HERMES_HOME, a scratch working
 * directory for the terminal, and (in BullMQ mode) its own Redis key prefix.
 */
export async function startTestGateway(options: {
  readonly mode: QueueMode;
  readonly env?: Record<string, string>;
  readonly yaml?: string;
  readonly role?: GatewayRole;
  readonly workers?: boolean;
  readonly adapters?: readonly PlatformAdapter[];
  /** The platform list to build from (default: the gateway's own, src/app/platforms.ts). */
  readonly platforms?: readonly PlatformDefinition[];
  /** Reuse a HERMES_HOME (a restart); its config.yaml is kept. */
  readonly home?: string;
  readonly workdir?: string;
  /** How often expired approvals are swept (default: the gateway's 15 s). */
  readonly sweepIntervalMs?: number;
  /** How long an answered pause waits for its resume before the sweep steps in (default 30 s). */
  readonly settledGraceMs?: number;
}): Promise<TestGateway> {
  const reuse = options.home !== undefined;
  const home = options.home ?? mkdtempSync(join(tmpdir(), 'hermes-gw-'));
  const workdir = options.workdir ?? mkdtempSync(join(tmpdir(), 'hermes-work-'));
  const userHome = mkdtempSync(join(tmpdir(), 'hermes-user-home-'));
  const prefix = reuse
    ? (/prefix: (\S+)/.exec(readFileSync(join(home, 'config.yaml'), 'utf8'))?.[1] ?? 'x')
    : `hgtest-${randomBytes(4).toString('hex')}`;
  if (!reuse)
    writeFileSync(
      join(home, 'config.yaml'),
      [
        'http:',
        '  port: 0',
        'redis:',
        `  prefix: ${prefix}`,
        'queue:',
        '  lock_duration_ms: 2000',
        '  stalled_interval_ms: 1000',
        '  shutdown_grace_ms: 2000',
        '  api_timeout_ms: 120000',
        options.yaml ?? '',
      ].join('\n'),
    );
  let gateway: Gateway | undefined;
  let address: string | undefined;
  try {
    const config = loadConfig({
      home,
      env: {
        TERMINAL_CWD: workdir,
        ...(options.mode === 'bullmq' ? { REDIS_URL } : {}),
        ...options.env,
      },
    });
    gateway = await createGateway({
      config,
      logger: silentLogger,
      baseEnv: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', HOME: userHome },
      builtinToolsDir: TOOLS_DIR,
      role: options.role ?? 'gateway',
      ...(options.adapters !== undefined ? { adapters: options.adapters } : {}),
      ...(options.platforms !== undefined ? { platforms: options.platforms } : {}),
      ...(options.sweepIntervalMs !== undefined ? { sweepIntervalMs: options.sweepIntervalMs } : {}),
      ...(options.settledGraceMs !== undefined ? { settledGraceMs: options.settledGraceMs } : {}),
    });
    address = await gateway.start({ workers: options.workers ?? true });
  } catch (error) {
    // A gateway that was expected not to start leaves no directories behind.
    await gateway?.close();
    if (!reuse) rmSync(home, { recursive: true, force: true });
    if (options.workdir === undefined) rmSync(workdir, { recursive: true, force: true });
    rmSync(userHome, { recursive: true, force: true });
    throw error;
  }
  const started = gateway;
  const baseURL = `${address ?? 'http://127.0.0.1:0'}/v1`;
  return {
    gateway: started,
    home,
    workdir,
    userHome,
    baseURL,
    prefix,
    client: (clientOptions = {}) =>
      new OpenAI({
        baseURL,
        apiKey: clientOptions.apiKey ?? 'unused',
        maxRetries: 0,
        timeout: 120_000,
        ...(clientOptions.headers !== undefined ? { defaultHeaders: clientOptions.headers } : {}),
      }),
    async stop() {
      await started.close();
      rmSync(userHome, { recursive: true, force: true });
    },
    async close() {
      await started.close();
      rmSync(home, { recursive: true, force: true });
      rmSync(workdir, { recursive: true, force: true });
      rmSync(userHome, { recursive: true, force: true });
      if (options.mode === 'bullmq') await deleteKeys(`${prefix}*`);
    },
  };
}

/**
 * The usual chat set-up of the control-plane tests: the fake model at `modelBaseURL`, the test
 * adapter(s), and Alice (`test:alice`) the one allowed user. Spread into `startTestGateway`.
 */
export function chatGatewayOptions(modelBaseURL: string, adapters: readonly PlatformAdapter[]) {
  return {
    env: {
      OPENAI_BASE_URL: modelBaseURL,
      OPENAI_API_KEY: 'sk-test-0123456789abcdef',
      HERMES_MODEL: 'fake-model',
    },
    yaml: ['gateway:', '  allowed_users: ["test:alice"]'].join('\n'),
    adapters,
  };
}

export async function deleteKeys(pattern: string): Promise<void> {
  const redis = new Redis(REDIS_URL);
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 500);
      cursor = next;
      if (keys.length > 0) await redis.del(...keys);
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}

/**
 * Polls `condition` until it holds. The default deadline stays below the test timeout (20 s), so
 * a wait that never ends fails with the condition's own source rather than "Test timed out".
 */
export async function waitFor(
  condition: () => boolean | Promise<boolean>,
  timeoutMs = 15_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await condition()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`condition not met within ${timeoutMs} ms: ${String(condition).slice(0, 300)}`);
}

const BIN = resolve(import.meta.dirname, '../../../bin/hermes-gateway');

/**
 * `hermes-gateway worker` in a child process, started the way an operator would, on the test
 * gateway's HERMES_HOME and Redis. Its stderr goes to `onStderr`.
 */
export function spawnCliWorker(
  gw: Pick<TestGateway, 'home' | 'workdir' | 'userHome'>,
  options: {
    readonly env: Record<string, string>;
    readonly logLevel: 'warn' | 'error';
    readonly onStderr: (text: string) => void;
  },
): ChildProcess {
  const child = spawn(BIN, ['worker'], {
    env: {
      PATH: process.env['PATH'] ?? '/usr/bin:/bin',
      HOME: gw.userHome,
      HERMES_HOME: gw.home,
      REDIS_URL,
      TERMINAL_CWD: gw.workdir,
      HERMES_LOG_LEVEL: options.logLevel,
      ...options.env,
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  child.stderr?.on('data', (chunk: Buffer) => options.onStderr(chunk.toString()));
  return child;
}
