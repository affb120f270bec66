import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import type { Config } from '../../src/config/config-schema.js';
import { loadConfig } from '../../src/config/load-config.js';
import type { ToolServices } from '../../src/registry/tool-services.js';

/** A fresh HERMES_HOME in the OS temp dir; `cleanup()` removes it. */
export function makeTempHome(prefix = 'hermes-test-'): { home: string; cleanup: () => void } {
  const home = mkdtempSync(join(tmpdir(), prefix));
  return { home, cleanup: () => rmSync(home, { recursive: true, force: true }) };
}

/** Loads a real config for a temp home with the given environment overrides. */
export function testConfig(home: string, env: Record<string, string> = {}): Config {
  return loadConfig({ env: { ...env }, home });
}

export const silentLogger = pino({ level: 'silent' });

export function testServices(config: Config, extra: Partial<ToolServices> = {}): ToolServices {
  return { config, logger: silentLogger, ...extra };
}
