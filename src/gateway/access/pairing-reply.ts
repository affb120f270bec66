import type { PairingRequestResult } from './pairing-service.js';

const MINUTE_MS = 60_000;

function minutesLeft(until: number, now: number): number {
  return Math.max(1, Math.ceil((until - now) / MINUTE_MS));
}

function minutes(count: number): string {
  return count === 1 ? '1 minute' : `${count} minutes`;
}

function howToApprove(platform: string, code: string): string {
  return [
    'To let you in, the owner of this bot runs this on the gateway host:',
    `  hermes-gateway pairing approve ${platform} ${code}`,
    `or an admin sends /pair ${code} to the bot.`,
  ].join('\n');
}

/** The text an unknown user gets back for a pairing request (plain text, no markdown). */
export function pairingReply(platform: string, result: PairingRequestResult, now: number): string {
  switch (result.status) {
    case 'issued':
      return [
        "Hi! I don't know you yet, so I can't chat with you until the owner approves you.",
        '',
        `Your pairing code: ${result.code} (valid for ${minutes(minutesLeft(result.expiresAt, now))})`,
        '',
        howToApprove(platform, result.code),
      ].join('\n');
    case 'repeated':
      return [
        'You have already asked to be let in; the owner has not approved it yet.',
        '',
        `Your pairing code is still ${result.code} (valid for another ${minutes(minutesLeft(result.expiresAt, now))})`,
        '',
        howToApprove(platform, result.code),
      ].join('\n');
    case 'busy':
      return 'Too many people are waiting for approval right now, so no pairing code was issued. Please try again later.';
    case 'rate_limited':
      return `You asked for a pairing code a few minutes ago. Please try again in ${minutes(minutesLeft(result.retryAt, now))}.`;
  }
}
