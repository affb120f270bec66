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

/** Where `loadConfig` keeps secret values found outside the schema (non-enumerable, never printed). */
const DISCOVERED = Symbol('hermes.discoveredSecrets');

/** Secret values found by this length or more when discovered (shorter ones blank ordinary words). */
export const MIN_DISCOVERED_SECRET_CHARS = 6;

/**
 * Attaches secret values found outside the schema (the values of `$HERMES_HOME/.env`, the
 * environment's credential-named variables) to a config object before it is frozen. The property
 * is a non-enumerable symbol: `doctor`, YAML/JSON output and copies never show it; only
 * `secretValues` reads it, so tool output can be scrubbed of them.
 */
export function attachDiscoveredSecrets(config: object, values: readonly string[]): void {
  Object.defineProperty(config, DISCOVERED, { value: Object.freeze([...values]), enumerable: false });
}

const SECRET_WORDS = new Set([
  'key',
  'secret',
  'token',
  'password',
  'passwd',
  'pwd',
  'passphrase',
  'pat',
  'auth',
  'authorization',
  'credential',
  'credentials',
  'cookie',
  'signature',
  'dsn',
  'salt',
  'private',
  'webhook',
]);

/** True for a config key or variable name that usually holds a credential (any case, any separator). */
export function isSecretName(name: string): boolean {
  const lower = name.toLowerCase();
  if (/secret|token|passw|api_?key|apikey|private_?key|credential/.test(lower)) return true;
  return lower.split(/[^a-z0-9]+/).some((word) => SECRET_WORDS.has(word));
}

const URL_PASSWORD = /\b[a-z][a-z0-9+.-]*:\/\/[^\s/:@]*:([^\s/@]+)@/gi;

/** Passwords written into URLs (`scheme://user:password@host`), as written and decoded. */
export function urlPasswords(text: string): string[] {
  const out: string[] = [];
  for (const match of text.matchAll(URL_PASSWORD)) {
    const raw = match[1] as string;
    out.push(raw);
    try {
      const decoded = decodeURIComponent(raw);
      if (decoded !== raw) out.push(decoded);
    } catch {
      // Not valid percent-encoding: the raw spelling is enough.
    }
  }
  return out;
}

/** An enum-like setting (`hmac`, `bearer`, `api-key`): never a secret, and blanking it would hurt. */
const WORDLIKE = /^[a-z]+(?:[-_][a-z]+)*$/;

/**
 * Secret values present in a config, for redaction of free text (errors, logs, tool output):
 * the values at the secret paths (4 characters or more), every other string under a
 * credential-looking key and every password written into a URL (6 or more), and the values
 * `loadConfig` discovered (`.env`, credential-named environment variables).
 */
export function secretValues(config: unknown): string[] {
  const out = new Set<string>();
  forEachSecret(config, (record, key) => {
    const value = record[key];
    if (typeof value === 'string' && value.length >= 4) out.add(value);
  });
  const visit = (node: unknown, underSecretKey: boolean): void => {
    if (typeof node === 'string') {
      if (underSecretKey && node.length >= MIN_DISCOVERED_SECRET_CHARS && !WORDLIKE.test(node)) out.add(node);
      for (const password of urlPasswords(node)) if (password.length >= 4) out.add(password);
      return;
    }
    if (typeof node !== 'object' || node === null) return;
    if (Array.isArray(node)) {
      for (const child of node) visit(child, underSecretKey);
      return;
    }
    for (const [key, child] of Object.entries(node)) visit(child, underSecretKey || isSecretName(key));
  };
  visit(config, false);
  if (typeof config === 'object' && config !== null) {
    const discovered = (config as { [DISCOVERED]?: readonly string[] })[DISCOVERED];
    for (const value of discovered ?? []) out.add(value);
  }
  return [...out];
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
