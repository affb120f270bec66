import { join } from 'node:path';
import type { Config } from '../config/config-schema.js';

/** One kind of state and where it lives. */
export interface StatePlace {
  readonly what: string;
  /** `shared` (every machine sees it) or `local` (this machine's HERMES_HOME only). */
  readonly where: 'shared' | 'local';
  readonly place: string;
  /** Why it is local, and what to do about it (local entries only). */
  readonly reason?: string;
}

/**
 * Where each kind of state lives under this configuration: what every worker on every machine
 * shares (PostgreSQL with DATABASE_URL, Redis with REDIS_URL) and what stays on this machine's
 * disk, with the reason. `doctor` prints it; a scale-out deployment reads it to know what its
 * machines must be given (the same config and plugins) and what they never share.
 */
export function statePlaces(config: Config): StatePlace[] {
  const home = config.home;
  const database = config.database.url !== undefined;
  const redis = config.redis.url !== undefined;
  const shared = database ? `PostgreSQL (schema ${config.database.schema})` : undefined;
  const places: StatePlace[] = [];
  const sharedOrLocal = (what: string, localPath: string, reason: string): StatePlace =>
    shared !== undefined
      ? { what, where: 'shared', place: shared }
      : { what, where: 'local', place: localPath, reason };
  const noDatabase = 'DATABASE_URL is not set (SQLite, one machine)';
  places.push(
    sharedOrLocal(
      'sessions, transcripts, dedupe, receipts, pairing, parked turns, prompts, home channels, outbox',
      join(home, 'state.db'),
      noDatabase,
    ),
    sharedOrLocal('memory entries', join(home, 'memories'), noDatabase),
    sharedOrLocal('todo lists', 'this process (memory)', noDatabase),
  );
  places.push(
    redis
      ? { what: 'queue, session locks, approval decisions, live events', where: 'shared', place: 'Redis' }
      : {
          what: 'queue, session locks, approval decisions, live events',
          where: 'local',
          place: database ? join(home, 'approvals.db') : join(home, 'state.db'),
          reason: 'REDIS_URL is not set (embedded queue: one process)',
        },
  );
  places.push(
    sharedOrLocal(
      'command allowlist entries added by an "always" approval',
      config.configPath,
      'DATABASE_URL is not set: written into this machine’s config.yaml (a file people edit and review); copy it to the other machines, or list the entries in the config you deploy',
    ),
  );
  const kb = (bytes: number) => `${Math.round(bytes / 1024)} KB`;
  places.push(
    shared !== undefined
      ? {
          what: `spilled-over tool results (up to ${kb(config.database.spillover_max_bytes)} each; larger ones keep only their preview)`,
          where: 'shared',
          place: shared,
        }
      : {
          what: 'spilled-over tool results',
          where: 'local',
          place: join(home, 'cache', 'spillover'),
          reason: `${noDatabase}: results over the size limit are kept as files for read_file on this machine`,
        },
    shared !== undefined
      ? {
          what: `chat attachments (up to ${kb(config.database.attachment_max_bytes)} each, kept ${config.database.attachment_ttl_days} days; larger ones are not kept)`,
          where: 'shared',
          place: shared,
        }
      : {
          what: 'chat attachments',
          where: 'local',
          place: join(home, 'inbox'),
          reason: `${noDatabase}: files sent in chats are saved by the gateway that received them`,
        },
  );
  places.push(
    {
      what: 'command process groups',
      where: 'local',
      place: join(home, 'run', 'command-groups'),
      reason: 'the processes this machine started; only this machine can stop them',
    },
    {
      what: 'configuration, secrets and plugins',
      where: 'local',
      place: `${config.configPath}, ${join(home, '.env')}, ${join(home, 'plugins')}`,
      reason: 'deployed with each machine (same files or environment on every one)',
    },
  );
  return places;
}

/** The `## State` section of `doctor`. */
export function stateSection(config: Config): string {
  const lines = ['\n## State\n'];
  for (const place of statePlaces(config)) {
    lines.push(
      `  ${place.where === 'shared' ? 'shared' : 'local '} ${place.what}: ${place.place}${place.reason === undefined ? '' : ` — ${place.reason}`}\n`,
    );
  }
  return lines.join('');
}
