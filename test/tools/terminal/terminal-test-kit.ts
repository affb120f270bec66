import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from '../../../src/config/config-schema.js';
import type { ToolServices } from '../../../src/registry/tool-services.js';
import type { ToolContext } from '../../../src/registry/tool-types.js';
import type {} from '../../../src/tools/terminal/terminal-services.js';
import { silentLogger } from '../../helpers/test-config.js';

/** PATH for test commands: the usual system directories only. */
export const SYSTEM_PATH = '/usr/local/bin:/usr/bin:/bin';

/** True while `pid` names a live process (a zombie waiting to be reaped counts as dead). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const state = stat.slice(stat.lastIndexOf(')') + 2).charAt(0);
    return state !== 'Z' && state !== 'X';
  } catch {
    return false;
  }
}

/** Polls `condition` until it holds; throws after `timeoutMs` (a bound, not a timing assertion). */
export async function waitUntil(condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not reached in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Writes an executable shell script. */
export function writeScript(dir: string, name: string, body: string): string {
  mkdirSync(dir, { recursive: true });
  const path = join(dir, name);
  writeFileSync(path, `#!/bin/sh\n${body}\n`);
  chmodSync(path, 0o755);
  return path;
}

export function readPid(path: string): number {
  return Number.parseInt(readFileSync(path, 'utf8').trim(), 10);
}

export function fileExists(path: string): boolean {
  return existsSync(path);
}

export interface CtxOptions {
  readonly sessionKey?: string;
  readonly cwd: string;
  readonly signal?: AbortSignal;
  readonly unattended?: boolean;
}

export function makeServices(config: Config, extra: Partial<ToolServices>): ToolServices {
  return { config, logger: silentLogger, ...extra };
}

export function makeCtx(services: ToolServices, options: CtxOptions): ToolContext {
  return {
    signal: options.signal ?? new AbortController().signal,
    sessionKey: options.sessionKey ?? 'agent:main:test:dm:1',
    taskId: 'task-1',
    cwd: options.cwd,
    userId: 'u1',
    platform: 'test',
    unattended: options.unattended ?? false,
    toolCallId: 'call-1',
    services,
  };
}
