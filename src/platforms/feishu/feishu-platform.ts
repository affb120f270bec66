import type { Config } from '../../config/config-schema.js';
import { HermesError } from '../../errors/hermes-error.js';
import type { PlatformDefinition } from '../platform.js';
import { createFeishuAdapter } from './create-feishu-adapter.js';
import { FEISHU_PLATFORM, feishuSettings } from './feishu-settings.js';

function describeMode(config: Config): string {
  const feishu = config.platforms.feishu;
  const where = ` via ${feishu.domain}`;
  if (feishu.connection_mode === 'websocket') return `long connection${where}`;
  const checks = [
    ...(feishu.encrypt_key !== undefined ? ['encrypted and signed'] : []),
    ...(feishu.verification_token !== undefined ? ['verification token'] : []),
  ].join(' + ');
  return `webhook at /feishu/webhook (${checks})${where}`;
}

/** Feishu/Lark (@larksuiteoapi/node-sdk): a long connection, or a webhook at `/feishu/webhook`. */
export const feishuPlatform: PlatformDefinition = {
  name: FEISHU_PLATFORM,
  configSection: 'feishu',
  chat: true,
  describe(config) {
    try {
      const settings = feishuSettings(config);
      if (settings === undefined)
        return { usable: false, detail: 'missing FEISHU_APP_ID and FEISHU_APP_SECRET' };
      return { usable: true, detail: describeMode(config) };
    } catch (error) {
      return { usable: false, detail: error instanceof HermesError ? error.message : String(error) };
    }
  },
  fromConfig(config, context) {
    const settings = feishuSettings(config);
    if (settings === undefined) return undefined;
    const adapter = createFeishuAdapter({
      config,
      settings,
      logger: context.logger,
      ...(context.sharedFiles === undefined ? {} : { sharedFiles: context.sharedFiles }),
    });
    return { label: `feishu (${settings.mode})`, adapter };
  },
};
