import type { Logger } from 'pino';
import type { AllowlistSaveResult, PermanentAllowlist } from './allowlist.js';
import { normalizeForRules } from './deny-rules.js';
import { globMatch, hasGlobSyntax } from './policy-glob.js';

/**
 * Where "always" entries live when every process shares a database (DATABASE_URL): one list for
 * every gateway and worker on every machine. `add` is idempotent and returns the whole list.
 */
export interface AllowlistEntries {
  list(): Promise<readonly string[]>;
  add(entries: readonly string[]): Promise<readonly string[]>;
}

export interface SharedAllowlistOptions {
  /** The config's own `command_allowlist` (config.yaml, still read for hand edits); never written. */
  readonly config: PermanentAllowlist;
  /** The shared list an "always" answer is written to. */
  readonly shared: AllowlistEntries;
  readonly logger: Logger;
  /** Least time between two reads of the shared list, ms (default 1000; 0: every `sync`). */
  readonly refreshMs?: number;
  readonly now?: () => number;
}

/**
 * The permanent allowlist of a deployment on a shared database: the config's entries plus those
 * "always" answers added anywhere. `sync()` (awaited by the gate before it looks) reads the shared
 * list when the copy here is older than `refreshMs`; concurrent calls share one read, and a failed
 * read keeps the last list (logged). An `add` goes to the database only — config.yaml is the
 * operator's file and stays as deployed — and applies here at once, even when the write fails.
 */
export function createSharedAllowlist(options: SharedAllowlistOptions): PermanentAllowlist {
  const refreshMs = options.refreshMs ?? 1000;
  const now = options.now ?? Date.now;
  let shared = new Set<string>();
  let loadedAt = Number.NEGATIVE_INFINITY;
  let loading: Promise<void> | undefined;
  /** Added here and not (yet) known to be stored: kept across reloads. */
  const unsaved = new Set<string>();

  function take(list: readonly string[]): void {
    shared = new Set([...list, ...unsaved]);
  }

  function load(): Promise<void> {
    loading ??= (async () => {
      const started = now();
      try {
        take(await options.shared.list());
        loadedAt = started;
      } catch (error) {
        options.logger.warn({ err: errorText(error) }, 'could not read the shared command allowlist');
      } finally {
        loading = undefined;
      }
    })();
    return loading;
  }

  return {
    hasKey: (key) => shared.has(key) || options.config.hasKey(key),

    matchesCommand(command, compound) {
      if (options.config.matchesCommand(command, compound)) return true;
      if (compound) return false;
      const whole = normalizeForRules(command);
      if (whole === '') return false;
      for (const entry of shared) {
        if (entry === whole || entry === command) return true;
        if (hasGlobSyntax(entry) && globMatch(entry, whole)) return true;
      }
      return false;
    },

    entries: () => [...new Set([...options.config.entries(), ...shared])],

    async sync() {
      await options.config.sync();
      if (now() - loadedAt < refreshMs && loading === undefined) return;
      await load();
    },

    async add(entries): Promise<AllowlistSaveResult> {
      for (const entry of entries) {
        unsaved.add(entry);
        shared.add(entry);
      }
      try {
        const stored = await options.shared.add(entries);
        for (const entry of entries) unsaved.delete(entry);
        take(stored);
        options.logger.info({ added: entries }, 'shared command allowlist updated');
        return { persisted: true, entries: stored };
      } catch (error) {
        options.logger.warn({ err: errorText(error) }, 'could not save the shared command allowlist');
        return { persisted: false, error: errorText(error), place: 'the database' };
      }
    },
  };
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
