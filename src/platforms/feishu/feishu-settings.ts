import type { Config } from '../../config/config-schema.js';
import { HermesError } from '../../errors/hermes-error.js';

/** The platform token of Feishu/Lark in session keys, config and /readyz. */
export const FEISHU_PLATFORM = 'feishu';

const DOMAINS: Readonly<Record<string, string>> = {
  feishu: 'https://open.feishu.cn',
  lark: 'https://open.larksuite.com',
};

/** `platforms.feishu`, resolved once at start. Secrets stay here; never log this object. */
export interface FeishuSettings {
  readonly appId: string;
  readonly appSecret: string;
  /** Open platform base URL, without a trailing slash. */
  readonly domain: string;
  readonly mode: 'websocket' | 'webhook';
  readonly encryptKey: string | undefined;
  readonly verificationToken: string | undefined;
  readonly groupPolicy: 'open' | 'allowlist' | 'disabled';
  readonly requireMention: boolean;
  readonly allowBots: 'none' | 'mentions' | 'all';
  readonly botOpenId: string | undefined;
  /** allowed_users and admin_users of the platform: who may write in groups under `allowlist`. */
  readonly groupAllowed: ReadonlySet<string>;
  /** Ids in allowed_users/admin_users that are user_ids (not open_ids): senders are named by them. */
  readonly configuredIds: ReadonlySet<string>;
  readonly toleranceMs: number;
  readonly downloadMaxBytes: number;
  readonly maxEventFailures: number;
  readonly homeChannel: string | undefined;
}

/** The open platform URL of a `domain` setting: `feishu`, `lark`, or a URL as given. */
export function feishuBaseUrl(domain: string): string {
  return (DOMAINS[domain] ?? domain).replace(/\/+$/, '');
}

/**
 * The settings, or undefined when Feishu is not configured (no app id and no secret). Throws
 * `config_invalid` on a half-configured app, and in webhook mode without a way to tell Lark's
 * callbacks from anyone else's (neither an encrypt key nor a verification token).
 */
export function feishuSettings(config: Config): FeishuSettings | undefined {
  const section = config.platforms.feishu;
  if (section.app_id === undefined && section.app_secret === undefined) return undefined;
  if (section.app_id === undefined || section.app_secret === undefined) {
    throw new HermesError(
      'config_invalid',
      'Feishu needs both FEISHU_APP_ID and FEISHU_APP_SECRET (platforms.feishu.app_id / app_secret)',
    );
  }
  if (
    section.connection_mode === 'webhook' &&
    section.encrypt_key === undefined &&
    section.verification_token === undefined
  ) {
    throw new HermesError(
      'config_invalid',
      'Feishu webhook mode needs FEISHU_ENCRYPT_KEY (recommended) or FEISHU_VERIFICATION_TOKEN to check that callbacks come from Feishu; refusing to start without either',
    );
  }
  const people = [...section.allowed_users, ...section.admin_users].map((id) => id.trim()).filter(Boolean);
  return {
    appId: section.app_id,
    appSecret: section.app_secret,
    domain: feishuBaseUrl(section.domain),
    mode: section.connection_mode,
    encryptKey: section.encrypt_key,
    verificationToken: section.verification_token,
    groupPolicy: section.group_policy,
    requireMention: section.require_mention,
    allowBots: section.allow_bots,
    botOpenId: section.bot_open_id,
    groupAllowed: new Set(people),
    configuredIds: new Set(people.filter((id) => !id.startsWith('ou_'))),
    toleranceMs: section.timestamp_tolerance_seconds * 1000,
    downloadMaxBytes: section.download_max_bytes,
    maxEventFailures: section.max_event_failures,
    homeChannel: section.home_channel,
  };
}
