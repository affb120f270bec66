import { HermesError } from '../../errors/hermes-error.js';
import { isLoopbackHost } from '../../lib/bearer-auth.js';
import type { PlatformDefinition } from '../platform.js';
import { API_SERVER_PREFIX, addApiServerRoutes } from './register-api-server.js';

/** The OpenAI-compatible API (`/v1`), on when `platforms.api_server.enabled` (API_SERVER_ENABLED). */
export const apiServerPlatform: PlatformDefinition = {
  name: 'api_server',
  configSection: 'api_server',
  chat: false,
  describe(config) {
    const api = config.platforms.api_server;
    if (!api.enabled) return { usable: false, detail: 'disabled (API_SERVER_ENABLED)' };
    if (api.key === undefined && !isLoopbackHost(config.http.host)) {
      return { usable: false, detail: `refuses to bind ${config.http.host} without API_SERVER_KEY` };
    }
    return {
      usable: true,
      detail: `http://${config.http.host}:${config.http.port}${API_SERVER_PREFIX}${api.key ? ' (key required)' : ''}`,
    };
  },
  fromConfig(config, context) {
    const api = config.platforms.api_server;
    if (!api.enabled) return undefined;
    if (api.key === undefined && !isLoopbackHost(config.http.host)) {
      throw new HermesError(
        'config_invalid',
        `the API server refuses to listen on ${config.http.host} without a key: set API_SERVER_KEY, or bind HERMES_HTTP_HOST to 127.0.0.1`,
      );
    }
    return {
      label: 'api_server',
      routes: {
        prefix: API_SERVER_PREFIX,
        register: (app, { ingress }) => addApiServerRoutes(app, { config, logger: context.logger, ingress }),
      },
    };
  },
};
