import type { Redis } from 'ioredis';
import { z } from 'zod';
import { HermesError } from '../errors/hermes-error.js';
import { defineScript, runScript } from '../lib/redis-script.js';
import { approvalDecisionSchema, approvalRequestSchema } from './approval-schemas.js';
import {
  type ApprovalOutcome,
  type ApprovalStore,
  type ApprovalStoreOptions,
  DEFAULT_RETENTION_MS,
  DEFAULT_SESSION_TTL_MS,
  type DecideResult,
  type DecisionInput,
  type DecisionRecord,
  decisionRecordOf,
  type OpenResult,
  outcomeOf,
} from './approval-store.js';
import type { ApprovalRequest } from './approval-types.js';

export interface RedisApprovalStoreOptions extends ApprovalStoreOptions {
  /** A connection owned by the caller (main.ts); the store never closes it. */
  readonly redis: Redis;
  /** Prefix of every key the store writes. */
  readonly keyPrefix?: string;
}

/*
 * Keys (all under the prefix, all with a TTL):
 *   req:<id>                  hash  json, session, hash, exp, ap, [decision, claimed]
 *   pending:<session>\0<hash> hash  id, exp, json   (the pending request identical calls join)
 *   idx:<session>             zset  request ids by creation time
 *   grants:<session>          set   finding keys approved for the session
 *   yolo:<session>            string
 * Expiry is judged by the injected clock passed into each script, never by Redis' own clock; the
 * TTLs only keep Redis from growing. Scripts touch keys of one session, so they are safe for
 * standalone Redis and Sentinel (not for Cluster, where the keys would span slots).
 */

const OPEN_SCRIPT = `
local now = tonumber(ARGV[1])
local existing = redis.call('HMGET', KEYS[1], 'exp', 'json')
if existing[1] and now < tonumber(existing[1]) then
  return {'coalesced', existing[2]}
end
local ttl = tonumber(ARGV[8])
redis.call('HSET', KEYS[2], 'json', ARGV[3], 'session', ARGV[4], 'hash', ARGV[5], 'exp', ARGV[6], 'ap', ARGV[7])
redis.call('PEXPIRE', KEYS[2], ttl)
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], 'id', ARGV[2], 'exp', ARGV[6], 'json', ARGV[3])
redis.call('PEXPIRE', KEYS[1], ttl)
redis.call('ZADD', KEYS[3], ARGV[9], ARGV[2])
local left = redis.call('PTTL', KEYS[3])
if left < ttl then redis.call('PEXPIRE', KEYS[3], ttl) end
return {'created'}
`;

const DECIDE_SCRIPT = `
if redis.call('EXISTS', KEYS[1]) == 0 then return {'not_found'} end
local f = redis.call('HMGET', KEYS[1], 'hash', 'exp', 'ap', 'decision', 'claimed')
if ARGV[2] ~= '' and ARGV[2] ~= f[1] then return {'hash_mismatch'} end
if f[4] then return {'already_decided', f[4], f[5] or ''} end
if tonumber(ARGV[1]) >= tonumber(f[2]) then return {'expired'} end
local permanent = ARGV[3] == 'session' or ARGV[3] == 'always'
if permanent and f[3] ~= '1' then return {'scope_refused'} end
redis.call('HSET', KEYS[1], 'decision', ARGV[4])
if redis.call('HGET', KEYS[2], 'id') == ARGV[6] then redis.call('DEL', KEYS[2]) end
redis.call('ZREM', KEYS[3], ARGV[6])
if permanent and #ARGV > 6 then
  redis.call('SADD', KEYS[4], unpack(ARGV, 7))
  redis.call('PEXPIRE', KEYS[4], ARGV[5])
end
return {'recorded', ARGV[4], ''}
`;

const CLAIM_SCRIPT = `
local f = redis.call('HMGET', KEYS[1], 'decision', 'claimed')
if not f[1] or f[2] then return 0 end
redis.call('HSET', KEYS[1], 'claimed', '1')
return 1
`;

const requestSchema = approvalRequestSchema;
const decisionSchema = approvalDecisionSchema;

const scriptReply = z.array(z.union([z.string(), z.number(), z.null()]));

export function createRedisApprovalStore(options: RedisApprovalStoreOptions): ApprovalStore {
  const { redis } = options;
  const prefix = options.keyPrefix ?? 'hermes:approval:';
  const now = options.now ?? Date.now;
  const retentionMs = options.retentionMs ?? DEFAULT_RETENTION_MS;
  const sessionTtlMs = options.sessionTtlMs ?? DEFAULT_SESSION_TTL_MS;

  const keys = {
    request: (id: string) => `${prefix}req:${id}`,
    pending: (sessionKey: string, hash: string) => `${prefix}pending:${sessionKey}\0${hash}`,
    index: (sessionKey: string) => `${prefix}idx:${sessionKey}`,
    grants: (sessionKey: string) => `${prefix}grants:${sessionKey}`,
    yolo: (sessionKey: string) => `${prefix}yolo:${sessionKey}`,
  };

  async function run(script: string, keyList: readonly string[], args: readonly (string | number)[]) {
    try {
      return await evalScript(redis, script, keyList, args);
    } catch (error) {
      throw new HermesError('approval_store_failed', `approval store (Redis) failed: ${errorText(error)}`, {
        cause: error,
      });
    }
  }

  async function guarded<T>(what: string, work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (error instanceof HermesError) throw error;
      throw new HermesError(
        'approval_store_failed',
        `approval store (Redis) ${what} failed: ${errorText(error)}`,
        {
          cause: error,
        },
      );
    }
  }

  async function readRequest(
    id: string,
  ): Promise<
    { request: ApprovalRequest; decision: DecisionRecord | undefined; claimed: boolean } | undefined
  > {
    const [json, decision, claimed] = await redis.hmget(keys.request(id), 'json', 'decision', 'claimed');
    if (json === null || json === undefined) return undefined;
    return {
      request: parseRequest(json),
      decision: decision ? parseDecision(decision) : undefined,
      claimed: claimed === '1',
    };
  }

  async function decideWith(request: ApprovalRequest, input: DecisionInput): Promise<DecideResult> {
    const record = decisionRecordOf(input);
    const grantKeys = [...new Set(request.findings.map((finding) => finding.key))];
    const reply = scriptReply.parse(
      await run(
        DECIDE_SCRIPT,
        [
          keys.request(request.id),
          keys.pending(request.sessionKey, request.commandHash),
          keys.index(request.sessionKey),
          keys.grants(request.sessionKey),
        ],
        [
          now(),
          input.commandHash ?? '',
          input.choice,
          JSON.stringify(record),
          sessionTtlMs,
          request.id,
          ...grantKeys,
        ],
      ),
    );
    const status = String(reply[0]);
    const at = now();
    switch (status) {
      case 'recorded':
        return { status: 'recorded', outcome: outcomeOf(request, record, false, at) };
      case 'already_decided':
        return {
          status: 'already_decided',
          outcome: outcomeOf(request, parseDecision(String(reply[1])), reply[2] === '1', at),
        };
      case 'expired':
        return { status: 'expired', outcome: { state: 'expired', request } };
      case 'hash_mismatch':
      case 'scope_refused':
      case 'not_found':
        return { status };
      default:
        throw new HermesError('approval_store_failed', `approval store (Redis): unexpected reply ${status}`);
    }
  }

  async function pendingOf(sessionKey: string): Promise<ApprovalRequest[]> {
    const ids = await redis.zrange(keys.index(sessionKey), 0, '-1');
    if (ids.length === 0) return [];
    const pipeline = redis.pipeline();
    for (const id of ids) pipeline.hmget(keys.request(id), 'json', 'decision');
    const replies = (await pipeline.exec()) ?? [];
    const at = now();
    const pending: ApprovalRequest[] = [];
    const stale: string[] = [];
    ids.forEach((id, index) => {
      const [error, value] = replies[index] ?? [null, null];
      if (error) throw error;
      const [json, decision] = z.array(z.string().nullable()).parse(value);
      if (!json || decision) {
        stale.push(id);
        return;
      }
      const request = parseRequest(json);
      if (at < request.expiresAt) pending.push(request);
    });
    if (stale.length > 0) await redis.zrem(keys.index(sessionKey), ...stale);
    return pending.sort((a, b) => a.createdAt - b.createdAt);
  }

  return {
    async open(request: ApprovalRequest): Promise<OpenResult> {
      const at = now();
      const ttl = Math.max(1, request.expiresAt - at) + retentionMs;
      const json = JSON.stringify(request);
      const reply = scriptReply.parse(
        await run(
          OPEN_SCRIPT,
          [
            keys.pending(request.sessionKey, request.commandHash),
            keys.request(request.id),
            keys.index(request.sessionKey),
          ],
          [
            at,
            request.id,
            json,
            request.sessionKey,
            request.commandHash,
            request.expiresAt,
            request.allowPermanent ? '1' : '0',
            ttl,
            request.createdAt,
          ],
        ),
      );
      if (reply[0] === 'coalesced') return { request: parseRequest(String(reply[1])), coalesced: true };
      return { request, coalesced: false };
    },

    outcome: (requestId) =>
      guarded('outcome', async (): Promise<ApprovalOutcome> => {
        const stored = await readRequest(requestId);
        if (stored === undefined) return { state: 'unknown' };
        return outcomeOf(stored.request, stored.decision, stored.claimed, now());
      }),

    decide: (requestId, input) =>
      guarded('decide', async () => {
        const json = await redis.hget(keys.request(requestId), 'json');
        if (json === null) return { status: 'not_found' as const };
        return decideWith(parseRequest(json), input);
      }),

    claim: async (requestId) => {
      const reply = await run(CLAIM_SCRIPT, [keys.request(requestId)], []);
      return reply === 1;
    },

    listPending: (sessionKey) => guarded('list', () => pendingOf(sessionKey)),

    sessionGrants: (sessionKey) =>
      guarded('read grants', async () => new Set(await redis.smembers(keys.grants(sessionKey)))),

    setSessionYolo: (sessionKey, on) =>
      guarded('set yolo', async () => {
        if (on) await redis.set(keys.yolo(sessionKey), '1', 'PX', sessionTtlMs);
        else await redis.del(keys.yolo(sessionKey));
      }),

    sessionYolo: (sessionKey) =>
      guarded('read yolo', async () => (await redis.get(keys.yolo(sessionKey))) === '1'),

    clearSession: (sessionKey, decidedAt) =>
      guarded('clear session', async () => {
        await redis.del(keys.grants(sessionKey), keys.yolo(sessionKey));
        let cancelled = 0;
        for (const request of await pendingOf(sessionKey)) {
          const result = await decideWith(request, {
            choice: 'deny',
            userId: undefined,
            decidedAt,
            cause: 'cancelled',
          });
          if (result.status === 'recorded') cancelled += 1;
        }
        return cancelled;
      }),

    async close(): Promise<void> {},
  };
}

function parseRequest(json: string): ApprovalRequest {
  const parsed = requestSchema.parse(JSON.parse(json));
  const { smartDenied, ...rest } = parsed;
  return { ...rest, userId: parsed.userId, ...(smartDenied === undefined ? {} : { smartDenied }) };
}

function parseDecision(json: string): DecisionRecord {
  const parsed = decisionSchema.parse(JSON.parse(json));
  return { ...parsed, userId: parsed.userId, reason: parsed.reason };
}

/** EVALSHA with a fallback to EVAL when the server does not know the script yet. */
function evalScript(
  redis: Redis,
  script: string,
  keyList: readonly string[],
  args: readonly (string | number)[],
): Promise<unknown> {
  return runScript(redis, defineScript('approval', script), keyList, args);
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
