import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { resolve } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { Redis } from 'ioredis';
import { distStatus } from '../../scripts/source-fingerprint.mjs';

const ROOT = resolve(import.meta.dirname, '../..');
const BIN = resolve(ROOT, 'bin/hermes-gateway');

/** A loopback TCP port nothing listens on right now. */
export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  await new Promise<void>((done) => server.close(() => done()));
  return port;
}

/**
 * A redis-server of the test's own on a free port, with the append-only file on as
 * docs/operations.md asks of operators (`appendonly yes`, `appendfsync everysec`): Redis writes
 * each change to the file before it answers, so a killed server keeps everything it acknowledged
 * (only a crash of the machine can lose the last second, which `always` would keep). Never the
 * shared server on 6379.
 */
export interface OwnRedis {
  readonly url: string;
  /**
   * Stops the server and starts it again on the same port and files: SIGKILL by default (a
   * crash: only what the append-only file holds survives), SIGTERM (a clean shutdown) on request.
   */
  restart(signal?: 'SIGKILL' | 'SIGTERM'): Promise<void>;
  close(): Promise<void>;
}

/** `fsync`: the server's `appendfsync`. */
export async function startOwnRedis(
  dir: string,
  fsync: 'always' | 'everysec' = 'everysec',
): Promise<OwnRedis> {
  const port = await freePort();
  const url = `redis://127.0.0.1:${port}`;
  let child: ChildProcess | undefined;
  const start = async () => {
    child = spawn(
      'redis-server',
      [
        '--port',
        String(port),
        '--bind',
        '127.0.0.1',
        '--dir',
        dir,
        '--appendonly',
        'yes',
        '--appendfsync',
        fsync,
        '--save',
        '',
      ],
      { stdio: 'ignore' },
    );
    const deadline = Date.now() + 10_000;
    for (;;) {
      const probe = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
      probe.on('error', () => undefined);
      try {
        await probe.connect();
        if ((await probe.ping()) === 'PONG') return;
      } catch {
        if (Date.now() > deadline) throw new Error(`redis-server on ${port} did not start`);
        await new Promise((r) => setTimeout(r, 50));
      } finally {
        probe.disconnect();
      }
    }
  };
  const stop = async (signal: 'SIGKILL' | 'SIGTERM') => {
    const running = child;
    child = undefined;
    if (running === undefined || running.exitCode !== null || running.signalCode !== null) return;
    const exited = once(running, 'exit');
    running.kill(signal);
    await exited;
  };
  await start();
  return {
    url,
    async restart(signal = 'SIGKILL') {
      await stop(signal);
      await start();
    },
    close: () => stop('SIGTERM'),
  };
}

/** A `hermes-gateway` process of the test's. */
export interface GatewayProcess {
  readonly child: ChildProcess;
  readonly command: 'start' | 'worker';
  /** True once it logged that it started (its queue and, for `start`, its platforms run). */
  started(): boolean;
}

/**
 * `hermes-gateway <command>` as an operator starts it, its output kept for failure messages. It
 * logs at `info` at least (CHAOS_LOG_LEVEL may ask for more): its start-up line tells the test it
 * is up.
 */
export function spawnGatewayProcess(
  command: 'start' | 'worker',
  env: Record<string, string>,
  onOutput: (text: string) => void,
): GatewayProcess {
  const level = process.env['CHAOS_LOG_LEVEL'] ?? 'info';
  const child = spawn(BIN, [command], {
    env: {
      PATH: process.env['PATH'] ?? '/usr/bin:/bin',
      HERMES_LOG_LEVEL: ['debug', 'trace'].includes(level) ? level : 'info',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let up = false;
  let partial = '';
  const startedLine =
    command === 'start' ? '"msg":"hermes-gateway started"' : '"msg":"hermes-gateway worker started"';
  // The log goes to stdout, start-up failures to stderr: both are kept (CHAOS_LOG_DIR: whole, a
  // file per process, to follow a lost message through the processes).
  const logDir = process.env['CHAOS_LOG_DIR'];
  const keep = (chunk: Buffer) => {
    const text = chunk.toString();
    onOutput(text);
    if (!up) {
      partial = (partial + text).slice(-4_000);
      up = partial.includes(startedLine);
    }
    if (logDir !== undefined) appendFileSync(resolve(logDir, `${command}-${child.pid}.log`), chunk);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  return { child, command, started: () => up };
}

/**
 * Builds dist/ when it does not match the sources. Without a current build, every process
 * compiles the sources at start-up (seconds; a minute on a busy machine), and the workers the
 * test starts would mostly be killed while still compiling.
 */
export function ensureBuilt(): void {
  if (distStatus(ROOT).current) return;
  const result = spawnSync(process.execPath, [resolve(ROOT, 'scripts/build.mjs')], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    encoding: 'utf8',
  });
  if (result.status !== 0) throw new Error(`npm run build failed:\n${result.stderr}${result.stdout}`);
}

/** Kills a child for good (SIGKILL) and waits until it is gone. */
export async function killHard(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGKILL');
  await exited;
}

/** The side-effect log the agent's commands append to: one `<token> <pid of the runner>` a line. */
export function readSideEffects(path: string): { token: string; pid: number }[] {
  if (!existsSync(path)) return [];
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => {
      const [token, pid] = line.split(' ');
      return { token: token ?? '', pid: Number(pid) };
    });
}

/**
 * The platform message ids the gateway recorded as delivered (its delivery receipts in
 * `state.db`): a message the platform shows without a receipt was accepted by the platform but
 * not yet recorded by the gateway that sent it.
 */
export function recordedMessageIds(stateDb: string): Set<string> {
  const db = new BetterSqlite3(stateDb, { readonly: true, fileMustExist: true });
  try {
    db.pragma('busy_timeout = 5000');
    const rows = db.prepare('SELECT message_ids FROM deliveries').all() as { message_ids: string }[];
    return new Set(rows.flatMap((row) => JSON.parse(row.message_ids) as string[]));
  } finally {
    db.close();
  }
}
