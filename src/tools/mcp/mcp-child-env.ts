import { HermesError } from '../../errors/hermes-error.js';
import { childEnv, gatewaySecretEnvNames } from '../terminal/scrub-env.js';

/**
 * Replaces each `${NAME}` in a configured value with NAME from the gateway's environment. The
 * gateway's own secrets (bot tokens, API keys, REDIS_URL…) are refused: they never reach a server.
 */
export function interpolateEnv(
  value: string,
  env: Readonly<Record<string, string | undefined>>,
  where: string,
): string {
  const secrets = gatewaySecretEnvNames();
  return value.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_whole, name: string) => {
    if (secrets.has(name)) {
      throw new HermesError(
        'config_invalid',
        `${where}: \${${name}} is one of the gateway's own secrets and is never passed to an MCP server`,
      );
    }
    const found = env[name];
    if (found === undefined) {
      throw new HermesError(
        'config_invalid',
        `${where}: \${${name}} is not set in the gateway's environment`,
      );
    }
    return found;
  });
}

/**
 * The environment of a stdio MCP server: the terminal's allowlisted base (PATH, HOME, LANG…,
 * never a gateway secret) plus the server's own `env:` entries.
 */
export function mcpChildEnv(
  baseEnv: Readonly<Record<string, string | undefined>>,
  serverEnv: Readonly<Record<string, string>>,
  server: string,
  lookupEnv: Readonly<Record<string, string | undefined>> = baseEnv,
): Record<string, string> {
  const env = childEnv(baseEnv).env;
  for (const [name, value] of Object.entries(serverEnv)) {
    env[name] = interpolateEnv(value, lookupEnv, `mcp_servers.${server}.env.${name}`);
  }
  return env;
}
