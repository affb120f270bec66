import { isLoopbackHost } from '../../lib/bearer-auth.js';
import type { PlatformDefinition } from '../platform.js';
import { addWebChatRoutes, WEB_UI_PREFIX } from './register-web-chat.js';

/**
 * The web chat (`/ui/chat`): a page that talks to the agent over the Runs API, on whenever the
 * API server is. The page holds no data; every call it makes goes to `/v1` with the API key.
 */
export const webChatPlatform: PlatformDefinition = {
  name: 'web_chat',
  configSection: 'api_server',
  chat: false,
  describe(config) {
    const api = config.platforms.api_server;
    if (!api.enabled) return { usable: false, detail: 'off with the API server (API_SERVER_ENABLED)' };
    if (api.key === undefined && !isLoopbackHost(config.http.host)) {
      return { usable: false, detail: 'off while the API server refuses to start (no API_SERVER_KEY)' };
    }
    return { usable: true, detail: `http://${config.http.host}:${config.http.port}${WEB_UI_PREFIX}/chat` };
  },
  fromConfig(config) {
    const api = config.platforms.api_server;
    if (!api.enabled || (api.key === undefined && !isLoopbackHost(config.http.host))) return undefined;
    return {
      label: 'web_chat',
      routes: {
        prefix: WEB_UI_PREFIX,
        register: (app) => addWebChatRoutes(app, { keyRequired: api.key !== undefined }),
      },
    };
  },
};
