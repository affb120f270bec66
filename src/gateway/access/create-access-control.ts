import type { Logger } from 'pino';
import type { InboundEvent } from '../../platforms/adapter.js';
import type { PairedUser, PairingCode, PairingStore } from '../store/pairing-store.js';
import {
  type AccessConfig,
  type PlatformAccessPolicy,
  resolvePlatformAccess,
  wildcardEntries,
} from './access-policy.js';
import { pairingReply } from './pairing-reply.js';
import { createPairingService, type PairingRequestResult } from './pairing-service.js';

/** Why a sender is let in (first rule that matched). */
export type AllowReason = 'admin' | 'allow_all' | 'allowlist' | 'paired';

/**
 * Why an event is dropped without any reply: `not_allowed` (unknown user and pairing is off for
 * the platform), `not_direct` (unknown user outside a DM: no pairing in groups), `action` (an
 * unknown user's button press), `bot` (another bot not listed by its own id or role: allow-all
 * and pairing never let a bot in).
 */
export type IgnoreReason = 'not_allowed' | 'not_direct' | 'action' | 'bot';

export type AccessDecision =
  | { readonly decision: 'allow'; readonly isAdmin: boolean; readonly via: AllowReason }
  /**
   * An unknown user in a DM: send `reply` back (it holds the pairing code, or says why there is
   * none) and handle nothing else of the event. Never log `reply`.
   */
  | { readonly decision: 'pair'; readonly reply: string; readonly pairing: PairingRequestResult['status'] }
  | { readonly decision: 'ignore'; readonly reason: IgnoreReason };

export interface AccessControl {
  /** Decides what happens to an inbound event; default deny. */
  check(event: InboundEvent): Promise<AccessDecision>;
  /** Admin by configuration (`platforms.<p>.admin_users` or `gateway.admin_users`). */
  isAdmin(platform: string, userId: string): boolean;
  /** Approves a pending pairing code (any letter case); undefined when unknown or expired. */
  approveCode(platform: string, code: string, approvedBy: string): Promise<PairedUser | undefined>;
  listPending(platform?: string): Promise<PairingCode[]>;
  listPaired(platform?: string): Promise<PairedUser[]>;
  /** Removes a paired user; false when there was none. Config allowlists are not touched. */
  revoke(platform: string, userId: string): Promise<boolean>;
  /** The resolved rules for one platform (for `/whoami`, doctor output and tests). */
  policy(platform: string): PlatformAccessPolicy;
}

export interface AccessControlOptions {
  readonly config: AccessConfig;
  readonly store: PairingStore;
  readonly logger: Logger;
  /** Epoch ms; must agree with the store's clock. */
  readonly now?: () => number;
  /** Source of new pairing codes; defaults to the CSPRNG generator. */
  readonly randomCode?: () => string;
}

/**
 * Who may talk to the agent. Order: admins, the platform's allow-all switch, allowlists (the
 * platform's and the gateway-wide one, then the platform's role allowlist against the roles the
 * adapter vouches for), paired users; everyone else is denied. An unknown user
 * in a DM is offered a pairing code when the platform says `unknown_users: pair`, or `auto` with
 * no allowlist applying to it; otherwise, and always in groups, the event is ignored without a
 * reply so strangers do not learn the bot exists.
 */
export function createAccessControl(options: AccessControlOptions): AccessControl {
  const { config, store } = options;
  const logger = options.logger.child({ component: 'access' });
  const now = options.now ?? Date.now;
  const pairing = createPairingService({
    store,
    logger: options.logger,
    now,
    ...(options.randomCode === undefined ? {} : { randomCode: options.randomCode }),
  });
  const policies = new Map<string, PlatformAccessPolicy>();

  if (wildcardEntries(config).length > 0) {
    logger.warn("'*' in an allowed_users list matches no one; set platforms.<name>.allow_all instead");
  }

  function policy(platform: string): PlatformAccessPolicy {
    const key = platform.toLowerCase();
    let resolved = policies.get(key);
    if (resolved === undefined) {
      resolved = resolvePlatformAccess(config, key);
      policies.set(key, resolved);
    }
    return resolved;
  }

  function ignore(event: InboundEvent, reason: IgnoreReason): AccessDecision {
    logger.debug(
      { platform: event.platform, userId: event.sender.userId, chatType: event.chat.chatType, reason },
      'inbound event ignored: sender not allowed',
    );
    return { decision: 'ignore', reason };
  }

  async function check(event: InboundEvent): Promise<AccessDecision> {
    const rules = policy(event.platform);
    const userId = event.sender.userId;
    if (userId === '') return ignore(event, 'not_allowed');
    const bot = event.sender.isBot === true;
    if (rules.adminUsers.has(userId)) return { decision: 'allow', isAdmin: true, via: 'admin' };
    // Another bot gets in only when its own id (or role) is listed: never by allow-all or pairing.
    if (rules.allowAll && !bot) return { decision: 'allow', isAdmin: false, via: 'allow_all' };
    if (rules.allowedUsers.has(userId)) return { decision: 'allow', isAdmin: false, via: 'allowlist' };
    if (event.sender.roles?.some((role) => rules.allowedRoles.has(role)) === true) {
      return { decision: 'allow', isAdmin: false, via: 'allowlist' };
    }
    if (bot) return ignore(event, 'bot');
    if (await store.isPairedUser(rules.platform, userId)) {
      return { decision: 'allow', isAdmin: false, via: 'paired' };
    }
    if (event.chat.chatType !== 'dm') return ignore(event, 'not_direct');
    if (event.kind === 'action') return ignore(event, 'action');
    if (!rules.pairingEnabled) return ignore(event, 'not_allowed');
    const result = await pairing.request(rules.platform, {
      userId,
      userName: event.sender.userName,
    });
    return { decision: 'pair', reply: pairingReply(rules.platform, result, now()), pairing: result.status };
  }

  return {
    check,
    isAdmin: (platform, userId) => userId !== '' && policy(platform).adminUsers.has(userId),
    approveCode: (platform, code, approvedBy) => pairing.approve(platform, code, approvedBy),
    listPending: (platform) => pairing.listPending(platform),
    listPaired: (platform) => pairing.listPaired(platform),
    revoke: (platform, userId) => pairing.revoke(platform, userId),
    policy,
  };
}
