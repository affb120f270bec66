import { secretEnvNames } from '../../config/mask-secrets.js';

/**
 * Variables every command receives when the gateway has them; nothing else passes unless
 * `terminal.env_passthrough` names it. `LC_*` is a glob. `NO_COLOR` is a preference with no
 * secret in it; `COLORTERM` is left out (output goes to a pipe, colour hints only add escape
 * codes we strip) and so is `PWD` (the shell sets it from the real working directory).
 */
export const BASE_ENV_NAMES: readonly string[] = [
  'PATH',
  'HOME',
  'USER',
  'LOGNAME',
  'SHELL',
  'LANG',
  'LANGUAGE',
  'LC_*',
  'TZ',
  'TERM',
  'TMPDIR',
  'NO_COLOR',
];

/** PATH used when the base environment has none. */
export const FALLBACK_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

/** Names of the environment variables that feed the gateway's own secrets (tokens, keys, REDIS_URL…). */
export function gatewaySecretEnvNames(): ReadonlySet<string> {
  return secretEnvNames();
}

function globToRegExp(glob: string): RegExp {
  const body = glob
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replace(/\*/g, '.*')
    .replace(/\?/g, '.');
  return new RegExp(`^${body}$`);
}

/** One predicate for a list of exact names and globs (`*`, `?`); case-sensitive, as on Linux. */
export function envNameMatcher(patterns: readonly string[]): (name: string) => boolean {
  const exact = new Set(patterns.filter((p) => !/[*?]/.test(p)));
  const globs = patterns.filter((p) => /[*?]/.test(p)).map(globToRegExp);
  return (name) => exact.has(name) || globs.some((glob) => glob.test(name));
}

export interface ChildEnv {
  /** The environment of the program we start (bash, bwrap, docker or ssh). */
  readonly env: Record<string, string>;
  /** Names present only because `terminal.env_passthrough` lets them (docker/ssh forward these). */
  readonly passedThrough: readonly string[];
}

/**
 * The environment of a command, by allowlist: the base names above, plus what
 * `terminal.env_passthrough` names, plus `clientNames` (variables the backend's own client
 * program needs, such as SSH_AUTH_SOCK for ssh; they are not forwarded to the command). The
 * gateway's own secrets never pass, whatever the lists say. Always has a PATH.
 */
export function childEnv(
  base: Readonly<Record<string, string | undefined>> | undefined,
  passthrough: readonly string[] = [],
  clientNames: readonly string[] = [],
): ChildEnv {
  const secrets = gatewaySecretEnvNames();
  const isBase = envNameMatcher(BASE_ENV_NAMES);
  const isPassthrough = envNameMatcher(passthrough);
  const isClient = envNameMatcher(clientNames);
  const env: Record<string, string> = {};
  const passedThrough: string[] = [];
  for (const [name, value] of Object.entries(base ?? {})) {
    if (value === undefined || secrets.has(name)) continue;
    if (isBase(name) || isClient(name)) env[name] = value;
    else if (isPassthrough(name)) {
      env[name] = value;
      passedThrough.push(name);
    }
  }
  if (env['PATH'] === undefined || env['PATH'] === '') env['PATH'] = FALLBACK_PATH;
  return { env, passedThrough: passedThrough.sort() };
}

/** `childEnv(...).env`: the environment a command runs with. */
export function scrubEnv(
  base: Readonly<Record<string, string | undefined>> | undefined,
  passthrough: readonly string[] = [],
): Record<string, string> {
  return childEnv(base, passthrough).env;
}

/** Names (never values) of the variables a command receives, for `doctor`. */
export function passingEnvNames(
  base: Readonly<Record<string, string | undefined>> | undefined,
  passthrough: readonly string[] = [],
): { readonly base: readonly string[]; readonly passthrough: readonly string[] } {
  const { env, passedThrough } = childEnv(base, passthrough);
  const through = new Set(passedThrough);
  return {
    base: Object.keys(env)
      .filter((name) => !through.has(name))
      .sort(),
    passthrough: passedThrough,
  };
}
