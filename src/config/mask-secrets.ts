import { SECRET_PATHS } from './config-schema.js';

/** Returns a plain copy of the config with every secret replaced by a mask keeping its last 2 chars. */
export function maskSecrets(config: unknown): unknown {
  const copy = structuredClone(config) as Record<string, unknown>;
  for (const path of SECRET_PATHS) {
    const parts = path.split('.');
    let node: unknown = copy;
    for (const part of parts.slice(0, -1)) {
      node = typeof node === 'object' && node !== null ? (node as Record<string, unknown>)[part] : undefined;
    }
    const leaf = parts[parts.length - 1] as string;
    if (typeof node === 'object' && node !== null) {
      const record = node as Record<string, unknown>;
      const value = record[leaf];
      if (typeof value === 'string' && value.length > 0) record[leaf] = maskValue(value);
    }
  }
  return copy;
}

export function maskValue(value: string): string {
  return value.length <= 8 ? '****' : `****${value.slice(-2)}`;
}

/** Secret values present in a config, for redaction of free text (errors, logs, tool output). */
export function secretValues(config: unknown): string[] {
  const out: string[] = [];
  for (const path of SECRET_PATHS) {
    let node: unknown = config;
    for (const part of path.split('.')) {
      node = typeof node === 'object' && node !== null ? (node as Record<string, unknown>)[part] : undefined;
    }
    if (typeof node === 'string' && node.length >= 4) out.push(node);
  }
  return out;
}
