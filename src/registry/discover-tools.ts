import { readdir } from 'node:fs/promises';
import { extname, join } from 'node:path';
import type { Logger } from 'pino';
import { z } from 'zod';
import type { Registry } from './create-registry.js';
import { defineTool, isToolDefinition } from './define-tool.js';
import { importModule } from './import-module.js';

/** What a plugin's default-exported factory receives, so it needs no imports of its own. */
export interface PluginApi {
  readonly defineTool: typeof defineTool;
  readonly z: typeof z;
}

export interface DiscoveryFailure {
  readonly file: string;
  readonly error: string;
}

export interface DiscoveryReport {
  /** Modules imported, in order. */
  readonly modules: string[];
  /** Tool names registered (added or replaced). */
  readonly registered: string[];
  /** Tools the registry refused (shadowing another toolset's tool). */
  readonly rejected: string[];
  readonly failures: DiscoveryFailure[];
}

const MODULE_EXTENSIONS = new Set(['.ts', '.mts', '.js', '.mjs']);

/**
 * Imports every top-level module of each folder (sorted by name) and registers each exported
 * tool definition, so a new tool file needs no other edit. A module that fails to load is
 * logged and skipped; the others still load. A missing folder is not an error. `.ts` plugins load
 * in the compiled build too (see importModule).
 */
export async function discoverTools(options: {
  readonly registry: Registry;
  readonly dirs: readonly string[];
  readonly logger: Logger;
}): Promise<DiscoveryReport> {
  const report: DiscoveryReport = { modules: [], registered: [], rejected: [], failures: [] };
  for (const dir of options.dirs) {
    let entries: import('node:fs').Dirent[];
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') {
        report.failures.push({ file: dir, error: (error as Error).message });
        options.logger.error({ dir, err: (error as Error).message }, 'cannot read tool folder');
      }
      continue;
    }
    const files = entries
      .filter((e) => e.isFile() && MODULE_EXTENSIONS.has(extname(e.name)))
      .map((e) => e.name)
      .filter((name) => !name.endsWith('.d.ts') && !/\.(test|spec)\.[mc]?[jt]s$/.test(name))
      .sort();
    for (const name of files) {
      const file = join(dir, name);
      let namespace: Record<string, unknown>;
      try {
        namespace = await importModule(file);
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        report.failures.push({ file, error: message });
        options.logger.error({ file, err: message }, 'tool module failed to load; skipped');
        continue;
      }
      report.modules.push(file);
      const values = Object.entries(namespace).map(([name, value]) => ({ name, value }));
      const factory = namespace['default'];
      if (typeof factory === 'function') {
        try {
          const produced: unknown = await (factory as (api: PluginApi) => unknown)({ defineTool, z });
          values.push({ name: 'default()', value: produced });
        } catch (error) {
          const message = error instanceof Error ? error.message : String(error);
          report.failures.push({ file, error: message });
          options.logger.error({ file, err: message }, 'tool plugin factory failed; skipped');
          continue;
        }
      }
      for (const { value } of values) {
        const candidates = Array.isArray(value) ? value : [value];
        for (const candidate of candidates) {
          if (!isToolDefinition(candidate)) continue;
          const outcome = options.registry.register(candidate);
          (outcome === 'rejected' ? report.rejected : report.registered).push(candidate.name);
        }
      }
    }
  }
  return report;
}
