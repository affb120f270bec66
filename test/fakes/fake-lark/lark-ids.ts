import { randomBytes } from 'node:crypto';

/** Identifiers shaped like Lark's: a prefix and lower-case hex (user_id is 8 base-36 characters). */
const hex = (bytes: number): string => randomBytes(bytes).toString('hex');

export const larkIds = {
  appId: () => `cli_${hex(8)}`,
  openId: () => `ou_${hex(16)}`,
  unionId: () => `on_${hex(16)}`,
  userId: () =>
    randomBytes(6)
      .toString('base64url')
      .replace(/[^a-z0-9]/gi, '')
      .padEnd(8, '7')
      .slice(0, 8)
      .toLowerCase(),
  chatId: () => `oc_${hex(16)}`,
  messageId: () => `om_${hex(16)}`,
  eventId: () => hex(16),
  tenantKey: () => hex(8),
  imageKey: () => `img_v3_${hex(4)}_${hex(12)}g`,
  fileKey: () => `file_v3_${hex(4)}_${hex(12)}g`,
  token: () => `t-g${hex(20)}`,
  cardToken: () => `c-${hex(20)}`,
  reactionId: () => `ZCaCIjUBVVWSrm5L-3ZTw${hex(8)}`,
  documentId: () =>
    `Doxc${randomBytes(17)
      .toString('base64url')
      .replace(/[^a-z0-9]/gi, 'x')
      .slice(0, 23)}`,
  wikiToken: () =>
    `wikcn${randomBytes(17)
      .toString('base64url')
      .replace(/[^a-z0-9]/gi, 'x')
      .slice(0, 22)}`,
  logId: () => `${new Date().toISOString().replace(/\D/g, '').slice(0, 14)}${hex(13)}`,
  nonce: () => hex(8),
};
