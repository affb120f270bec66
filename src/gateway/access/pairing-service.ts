import type { Logger } from 'pino';
import type { PairedUser, PairingCode, PairingStore } from '../store/pairing-store.js';
import { generatePairingCode, normalisePairingCode } from './pairing-code.js';

/** How long a code can be approved (ms). */
export const PAIRING_CODE_TTL_MS = 60 * 60 * 1000;
/** Pending codes per platform at most; further requests are told to try later. */
export const PAIRING_MAX_PENDING = 3;
/** A user gets a new code at most once per this window (ms). */
export const PAIRING_REQUEST_INTERVAL_MS = 10 * 60 * 1000;
/** Fresh codes tried when one collides with a pending code before giving up. */
const MAX_CODE_ATTEMPTS = 10;

export type PairingRequestResult =
  /** A new code was stored for the user. */
  | { readonly status: 'issued'; readonly code: string; readonly expiresAt: number }
  /** The user already has a pending code; it is handed out again (no new code). */
  | { readonly status: 'repeated'; readonly code: string; readonly expiresAt: number }
  /** The platform already has the maximum of pending codes; nothing was issued. */
  | { readonly status: 'busy' }
  /** The user got a code less than the request interval ago and it is gone (cleared). */
  | { readonly status: 'rate_limited'; readonly retryAt: number };

export interface PairingRequester {
  readonly userId: string;
  readonly userName?: string | undefined;
}

/**
 * Issuing, approving and revoking pairings on top of the store. Codes never reach a log line:
 * only the platform, the user id and times are logged.
 */
export interface PairingService {
  /** An unknown user asks to be let in (the caller has already decided pairing applies). */
  request(platform: string, requester: PairingRequester): Promise<PairingRequestResult>;
  /** Approves a pending code (compared case-insensitively); undefined when unknown or expired. */
  approve(platform: string, code: string, approvedBy: string): Promise<PairedUser | undefined>;
  /** Pending, unexpired codes, oldest first. */
  listPending(platform?: string): Promise<PairingCode[]>;
  listPaired(platform?: string): Promise<PairedUser[]>;
  /** Removes an approved user; false when the user was not paired. */
  revoke(platform: string, userId: string): Promise<boolean>;
  /** Drops pending codes (of one platform, or all); returns how many. */
  clearPending(platform?: string): Promise<number>;
}

export interface PairingServiceOptions {
  readonly store: PairingStore;
  readonly logger: Logger;
  /** Epoch ms; must agree with the store's clock (tests inject the same one into both). */
  readonly now?: () => number;
  /** Source of new codes; defaults to the CSPRNG generator. */
  readonly randomCode?: () => string;
}

export function createPairingService(options: PairingServiceOptions): PairingService {
  const { store } = options;
  const logger = options.logger.child({ component: 'pairing' });
  const now = options.now ?? Date.now;
  const randomCode = options.randomCode ?? generatePairingCode;
  /**
   * When each user last got a new code, for the request interval once their code is gone
   * (cleared). Entries older than the interval are dropped on every request, so it stays small.
   */
  const lastIssued = new Map<string, number>();
  /** Requests run one at a time so the pending cap and the one-code-per-user rule hold. */
  let tail: Promise<unknown> = Promise.resolve();

  function exclusive<T>(work: () => Promise<T>): Promise<T> {
    const result = tail.then(work, work);
    tail = result.catch(() => undefined);
    return result;
  }

  async function issue(platform: string, requester: PairingRequester): Promise<PairingRequestResult> {
    const at = now();
    for (const [key, issuedAt] of lastIssued) {
      if (at - issuedAt >= PAIRING_REQUEST_INTERVAL_MS) lastIssued.delete(key);
    }
    const pending = await store.listPairingCodes(platform);
    const own = pending.filter((code) => code.userId === requester.userId).at(-1);
    if (own !== undefined) return { status: 'repeated', code: own.code, expiresAt: own.expiresAt };
    const rateKey = `${platform}\u0000${requester.userId}`;
    const previous = lastIssued.get(rateKey);
    if (previous !== undefined) {
      return { status: 'rate_limited', retryAt: previous + PAIRING_REQUEST_INTERVAL_MS };
    }
    if (pending.length >= PAIRING_MAX_PENDING) {
      logger.info({ platform, userId: requester.userId }, 'pairing request refused: too many pending codes');
      return { status: 'busy' };
    }
    const taken = new Set(pending.map((code) => code.code));
    let code: string | undefined;
    for (let attempt = 0; attempt < MAX_CODE_ATTEMPTS && code === undefined; attempt += 1) {
      const candidate = normalisePairingCode(randomCode());
      if (candidate !== undefined && !taken.has(candidate)) code = candidate;
    }
    if (code === undefined) {
      logger.warn({ platform, userId: requester.userId }, 'pairing request refused: no unused code found');
      return { status: 'busy' };
    }
    const expiresAt = at + PAIRING_CODE_TTL_MS;
    await store.addPairingCode({
      code,
      platform,
      userId: requester.userId,
      userName: requester.userName,
      createdAt: at,
      expiresAt,
    });
    lastIssued.set(rateKey, at);
    logger.info({ platform, userId: requester.userId, expiresAt }, 'pairing code issued');
    return { status: 'issued', code, expiresAt };
  }

  return {
    request: (platform, requester) => exclusive(() => issue(platform.toLowerCase(), requester)),

    approve: async (platform, code, approvedBy) => {
      const key = platform.toLowerCase();
      const normalised = normalisePairingCode(code);
      const user =
        normalised === undefined ? undefined : await store.consumePairingCode(key, normalised, approvedBy);
      if (user === undefined) {
        logger.info({ platform: key, approvedBy }, 'pairing approval failed: no such pending code');
        return undefined;
      }
      logger.info({ platform: key, userId: user.userId, approvedBy }, 'pairing approved');
      return user;
    },

    listPending: (platform) => store.listPairingCodes(platform?.toLowerCase()),
    listPaired: (platform) => store.listPairedUsers(platform?.toLowerCase()),

    revoke: async (platform, userId) => {
      const key = platform.toLowerCase();
      const removed = await store.revokePairedUser(key, userId);
      if (removed) logger.info({ platform: key, userId }, 'pairing revoked');
      return removed;
    },

    clearPending: async (platform) => {
      const removed = await store.clearPairingCodes(platform?.toLowerCase());
      logger.info({ platform: platform?.toLowerCase(), removed }, 'pending pairing codes cleared');
      return removed;
    },
  };
}
