import type * as Lark from '@larksuiteoapi/node-sdk';
import type { Logger } from 'pino';
import type { FeishuSettings } from './feishu-settings.js';
import { sdkLogger } from './sdk-logger.js';

/** The SDK's namespace. It is a large module, so it is loaded when Feishu is first used, not at import. */
export type LarkSdk = typeof Lark;
export type LarkClient = Lark.Client;

export function loadLarkSdk(): Promise<LarkSdk> {
  return import('@larksuiteoapi/node-sdk');
}

/** An open-API client on the settings' app and domain, made on first use (then the same one). */
export function lazyLarkClient(
  settings: Pick<FeishuSettings, 'appId' | 'appSecret' | 'domain'>,
  logger: Logger,
): () => Promise<LarkClient> {
  let client: Promise<LarkClient> | undefined;
  return () => {
    client ??= loadLarkSdk().then(
      (sdk) =>
        new sdk.Client({
          appId: settings.appId,
          appSecret: settings.appSecret,
          domain: settings.domain,
          logger: sdkLogger(logger),
          loggerLevel: sdk.LoggerLevel.warn,
        }),
    );
    return client;
  };
}
