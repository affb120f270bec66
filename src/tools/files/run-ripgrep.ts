import { type ChildProcess, spawn } from 'node:child_process';
import { HermesError } from '../../errors/hermes-error.js';
import { invalidPatternError } from './compile-search-regex.js';

const MAX_STDERR_CHARS = 4000;

/**
 * Runs ripgrep and hands each stdout line to `onLine` (return false to stop early; ripgrep is
 * then killed). Resolves `'missing'` when the command does not exist — the caller falls back to
 * the built-in search — and `'done'` otherwise. Exit codes 0 (matches) and 1 (none) are success;
 * errors ripgrep reports (bad regex, bad glob) become clear errors. The signal kills ripgrep.
 */
export function runRipgrep(
  command: string,
  args: readonly string[],
  cwd: string,
  signal: AbortSignal,
  onLine: (line: string) => boolean,
  pattern: string,
): Promise<'missing' | 'done'> {
  signal.throwIfAborted();
  return new Promise((resolve, reject) => {
    let child: ChildProcess;
    try {
      child = spawn(command, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'], windowsHide: true });
    } catch (error) {
      reject(error);
      return;
    }
    let stopped = false;
    let settled = false;
    let pending = '';
    let stderr = '';
    const settle = (action: () => void): void => {
      if (settled) return;
      settled = true;
      signal.removeEventListener('abort', onAbort);
      action();
    };
    const stop = (): void => {
      stopped = true;
      child.kill('SIGKILL');
    };
    const onAbort = (): void => stop();
    signal.addEventListener('abort', onAbort, { once: true });

    const feed = (chunk: string): void => {
      if (stopped) return;
      pending += chunk;
      let start = 0;
      for (let newline = pending.indexOf('\n'); newline !== -1; newline = pending.indexOf('\n', start)) {
        const line = pending.slice(start, newline);
        start = newline + 1;
        if (!onLine(line)) {
          stop();
          break;
        }
      }
      pending = pending.slice(start);
    };
    child.stdout?.setEncoding('utf8');
    child.stdout?.on('data', feed);
    child.stderr?.setEncoding('utf8');
    child.stderr?.on('data', (chunk: string) => {
      if (stderr.length < MAX_STDERR_CHARS) stderr += chunk;
    });
    child.on('error', (error: NodeJS.ErrnoException) => {
      settle(() => (error.code === 'ENOENT' ? resolve('missing') : reject(error)));
    });
    child.on('close', (code) => {
      settle(() => {
        if (signal.aborted) return reject(signal.reason);
        if (!stopped && pending !== '') onLine(pending);
        if (stopped || code === 0 || code === 1) return resolve('done');
        const message = stderr.trim();
        if (/regex parse error|error parsing regex/i.test(message)) {
          return reject(invalidPatternError(pattern, message.replace(/^regex parse error:\s*/i, '')));
        }
        if (code === 2 && message === '') return resolve('done');
        return reject(
          new HermesError('search_failed', `ripgrep failed (exit ${String(code)}): ${message.slice(0, 500)}`),
        );
      });
    });
  });
}
