import { z } from 'zod';
import type { HomeChannel, HomeChannelInput } from './home-channel-store.js';
import type { PgPool } from './pg-database.js';
import { orUndefined, parseRow } from './sqlite-rows.js';
import { checkId } from './store-checks.js';

const homeRow = z.object({
  platform: z.string(),
  chat_id: z.string(),
  thread_id: z.string().nullable(),
  set_by: z.string(),
  set_at: z.number(),
});

export interface PgHomeChannelRepo {
  set(input: HomeChannelInput): Promise<HomeChannel>;
  get(platform: string): Promise<HomeChannel | undefined>;
}

/** One home channel per platform, replaced by each `/sethome`. */
export function createPgHomeChannelRepo(pool: PgPool, now: () => number): PgHomeChannelRepo {
  return {
    set: async (input) => {
      const row = {
        platform: checkId('platform', input.platform),
        chat_id: checkId('chat id', input.chatId),
        thread_id: input.threadId === undefined ? null : checkId('thread id', input.threadId),
        set_by: checkId('user id', input.setBy),
        set_at: input.setAt ?? now(),
      };
      await pool.query(
        `INSERT INTO home_channels (platform, chat_id, thread_id, set_by, set_at) VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (platform) DO UPDATE SET chat_id = excluded.chat_id, thread_id = excluded.thread_id,
           set_by = excluded.set_by, set_at = excluded.set_at`,
        [row.platform, row.chat_id, row.thread_id, row.set_by, row.set_at],
      );
      return toHome(row);
    },
    get: async (platform) => {
      const result = await pool.query('SELECT * FROM home_channels WHERE platform = $1', [
        checkId('platform', platform),
      ]);
      return result.rows[0] === undefined
        ? undefined
        : toHome(parseRow(homeRow, result.rows[0], 'home channel'));
    },
  };
}

function toHome(row: z.infer<typeof homeRow>): HomeChannel {
  return {
    platform: row.platform,
    chatId: row.chat_id,
    threadId: orUndefined(row.thread_id),
    setBy: row.set_by,
    setAt: row.set_at,
  };
}
