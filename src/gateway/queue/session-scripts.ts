import { defineScript } from '../../lib/redis-script.js';
import type { QueueKeys, SessionKeys } from './session-keys.js';

/*
 * Lua scripts of the BullMQ turn queue. Each one touches the keys of a single session (plus the
 * queue-wide `sessions` hash and `depth` counter) and runs atomically, which is what closes the
 * race between "the lock holder finishes" and "a new item arrives": an item is either seen by the
 * holder's FINISH or finds the lock free and schedules a job of its own.
 *
 * Items travel in wire form: `m` (steerable message) or `r` (resume) followed by JSON.
 * Replies are arrays whose first element names the outcome.
 */

/** KEYS of the lifecycle scripts, in this order. */
export function lifecycleKeys(queue: QueueKeys, session: SessionKeys): string[] {
  return [
    session.lock,
    session.turn,
    session.turnItems,
    session.inbox,
    session.interrupt,
    queue.sessions,
    queue.depth,
  ];
}

// KEYS: 1 lock, 2 turn, 3 turnItems, 4 inbox, 5 interrupt, 6 sessions, 7 depth
const TURN_HELPERS = `
-- The next turn takes a solo item ('s') alone, otherwise every item up to the next solo one.
local function start_next(newId)
  local first = redis.call('LINDEX', KEYS[4], 0)
  if not first then return nil end
  redis.call('DEL', KEYS[3])
  local items
  if string.sub(first, 1, 1) == 's' then
    items = {redis.call('LPOP', KEYS[4])}
    redis.call('RPUSH', KEYS[3], items[1])
  else
    local all = redis.call('LRANGE', KEYS[4], 0, -1)
    local n = #all
    for i = 2, #all do
      if string.sub(all[i], 1, 1) == 's' then
        n = i - 1
        break
      end
    end
    if n == #all then
      redis.call('RENAME', KEYS[4], KEYS[3])
      items = all
    else
      items = {}
      for i = 1, n do
        items[i] = all[i]
        redis.call('RPUSH', KEYS[3], all[i])
      end
      redis.call('LTRIM', KEYS[4], n, -1)
    end
  end
  redis.call('DECRBY', KEYS[7], #items)
  redis.call('DEL', KEYS[5])
  local solo = 0
  if string.sub(items[1], 1, 1) == 's' then solo = 1 end
  redis.call('HSET', KEYS[2], 'id', newId, 'starts', 1, 'failures', 0, 'running', 1, 'solo', solo)
  return {'turn', newId, 1, 0, items}
end

local function resume_turn()
  local f = redis.call('HMGET', KEYS[2], 'id', 'failures', 'running')
  local failures = tonumber(f[2]) or 0
  if f[3] == '1' then
    failures = failures + 1
    redis.call('HSET', KEYS[2], 'failures', failures)
  end
  local starts = redis.call('HINCRBY', KEYS[2], 'starts', 1)
  redis.call('HSET', KEYS[2], 'running', 1)
  return {'turn', f[1], starts, failures, redis.call('LRANGE', KEYS[3], 0, -1)}
end
`;

// Queues one item. Keys by name, since SUBMIT and SUBMIT_CLAIM number them differently.
// ARGV: 1 dedupe ms, 2 wire item, 3 busy mode, 4 session hash, 5 session key, 6 interrupt ttl ms.
const SUBMIT_HELPER = `
local function submit_item(seen, inbox, lock, turn, interrupt, sessions, depth)
  if ARGV[1] ~= '0' and not redis.call('SET', seen, '1', 'NX', 'PX', ARGV[1]) then return {'duplicate', 0} end
  local waiting = redis.call('RPUSH', inbox, ARGV[2])
  redis.call('HSET', sessions, ARGV[4], ARGV[5])
  redis.call('INCR', depth)
  if redis.call('EXISTS', lock) == 0 then
    -- nobody holds the session: the first waiting item schedules a job, later ones ride along
    local schedule = 0
    if waiting == 1 then schedule = 1 end
    if redis.call('EXISTS', turn) == 1 then return {'queued', schedule} end
    return {'started', schedule}
  end
  if string.sub(ARGV[2], 1, 1) ~= 'm' or ARGV[3] == 'queue' then return {'queued', 0} end
  -- a solo turn (an API request) is neither steered nor interrupted by what arrives meanwhile
  if redis.call('HGET', turn, 'solo') == '1' then return {'queued', 0} end
  if ARGV[3] == 'steer' then return {'steered', 0} end
  local id = redis.call('HGET', turn, 'id')
  if not id then return {'queued', 0} end
  redis.call('SET', interrupt, id, 'PX', ARGV[6])
  return {'interrupting', 0, id}
end
`;

/**
 * submit. KEYS: 1 seen, 2 inbox, 3 lock, 4 turn, 5 interrupt, 6 sessions, 7 depth.
 * ARGV: 1 dedupe ms, 2 wire item, 3 busy mode, 4 session hash, 5 session key, 6 interrupt ttl ms.
 * → {status, scheduleJob (1|0), [turnId to interrupt]}
 */
export const SUBMIT = defineScript(
  'submit',
  `${SUBMIT_HELPER}
return submit_item(KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6], KEYS[7])
`,
);

/**
 * submitClaim: SUBMIT, and when the item would schedule a job (nobody holds the session), CLAIM
 * it for the caller at once, so a process with a free slot runs it without a second round trip.
 * KEYS: lifecycle, then 8 seen. ARGV: SUBMIT's 1–6, then 7 token, 8 lock ms, 9 new turn id.
 * → SUBMIT's reply, or {status, 2, 'turn', id, attempt, failures, items} when claimed
 */
export const SUBMIT_CLAIM = defineScript(
  'submitClaim',
  `${TURN_HELPERS}${SUBMIT_HELPER}
local reply = submit_item(KEYS[8], KEYS[4], KEYS[1], KEYS[2], KEYS[5], KEYS[6], KEYS[7])
if reply[2] ~= 1 then return reply end
-- the lock is free (submit_item saw it, in this same script) and the inbox holds this item
redis.call('SET', KEYS[1], ARGV[7], 'PX', ARGV[8])
local claimed
if redis.call('EXISTS', KEYS[2]) == 1 then claimed = resume_turn() else claimed = start_next(ARGV[9]) end
if not claimed then
  redis.call('DEL', KEYS[1])
  return reply
end
return {reply[1], 2, claimed[1], claimed[2], claimed[3], claimed[4], claimed[5]}
`,
);

/**
 * claim: take the session lock and the turn to run — an unfinished one first (crash recovery),
 * else everything in the inbox. KEYS: lifecycle. ARGV: 1 token, 2 lock ms, 3 new turn id, 4 hash.
 * → {'busy'} | {'idle'} | {'turn', id, attempt, failures, items}
 */
export const CLAIM = defineScript(
  'claim',
  `${TURN_HELPERS}
if not redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then return {'busy'} end
if redis.call('EXISTS', KEYS[2]) == 1 then return resume_turn() end
local next_turn = start_next(ARGV[3])
if next_turn then return next_turn end
redis.call('DEL', KEYS[1])
redis.call('HDEL', KEYS[6], ARGV[4])
return {'idle'}
`,
);

/**
 * finish: the turn is done; drop it and, when `continue` is 1, start the next one from the inbox
 * under the same lock. KEYS: lifecycle. ARGV: 1 token, 2 lock ms, 3 new turn id, 4 hash, 5 continue.
 * → {'lost'} | {'idle'} | {'pending'} (inbox not empty, lock released) | {'turn', …}
 */
export const FINISH = defineScript(
  'finish',
  `${TURN_HELPERS}
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return {'lost'} end
redis.call('DEL', KEYS[2], KEYS[3])
if ARGV[5] == '1' then
  local next_turn = start_next(ARGV[3])
  if next_turn then
    redis.call('PEXPIRE', KEYS[1], ARGV[2])
    return next_turn
  end
end
redis.call('DEL', KEYS[1], KEYS[5])
if redis.call('EXISTS', KEYS[4]) == 1 then return {'pending'} end
redis.call('HDEL', KEYS[6], ARGV[4])
return {'idle'}
`,
);

/**
 * release (shutdown, or no local slot for the next turn): keep the turn for another worker, not
 * counted as a failure. With `unrun` 1 the claim under this token never started the handler, so
 * its start is taken back too: the next claim gets the attempt number this one got.
 * KEYS: lock, turn. ARGV: token, unrun (1|0). → 1 | 0
 */
export const RELEASE = defineScript(
  'release',
  `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
if redis.call('EXISTS', KEYS[2]) == 1 then
  redis.call('HSET', KEYS[2], 'running', 0)
  if ARGV[2] == '1' then redis.call('HINCRBY', KEYS[2], 'starts', -1) end
end
redis.call('DEL', KEYS[1])
return 1
`,
);

/** attemptFailed. KEYS: lock, turn. ARGV: token. → failures so far | -1 (lock lost) */
export const ATTEMPT_FAILED = defineScript(
  'attemptFailed',
  `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return -1 end
redis.call('HSET', KEYS[2], 'running', 0)
return redis.call('HINCRBY', KEYS[2], 'failures', 1)
`,
);

/** beginAttempt. KEYS: lock, turn. ARGV: token, lock ms. → attempt number | -1 (lock lost) */
export const BEGIN_ATTEMPT = defineScript(
  'beginAttempt',
  `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return -1 end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
redis.call('HSET', KEYS[2], 'running', 1)
return redis.call('HINCRBY', KEYS[2], 'starts', 1)
`,
);

/** renew. KEYS: lock, interrupt. ARGV: token, lock ms, turn id. → -1 lost | 1 interrupt asked | 0 */
export const RENEW = defineScript(
  'renew',
  `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return -1 end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
if redis.call('GET', KEYS[2]) == ARGV[3] then return 1 end
return 0
`,
);

/**
 * takeSteering: move the leading run of steerable items from the inbox to the turn; a solo
 * turn takes none. KEYS: lock, inbox, turnItems, depth. ARGV: token. → wire items taken
 */
export const TAKE_STEERING = defineScript(
  'takeSteering',
  `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return {} end
local first = redis.call('LINDEX', KEYS[3], 0)
if first and string.sub(first, 1, 1) == 's' then return {} end
local all = redis.call('LRANGE', KEYS[2], 0, -1)
local taken = {}
for i = 1, #all do
  if string.sub(all[i], 1, 1) ~= 'm' then break end
  taken[i] = all[i]
end
if #taken == 0 then return {} end
redis.call('LTRIM', KEYS[2], #taken, -1)
for i = 1, #taken do redis.call('RPUSH', KEYS[3], taken[i]) end
redis.call('DECRBY', KEYS[4], #taken)
return taken
`,
);

/** sweepOne: does an unlocked session have work? KEYS: lock, turn, inbox, sessions. ARGV: hash. → 1 | 0 */
export const SWEEP_ONE = defineScript(
  'sweepOne',
  `
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
if redis.call('EXISTS', KEYS[2]) == 1 or redis.call('EXISTS', KEYS[3]) == 1 then return 1 end
redis.call('HDEL', KEYS[4], ARGV[1])
return 0
`,
);

/**
 * interrupt (`/stop`, `/new`): flag the session's turn in progress, running or waiting for
 * recovery, so the worker holding it aborts (the renewal reads the flag; pub/sub is the fast path).
 * KEYS: 1 turn, 2 interrupt. ARGV: 1 interrupt ttl ms. → turn id | nil (no turn in progress)
 */
export const INTERRUPT = defineScript(
  'interrupt',
  `
local id = redis.call('HGET', KEYS[1], 'id')
if not id then return false end
redis.call('SET', KEYS[2], id, 'PX', ARGV[1])
return id
`,
);
