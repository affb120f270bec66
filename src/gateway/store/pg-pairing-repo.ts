import type { PairedUser, PairingCode, PairingCodeInput } from './pairing-store.js';
import { inPgTransaction, type PgPool } from './pg-database.js';
import { codeRow, MAX_FIELD_LENGTH, toCode, userRow } from './sqlite-pairing-repo.js';
import { orUndefined, parseRow, parseRows } from './sqlite-rows.js';
import { checkId, checkPairingCode, pairingCodeOf } from './store-checks.js';

export interface PgPairingRepo {
  add(input: PairingCodeInput): Promise<PairingCode>;
  listCodes(platform: string | undefined): Promise<PairingCode[]>;
  consume(platform: string, code: string, approvedBy: string): Promise<PairedUser | undefined>;
  clearCodes(platform: string | undefined): Promise<number>;
  isPaired(platform: string, userId: string): Promise<boolean>;
  listUsers(platform: string | undefined): Promise<PairedUser[]>;
  revoke(platform: string, userId: string): Promise<boolean>;
  pruneCodes(): Promise<number>;
}

/** Pairing codes and approved users in PostgreSQL (same rules as the SQLite repo). */
export function createPgPairingRepo(pool: PgPool, now: () => number): PgPairingRepo {
  return {
    add: async (input) => {
      const code: PairingCode = {
        code: checkPairingCode(input.code),
        platform: checkId('platform', input.platform, MAX_FIELD_LENGTH),
        userId: checkId('user id', input.userId, MAX_FIELD_LENGTH),
        userName: input.userName === undefined ? undefined : input.userName.slice(0, MAX_FIELD_LENGTH),
        createdAt: input.createdAt ?? now(),
        expiresAt: input.expiresAt,
      };
      await pool.query(
        `INSERT INTO pairing_codes (platform, code, user_id, user_name, created_at, expires_at)
         VALUES ($1, $2, $3, $4, $5, $6)
         ON CONFLICT (platform, code) DO UPDATE SET user_id = excluded.user_id, user_name = excluded.user_name,
           created_at = excluded.created_at, expires_at = excluded.expires_at`,
        [code.platform, code.code, code.userId, code.userName ?? null, code.createdAt, code.expiresAt],
      );
      return code;
    },
    listCodes: async (platform) => {
      const result = await pool.query(
        `SELECT * FROM pairing_codes WHERE ($1::text IS NULL OR platform = $1) AND expires_at > $2
         ORDER BY created_at, platform, code`,
        [platform ?? null, now()],
      );
      return parseRows(codeRow, result.rows, 'pairing code').map(toCode);
    },
    consume: async (platform, code, approvedBy) => {
      const normalised = pairingCodeOf(code);
      if (normalised === undefined) return undefined;
      const approver = checkId('approver', approvedBy, MAX_FIELD_LENGTH);
      return inPgTransaction(pool, async (client) => {
        const at = now();
        // DELETE … RETURNING takes the code: of two concurrent calls, exactly one gets the row.
        const taken = await client.query(
          'DELETE FROM pairing_codes WHERE platform = $1 AND code = $2 AND expires_at > $3 RETURNING *',
          [platform, normalised, at],
        );
        if (taken.rows[0] === undefined) return undefined;
        const pending = parseRow(codeRow, taken.rows[0], 'pairing code');
        await client.query(
          `INSERT INTO paired_users (platform, user_id, user_name, approved_by, approved_at)
           VALUES ($1, $2, $3, $4, $5)
           ON CONFLICT (platform, user_id) DO UPDATE SET user_name = excluded.user_name,
             approved_by = excluded.approved_by, approved_at = excluded.approved_at`,
          [platform, pending.user_id, pending.user_name, approver, at],
        );
        // Other codes the same user requested are moot now.
        await client.query('DELETE FROM pairing_codes WHERE platform = $1 AND user_id = $2', [
          platform,
          pending.user_id,
        ]);
        return {
          platform,
          userId: pending.user_id,
          userName: orUndefined(pending.user_name),
          approvedBy: approver,
          approvedAt: at,
        };
      });
    },
    clearCodes: async (platform) => {
      const result = await pool.query('DELETE FROM pairing_codes WHERE $1::text IS NULL OR platform = $1', [
        platform ?? null,
      ]);
      return result.rowCount ?? 0;
    },
    isPaired: async (platform, userId) => {
      const result = await pool.query('SELECT 1 FROM paired_users WHERE platform = $1 AND user_id = $2', [
        platform,
        userId,
      ]);
      return (result.rowCount ?? 0) > 0;
    },
    listUsers: async (platform) => {
      const result = await pool.query(
        `SELECT * FROM paired_users WHERE $1::text IS NULL OR platform = $1
         ORDER BY approved_at, platform, user_id`,
        [platform ?? null],
      );
      return parseRows(userRow, result.rows, 'paired user').map((row) => ({
        platform: row.platform,
        userId: row.user_id,
        userName: orUndefined(row.user_name),
        approvedBy: row.approved_by,
        approvedAt: row.approved_at,
      }));
    },
    revoke: async (platform, userId) => {
      const result = await pool.query('DELETE FROM paired_users WHERE platform = $1 AND user_id = $2', [
        platform,
        userId,
      ]);
      return (result.rowCount ?? 0) > 0;
    },
    pruneCodes: async () => {
      const result = await pool.query('DELETE FROM pairing_codes WHERE expires_at <= $1', [now()]);
      return result.rowCount ?? 0;
    },
  };
}
