import type { Database } from 'better-sqlite3';
import { z } from 'zod';
import type { PairedUser, PairingCode, PairingCodeInput } from './pairing-store.js';
import { orNull, orUndefined, parseRow, parseRows } from './sqlite-rows.js';
import { checkId, checkPairingCode, pairingCodeOf } from './store-checks.js';

/** Pairing rows, the same in SQLite and PostgreSQL. */
export const codeRow = z.object({
  platform: z.string(),
  code: z.string(),
  user_id: z.string(),
  user_name: z.string().nullable(),
  created_at: z.number(),
  expires_at: z.number(),
});
export const userRow = z.object({
  platform: z.string(),
  user_id: z.string(),
  user_name: z.string().nullable(),
  approved_by: z.string(),
  approved_at: z.number(),
});

export const MAX_FIELD_LENGTH = 256;

export interface PairingRepo {
  add(input: PairingCodeInput): PairingCode;
  listCodes(platform: string | undefined): PairingCode[];
  consume(platform: string, code: string, approvedBy: string): PairedUser | undefined;
  clearCodes(platform: string | undefined): number;
  isPaired(platform: string, userId: string): boolean;
  listUsers(platform: string | undefined): PairedUser[];
  revoke(platform: string, userId: string): boolean;
  pruneCodes(): number;
}

/**
 * Pairing codes and approved users. Codes are stored as issued (upper-cased), not hashed: they
 * live for minutes, `pairing list` shows them to the owner, and whoever can read the file can
 * also write an approved user into it. They never reach a log line.
 */
export function createPairingRepo(db: Database, now: () => number): PairingRepo {
  const upsertCode = db.prepare(
    `INSERT INTO pairing_codes (platform, code, user_id, user_name, created_at, expires_at)
     VALUES (@platform, @code, @user_id, @user_name, @created_at, @expires_at)
     ON CONFLICT (platform, code) DO UPDATE SET user_id = excluded.user_id, user_name = excluded.user_name,
       created_at = excluded.created_at, expires_at = excluded.expires_at`,
  );
  const listCodesStmt = db.prepare(
    `SELECT * FROM pairing_codes WHERE (@platform IS NULL OR platform = @platform) AND expires_at > @now
     ORDER BY created_at, platform, code`,
  );
  const selectCode = db.prepare(
    'SELECT * FROM pairing_codes WHERE platform = ? AND code = ? AND expires_at > ?',
  );
  const deleteCode = db.prepare('DELETE FROM pairing_codes WHERE platform = ? AND code = ?');
  const deleteUserCodes = db.prepare('DELETE FROM pairing_codes WHERE platform = ? AND user_id = ?');
  const clearCodesStmt = db.prepare(
    'DELETE FROM pairing_codes WHERE @platform IS NULL OR platform = @platform',
  );
  const pruneCodesStmt = db.prepare('DELETE FROM pairing_codes WHERE expires_at <= ?');
  const upsertUser = db.prepare(
    `INSERT INTO paired_users (platform, user_id, user_name, approved_by, approved_at)
     VALUES (@platform, @user_id, @user_name, @approved_by, @approved_at)
     ON CONFLICT (platform, user_id) DO UPDATE SET user_name = excluded.user_name,
       approved_by = excluded.approved_by, approved_at = excluded.approved_at`,
  );
  const isPairedStmt = db.prepare('SELECT 1 FROM paired_users WHERE platform = ? AND user_id = ?').pluck();
  const listUsersStmt = db.prepare(
    'SELECT * FROM paired_users WHERE @platform IS NULL OR platform = @platform ORDER BY approved_at, platform, user_id',
  );
  const deleteUser = db.prepare('DELETE FROM paired_users WHERE platform = ? AND user_id = ?');

  const consumeTx = db.transaction((platform: string, code: string, approvedBy: string) => {
    const at = now();
    const row = selectCode.get(platform, code, at);
    if (row === undefined) return undefined;
    const pending = parseRow(codeRow, row, 'pairing code');
    const user: PairedUser = {
      platform,
      userId: pending.user_id,
      userName: orUndefined(pending.user_name),
      approvedBy,
      approvedAt: at,
    };
    upsertUser.run({
      platform,
      user_id: user.userId,
      user_name: pending.user_name,
      approved_by: approvedBy,
      approved_at: at,
    });
    deleteCode.run(platform, code);
    // Other codes the same user requested are moot now.
    deleteUserCodes.run(platform, user.userId);
    return user;
  });

  return {
    add: (input) => {
      const code: PairingCode = {
        code: checkPairingCode(input.code),
        platform: checkId('platform', input.platform, MAX_FIELD_LENGTH),
        userId: checkId('user id', input.userId, MAX_FIELD_LENGTH),
        userName: input.userName === undefined ? undefined : input.userName.slice(0, MAX_FIELD_LENGTH),
        createdAt: input.createdAt ?? now(),
        expiresAt: input.expiresAt,
      };
      upsertCode.run({
        platform: code.platform,
        code: code.code,
        user_id: code.userId,
        user_name: orNull(code.userName),
        created_at: code.createdAt,
        expires_at: code.expiresAt,
      });
      return code;
    },
    listCodes: (platform) =>
      parseRows(codeRow, listCodesStmt.all({ platform: platform ?? null, now: now() }), 'pairing code').map(
        toCode,
      ),
    consume: (platform, code, approvedBy) => {
      const normalised = pairingCodeOf(code);
      if (normalised === undefined) return undefined;
      return consumeTx.immediate(platform, normalised, checkId('approver', approvedBy, MAX_FIELD_LENGTH));
    },
    clearCodes: (platform) => clearCodesStmt.run({ platform: platform ?? null }).changes,
    isPaired: (platform, userId) => isPairedStmt.get(platform, userId) !== undefined,
    listUsers: (platform) =>
      parseRows(userRow, listUsersStmt.all({ platform: platform ?? null }), 'paired user').map((row) => ({
        platform: row.platform,
        userId: row.user_id,
        userName: orUndefined(row.user_name),
        approvedBy: row.approved_by,
        approvedAt: row.approved_at,
      })),
    revoke: (platform, userId) => deleteUser.run(platform, userId).changes > 0,
    pruneCodes: () => pruneCodesStmt.run(now()).changes,
  };
}

export function toCode(row: z.infer<typeof codeRow>): PairingCode {
  return {
    code: row.code,
    platform: row.platform,
    userId: row.user_id,
    userName: orUndefined(row.user_name),
    createdAt: row.created_at,
    expiresAt: row.expires_at,
  };
}
