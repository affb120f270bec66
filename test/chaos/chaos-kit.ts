import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { resolve } from 'node:path';
import { Redis } from 'ioredis';

const BIN = resolve(import.meta.dirname, '../../bin/hermes-gateway');

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
 * A redis-server of the test's own on a free port, with the append-only file on (fsync on every
 * write), so it can be stopped and started again without losing what it acknowledged. Never the
 * shared server on 6379.
 */
export interface OwnRedis {
  readonly url: string;
  /** Stops the server (SIGTERM, it writes its files) and starts it again on the same port and files. */
  restart(): Promise<void>;
  close(): Promise<void>;
}

export async function startOwnRedis(dir: string): Promise<OwnRedis> {
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
        'always',
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
  const stop = async () => {
    const running = child;
    child = undefined;
    if (running === undefined || running.exitCode !== null) return;
    const exited = once(running, 'exit');
    running.kill('SIGTERM');
    await exited;
  };
  await start();
  return {
    url,
    async restart() {
      await stop();
      await start();
    },
    close: stop,
  };
}

/** `hermes-gateway <command>` as an operator starts it, its output kept for failure messages. */
export function spawnGatewayProcess(
  command: 'start' | 'worker',
  env: Record<string, string>,
  onStderr: (text: string) => void,
): ChildProcess {
  const child = spawn(BIN, [command], {
    env: {
      PATH: process.env['PATH'] ?? '/usr/bin:/bin',
      HERMES_LOG_LEVEL: process.env['CHAOS_LOG_LEVEL'] ?? 'error',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // The log goes to stdout, start-up failures to stderr: both are kept.
  child.stdout?.on('data', (chunk: Buffer) => onStderr(chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => onStderr(chunk.toString()));
  return child;
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
