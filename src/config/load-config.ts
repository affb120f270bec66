import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseEnv } from 'node:util';
import { parse as parseYaml } from 'yaml';
import type { z } from 'zod';
import { HermesError } from '../errors/hermes-error.js';
import { type Config, configSchema, SECRET_PATHS } from './config-schema.js';
import { ENV_BINDINGS, type EnvKind } from './env-map.js';
import {
  attachDiscoveredSecrets,
  isSecretName,
  MIN_DISCOVERED_SECRET_CHARS,
  secretEnvNames,
  urlPasswords,
} from './mask-secrets.js';

export interface LoadConfigOptions {
  /** The environment to read (main.ts passes process.env; tests pass their own). */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Overrides HERMES_HOME. */
  readonly home?: string;
}

/** Resolves HERMES_HOME the same way everywhere: explicit, then env, then ~/.hermes-gateway. */
export function resolveHome(env: Readonly<Record<string, string | undefined>>, home?: string): string {
  const raw = home ?? nonEmpty(env['HERMES_HOME']) ?? join(homedir(), '.hermes-gateway');
  return resolve(raw.startsWith('~/') ? join(homedir(), raw.slice(2)) : raw);
}

/**
 * Loads `$HERMES_HOME/config.yaml`, layers `$HERMES_HOME/.env` and then the real environment on
 * top, validates everything against the strict schema and returns a deeply frozen object.
 * A missing config file is fine (all defaults); a malformed one is an error naming the file.
 */
export function loadConfig(options: LoadConfigOptions): Config {
  const home = resolveHome(options.env, options.home);
  const configPath = join(home, 'config.yaml');
  const fileValues = readYamlFile(configPath);
  const dotEnv = readDotEnv(join(home, '.env'));
  const env = { ...dotEnv, ...options.env };
  const layered = applyEnv(fileValues, env, configPath);
  const result = configSchema.safeParse(layered);
  if (!result.success) {
    throw new HermesError('config_invalid', formatIssues(result.error.issues, configPath));
  }
  refuseSecretPassthrough(result.data.terminal.env_passthrough, configPath);
  const config = { ...result.data, home, configPath };
  attachDiscoveredSecrets(config, discoveredSecrets(dotEnv, options.env));
  return deepFreeze(config) as Config;
}

/**
 * Secret values that live outside the schema, for scrubbing tool output: every value of
 * `$HERMES_HOME/.env` (it is the secrets file; only values of the gateway's own non-secret
 * settings such as HERMES_HTTP_PORT are left out), the values of credential-named variables of
 * the environment, and every password written into a URL in either. Short values are skipped.
 */
function discoveredSecrets(
  dotEnv: Readonly<Record<string, string>>,
  env: Readonly<Record<string, string | undefined>>,
): string[] {
  const secretPaths = new Set(SECRET_PATHS);
  const settings = new Set(ENV_BINDINGS.filter((b) => !secretPaths.has(b.path)).map((b) => b.name));
  const out = new Set<string>();
  const add = (value: string, whole: boolean): void => {
    if (whole && value.trim().length >= MIN_DISCOVERED_SECRET_CHARS) out.add(value);
    for (const password of urlPasswords(value)) if (password.length >= 4) out.add(password);
  };
  for (const [name, value] of Object.entries(dotEnv)) add(value, !settings.has(name));
  for (const [name, value] of Object.entries(env)) {
    if (value !== undefined) add(value, isSecretName(name) && !settings.has(name));
  }
  return [...out];
}

/**
 * `terminal.env_passthrough` may not hand a command one of the gateway's own secrets: an entry
 * naming one stops the start with a message (a glob simply never matches them).
 */
function refuseSecretPassthrough(entries: readonly string[], configPath: string): void {
  const secrets = secretEnvNames();
  const named = entries.filter((entry) => secrets.has(entry));
  if (named.length === 0) return;
  throw new HermesError(
    'config_invalid',
    `invalid configuration (${configPath}, with environment overrides):\n  - 'terminal.env_passthrough': ${named.join(', ')} ${named.length > 1 ? 'are' : 'is'} the gateway's own secret${named.length > 1 ? 's' : ''} and never reach${named.length > 1 ? '' : 'es'} commands; remove ${named.length > 1 ? 'them' : 'it'}`,
  );
}

function readYamlFile(path: string): Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw new HermesError('config_unreadable', `cannot read ${path}: ${(error as Error).message}`, {
      cause: error,
    });
  }
  let parsed: unknown;
  try {
    parsed = parseYaml(text);
  } catch (error) {
    throw new HermesError('config_invalid', `${path}: not valid YAML: ${(error as Error).message}`, {
      cause: error,
    });
  }
  if (parsed === null || parsed === undefined) return {};
  if (typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new HermesError('config_invalid', `${path}: the top level must be a mapping of keys`);
  }
  return parsed as Record<string, unknown>;
}

/** The variables of a `.env` file; none when it is missing or unreadable. */
export function readDotEnv(path: string): Record<string, string> {
  try {
    return parseEnv(readFileSync(path, 'utf8')) as Record<string, string>;
  } catch {
    return {};
  }
}

function applyEnv(
  base: Record<string, unknown>,
  env: Readonly<Record<string, string | undefined>>,
  configPath: string,
): Record<string, unknown> {
  const out = structuredClone(base);
  for (const binding of ENV_BINDINGS) {
    const raw = nonEmpty(env[binding.name]);
    if (raw === undefined) continue;
    setPath(out, binding.path, convert(raw, binding.kind, binding.name, configPath));
  }
  return out;
}

function convert(raw: string, kind: EnvKind, name: string, configPath: string): unknown {
  switch (kind) {
    case 'string':
      return raw;
    case 'csv':
      return raw
        .split(',')
        .map((part) => part.trim())
        .filter((part) => part.length > 0);
    case 'int': {
      if (!/^\d+$/.test(raw.trim())) {
        throw new HermesError('config_invalid', `environment ${name}: expected a whole number, got "${raw}"`);
      }
      return Number(raw.trim());
    }
    case 'bool': {
      const lowered = raw.trim().toLowerCase();
      if (['1', 'true', 'yes', 'on'].includes(lowered)) return true;
      if (['0', 'false', 'no', 'off'].includes(lowered)) return false;
      throw new HermesError(
        'config_invalid',
        `environment ${name}: expected true/false (or 1/0), got "${raw}" (config file ${configPath})`,
      );
    }
  }
}

function setPath(target: Record<string, unknown>, path: string, value: unknown): void {
  const parts = path.split('.');
  let node: Record<string, unknown> = target;
  for (const part of parts.slice(0, -1)) {
    const next = node[part];
    if (typeof next !== 'object' || next === null || Array.isArray(next)) {
      const created: Record<string, unknown> = {};
      node[part] = created;
      node = created;
    } else {
      node = next as Record<string, unknown>;
    }
  }
  node[parts[parts.length - 1] as string] = value;
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value;
}

function formatIssues(issues: readonly z.core.$ZodIssue[], configPath: string): string {
  const lines = issues.map((issue) => {
    const at = issue.path.map(String).join('.');
    if (issue.code === 'unrecognized_keys') {
      const keys = issue.keys.map((key) => (at ? `${at}.${key}` : key));
      return `unknown key${keys.length > 1 ? 's' : ''} ${keys.map((k) => `'${k}'`).join(', ')}`;
    }
    return `'${at || '(root)'}': ${issue.message}`;
  });
  return `invalid configuration (${configPath}, with environment overrides):\n  - ${lines.join('\n  - ')}`;
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}
