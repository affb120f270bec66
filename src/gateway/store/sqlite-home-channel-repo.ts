import type { Database } from 'better-sqlite3';
import { z } from 'zod';
import { HermesError } from '../../errors/hermes-error.js';
import type { HomeChannel, HomeChannelInput } from './home-channel-store.js';
import { orNull, orUndefined, parseRow } from './sqlite-rows.js';

const homeRow = z.object({
  platform: z.string(),
  chat_id: z.string(),
  thread_id: z.string().nullable(),
  set_by: z.string(),
  set_at: z.number(),
});

const MAX_ID_LENGTH = 512;

export interface HomeChannelRepo {
  set(input: HomeChannelInput): HomeChannel;
  get(platform: string): HomeChannel | undefined;
}

/** The home channel of each platform: one row per platform, replaced by each `/sethome`. */
export function createHomeChannelRepo(db: Database, now: () => number): HomeChannelRepo {
  const upsert = db.prepare(
    `INSERT INTO home_channels (platform, chat_id, thread_id, set_by, set_at)
     VALUES (@platform, @chat_id, @thread_id, @set_by, @set_at)
     ON CONFLICT (platform) DO UPDATE SET chat_id = excluded.chat_id, thread_id = excluded.thread_id,
       set_by = excluded.set_by, set_at = excluded.set_at`,
  );
  const select = db.prepare('SELECT * FROM home_channels WHERE platform = ?');

  return {
    set: (input) => {
      const row = {
        platform: checkId('platform', input.platform),
        chat_id: checkId('chat id', input.chatId),
        thread_id: orNull(input.threadId === undefined ? undefined : checkId('thread id', input.threadId)),
        set_by: checkId('user id', input.setBy),
        set_at: input.setAt ?? now(),
      };
      upsert.run(row);
      return toHome(row);
    },
    get: (platform) => {
      const row = select.get(checkId('platform', platform));
      return row === undefined ? undefined : toHome(parseRow(homeRow, row, 'home channel'));
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

function checkId(what: string, value: string): string {
  if (typeof value !== 'string' || value.length === 0 || value.length > MAX_ID_LENGTH) {
    throw new HermesError(
      'store_failed',
      `${what} must be a non-empty string of at most ${MAX_ID_LENGTH} characters`,
    );
  }
  return value;
}
