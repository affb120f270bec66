import type { PlatformDefinition } from '../platform.js';
import { addWebhookRoutes, WEBHOOK_PREFIX, webhooksEnabled } from './register-webhook-platform.js';
import { validateWebhookRoutes } from './validate-webhook-routes.js';

/** Signed inbound webhooks (`/webhooks/<route>`), on when `platforms.webhook.enabled` (WEBHOOK_ENABLED). */
export const webhookPlatform: PlatformDefinition = {
  name: 'webhook',
  configSection: 'webhook',
  chat: false,
  describe(config) {
    const webhook = config.platforms.webhook;
    if (!webhook.enabled) return { usable: false, detail: 'disabled (WEBHOOK_ENABLED=true to enable)' };
    return {
      usable: true,
      detail: webhook.secret ? 'enabled, default secret set' : 'enabled (routes need their own secrets)',
    };
  },
  fromConfig(config, context) {
    // Checked even while disabled: a wrong route stops the start rather than a later enable.
    const routes = validateWebhookRoutes(config, { canDeliverToChat: context.chatPlatforms.length > 0 });
    if (!webhooksEnabled(config, context.logger.child({ component: 'webhook' }))) return undefined;
    return {
      label: 'webhook',
      routes: {
        prefix: WEBHOOK_PREFIX,
        register: (app, services) =>
          addWebhookRoutes(
            app,
            {
              config,
              logger: context.logger,
              ingress: services.ingress,
              deliverToChat: services.deliverToChat,
              ...(services.durable !== undefined ? { durable: services.durable } : {}),
            },
            routes,
          ),
      },
    };
  },
};
