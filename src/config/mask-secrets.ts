import { SECRET_PATHS } from './config-schema.js';
import { ENV_BINDINGS } from './env-map.js';

/**
 * Calls `visit(record, key)` for every place a secret path points at; a `*` segment matches
 * every key of a mapping (route names, for instance).
 */
function forEachSecret(root: unknown, visit: (record: Record<string, unknown>, key: string) => void): void {
  for (const path of SECRET_PATHS) {
    const parts = path.split('.');
    const walk = (node: unknown, index: number): void => {
      if (typeof node !== 'object' || node === null) return;
      const record = node as Record<string, unknown>;
      const part = parts[index] as string;
      const keys = part === '*' ? Object.keys(record) : [part];
      for (const key of keys) {
        if (index === parts.length - 1) visit(record, key);
        else walk(record[key], index + 1);
      }
    };
    walk(root, 0);
  }
}

/** Returns a plain copy of the config with every secret replaced by a mask keeping its last 2 chars. */
export function maskSecrets(config: unknown): unknown {
  const copy = structuredClone(config);
  forEachSecret(copy, (record, key) => {
    const value = record[key];
    if (typeof value === 'string' && value.length > 0) record[key] = maskValue(value);
  });
  return copy;
}

export function maskValue(value: string): string {
  return value.length <= 8 ? '****' : `****${value.slice(-2)}`;
}

/** Secret values present in a config, for redaction of free text (errors, logs, tool output). */
export function secretValues(config: unknown): string[] {
  const out: string[] = [];
  forEachSecret(config, (record, key) => {
    const value = record[key];
    if (typeof value === 'string' && value.length >= 4) out.push(value);
  });
  return out;
}

/**
 * Names of the environment variables that feed the gateway's own secrets (`OPENAI_API_KEY`,
 * `TELEGRAM_BOT_TOKEN`, `API_SERVER_KEY`, `REDIS_URL`…), plus `DATABASE_URL` (the shared state
 * database). They never reach a command, whatever `terminal.env_passthrough` says.
 */
export function secretEnvNames(): ReadonlySet<string> {
  const secretPaths = new Set(SECRET_PATHS);
  return new Set([
    ...ENV_BINDINGS.filter((binding) => secretPaths.has(binding.path)).map((binding) => binding.name),
    'DATABASE_URL',
  ]);
}
