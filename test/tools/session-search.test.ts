import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  createSqliteGatewayStore,
  type SqliteGatewayStore,
} from '../../src/gateway/store/sqlite-gateway-store.js';
import type { ToolServices } from '../../src/registry/tool-services.js';
import type { ToolContext } from '../../src/registry/tool-types.js';
import { sessionSearchScope } from '../../src/tools/agent/session-search-scope.js';
import { sessionSearchTool } from '../../src/tools/session-search.js';
import { makeTempHome, silentLogger, testConfig, testServices } from '../helpers/test-config.js';

let temp: ReturnType<typeof makeTempHome>;
let store: SqliteGatewayStore;
let services: ToolServices;

beforeEach(() => {
  temp = makeTempHome('hermes-search-');
  store = createSqliteGatewayStore({ path: join(temp.home, 'state.db'), logger: silentLogger });
  services = testServices(testConfig(temp.home), { sessionSearch: store });
});
afterEach(async () => {
  await store.close();
  temp.cleanup();
});

function ctx(sessionKey: string): ToolContext {
  return {
    signal: new AbortController().signal,
    sessionKey,
    taskId: 't1',
    cwd: temp.home,
    userId: '42',
    platform: 'telegram',
    unattended: false,
    toolCallId: 'c1',
    services,
  };
}

async function say(key: string, ...texts: string[]) {
  const session = await store.getOrCreateSession(key);
  await store.appendMessages(
    session.sessionId,
    texts.map((content, index) => ({
      role: index % 2 === 0 ? ('user' as const) : ('assistant' as const),
      content,
    })),
  );
  return session.sessionId;
}

interface Reply {
  count: number;
  results: Array<{ session_id: string; excerpt: string; role: string; date: string }>;
  note?: string;
}

async function search(key: string, query: string, limit?: number): Promise<Reply> {
  const args = sessionSearchTool.parameters.parse({ query, ...(limit === undefined ? {} : { limit }) });
  return (await sessionSearchTool.handler(args, ctx(key))) as Reply;
}

describe('session_search', () => {
  const dm = 'agent:main:telegram:dm:42';

  it('finds earlier sessions of the same DM (and its threads), never the current one or another user', async () => {
    const old = await say(dm, 'we picked postgres for the billing database', 'Noted: postgres it is.');
    await store.rotateSession(dm);
    const current = await say(dm, 'what about postgres again?');
    const thread = await say(`${dm}:th1`, 'postgres replication in a thread');
    await say('agent:main:telegram:dm:77', 'postgres secrets of someone else');

    const reply = await search(dm, 'postgres', 10);
    const sessions = new Set(reply.results.map((result) => result.session_id));
    expect(sessions).toEqual(new Set([old, thread]));
    expect(sessions.has(current)).toBe(false);
    expect(reply.results.every((result) => result.excerpt.toLowerCase().includes('postgres'))).toBe(true);
    expect(reply.results[0]!.date).toMatch(/^\d{4}-\d{2}-\d{2}T/);
  });

  it('in a group only searches the same key: other members stay out', async () => {
    const mine = 'agent:main:discord:group:g1:42';
    const old = await say(mine, 'the deploy plan uses blue green');
    await store.rotateSession(mine);
    await say('agent:main:discord:group:g1:77', 'my private deploy notes');
    await say(`${mine}:x`, 'deploy under a longer key');
    const reply = await search(mine, 'deploy');
    expect(reply.results.map((result) => result.session_id)).toEqual([old]);
  });

  it('honours the limit and says when nothing matches', async () => {
    for (let index = 0; index < 4; index += 1) {
      await say(dm, `kubernetes note ${index}`);
      await store.rotateSession(dm);
    }
    expect((await search(dm, 'kubernetes', 2)).count).toBe(2);
    const none = await search(dm, 'zebra');
    expect(none.count).toBe(0);
    expect(none.note).toContain('No earlier conversation');
  });

  it('treats query syntax literally', async () => {
    await say(dm, 'a note about "quotes" and OR operators');
    await store.rotateSession(dm);
    expect((await search(dm, '"quotes" OR')).count).toBe(1);
  });

  it('is unavailable without the service', () => {
    expect(sessionSearchTool.checkFn?.(testServices(testConfig(temp.home)))).toMatchObject({ ok: false });
    expect(sessionSearchTool.checkFn?.(services)).toMatchObject({ ok: true });
    expect(sessionSearchTool.readOnly).toBe(true);
  });

  it('derives its scope from the session key', () => {
    expect(sessionSearchScope('agent:main:telegram:dm:42:th9')).toEqual({
      prefix: 'agent:main:telegram:dm:42',
      exact: false,
    });
    expect(sessionSearchScope('agent:main:discord:thread:t1')).toEqual({
      prefix: 'agent:main:discord:thread:t1',
      exact: true,
    });
  });
});
