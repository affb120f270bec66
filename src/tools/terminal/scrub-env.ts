import { SECRET_PATHS } from '../../config/config-schema.js';
import { ENV_BINDINGS } from '../../config/env-map.js';

/** Any variable whose name looks like it holds a credential. */
const SECRET_NAME = /(TOKEN|SECRET|PASSWORD|API_KEY|PRIVATE_KEY)/i;

/** PATH used when the base environment has none. */
export const FALLBACK_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

/** Names of the environment variables that feed the gateway's own secrets (tokens, keys, REDIS_URL…). */
export function gatewaySecretEnvNames(): ReadonlySet<string> {
  const secretPaths = new Set(SECRET_PATHS);
  return new Set(
    ENV_BINDINGS.filter((binding) => secretPaths.has(binding.path)).map((binding) => binding.name),
  );
}

/** True when a variable must not reach a command run by the terminal tool. */
export function isSecretEnvName(
  name: string,
  gatewaySecrets: ReadonlySet<string> = gatewaySecretEnvNames(),
): boolean {
  return gatewaySecrets.has(name) || SECRET_NAME.test(name);
}

/**
 * The environment a command runs with: the base environment (main.ts passes process.env) minus
 * the gateway's own secrets and anything whose name looks like a credential. Always has a PATH.
 */
export function scrubEnv(
  base: Readonly<Record<string, string | undefined>> | undefined,
): Record<string, string> {
  const gatewaySecrets = gatewaySecretEnvNames();
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(base ?? {})) {
    if (value === undefined || isSecretEnvName(name, gatewaySecrets)) continue;
    out[name] = value;
  }
  if (out['PATH'] === undefined || out['PATH'] === '') out['PATH'] = FALLBACK_PATH;
  return out;
}
