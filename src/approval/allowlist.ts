import { readFileSync, statSync } from 'node:fs';
import type { Logger } from 'pino';
import { appendToCommandAllowlist, commandAllowlistOf } from './allowlist-file.js';
import { normalizeForRules } from './deny-rules.js';
import { globMatch, hasGlobSyntax } from './policy-glob.js';

/**
 * The permanent allowlist (`command_allowlist` in config.yaml). An entry is either a finding key
 * ("recursive delete") that approves that finding in any command, or an exact command / glob
 * (`podman *`) that approves a whole command — only a non-compound one, so `podman ps; rm -rf x`
 * is never let through by `podman *`.
 *
 * The in-process copy starts from the frozen config and is replaced by the on-disk list after
 * each save, and whenever config.yaml has changed (checked at most once per `refreshMs` when a
 * command is checked): an `always` given in another process sharing HERMES_HOME (the gateway
 * that got the click, while this worker runs the turns) and hand edits take effect here too.
 */
export interface PermanentAllowlist {
  /** True when the finding key is allowlisted. */
  hasKey(key: string): boolean;
  /** True when a non-compound command equals or glob-matches an entry (case-sensitive). */
  matchesCommand(command: string, compound: boolean): boolean;
  entries(): readonly string[];
  /**
   * Adds entries in this process and appends them to config.yaml. Never throws: a failed write
   * is logged and reported, the entries still apply in this process.
   */
  add(entries: readonly string[]): Promise<AllowlistSaveResult>;
  /**
   * Brings the in-process copy up to date with where entries are kept (another process may have
   * added some); the gate awaits it before it consults the list. Never throws.
   */
  sync(): Promise<void>;
}

export type AllowlistSaveResult =
  | { readonly persisted: true; readonly entries: readonly string[] }
  /** `place`: where the entries could not be written (`config.yaml`, `the database`). */
  | { readonly persisted: false; readonly error: string; readonly place?: string };

export interface PermanentAllowlistOptions {
  readonly initial: readonly string[];
  /** config.yaml to append to; without one, additions live only in this process. */
  readonly configPath: string | undefined;
  readonly logger: Logger;
  /** Least time between two looks at config.yaml, ms (default 1000). */
  readonly refreshMs?: number;
  readonly now?: () => number;
}

export function createPermanentAllowlist(options: PermanentAllowlistOptions): PermanentAllowlist {
  let current = new Set(options.initial);
  // Saves run one after another so two `always` answers never interleave their read-modify-write.
  let queue: Promise<unknown> = Promise.resolve();
  const refreshMs = options.refreshMs ?? 1000;
  const now = options.now ?? Date.now;
  let lastLook = Number.NEGATIVE_INFINITY;
  let seen: string | undefined;
  /** Added here and not (yet) known to be on disk: kept across reloads (a failed save still applies here). */
  const unsaved = new Set<string>();

  /** Takes the on-disk list when config.yaml changed since the last look (never throws). */
  function refresh(): void {
    const { configPath } = options;
    if (configPath === undefined) return;
    const at = now();
    if (at - lastLook < refreshMs) return;
    lastLook = at;
    let stamp: string;
    try {
      const info = statSync(configPath);
      stamp = `${info.mtimeMs}:${info.ctimeMs}:${info.size}:${info.ino}`;
    } catch {
      return; // no file (yet): nothing new to learn
    }
    if (stamp === seen) return;
    let onDisk: string[] | undefined;
    try {
      onDisk = commandAllowlistOf(readFileSync(configPath, 'utf8'));
    } catch {
      onDisk = undefined;
    }
    if (onDisk === undefined) return; // mid-edit or unreadable: look again next time
    seen = stamp;
    current = new Set([...onDisk, ...unsaved]);
  }

  return {
    hasKey: (key) => {
      refresh();
      return current.has(key);
    },

    matchesCommand(command, compound) {
      if (compound) return false;
      refresh();
      const whole = normalizeForRules(command);
      if (whole === '') return false;
      for (const entry of current) {
        if (entry === whole || entry === command) return true;
        if (hasGlobSyntax(entry) && globMatch(entry, whole)) return true;
      }
      return false;
    },

    entries: () => {
      refresh();
      return [...current];
    },

    sync: () => {
      refresh();
      return Promise.resolve();
    },

    add(entries) {
      current = new Set([...current, ...entries]);
      for (const entry of entries) unsaved.add(entry);
      const { configPath } = options;
      if (configPath === undefined) {
        return Promise.resolve({
          persisted: false,
          error: 'no config file to write to',
          place: 'config.yaml',
        });
      }
      const save = queue.then(async (): Promise<AllowlistSaveResult> => {
        try {
          const onDisk = await appendToCommandAllowlist(configPath, entries);
          for (const entry of entries) unsaved.delete(entry);
          current = new Set([...onDisk, ...entries, ...unsaved]);
          options.logger.info({ added: entries, configPath }, 'command_allowlist updated');
          return { persisted: true, entries: onDisk };
        } catch (error) {
          const message = error instanceof Error ? error.message : String(error);
          options.logger.warn({ err: error, configPath }, 'could not save command_allowlist');
          return { persisted: false, error: message, place: 'config.yaml' };
        }
      });
      queue = save;
      return save;
    },
  };
}
