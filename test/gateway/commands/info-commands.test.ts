import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { waitFor } from '../queue/queue-test-kit.js';
import { ADMIN, ALICE, type CommandKit, commandKit, SESSION } from './command-kit.js';

let kit: CommandKit;

beforeEach(async () => {
  kit = await commandKit({ env: { HERMES_MODEL: 'test-model' } });
});

afterEach(async () => {
  await kit.close();
});

describe('/help', () => {
  it('lists only what a non-admin may run, what works mid-turn, and that "yes" is no approval', async () => {
    const help = await kit.send('/help');
    expect(help).toContain('/approve [session|always] [all] — Approve the oldest waiting command (or all)');
    expect(help).toContain('/whoami — ');
    expect(help).not.toContain('/yolo');
    expect(help).not.toContain('/pair');
    expect(help).not.toContain('/sethome');
    expect(help).toContain(
      'These work at once, even while I am busy: /new, /status, /stop, /approve, /deny, /queue, /whoami.',
    );
    expect(help).toContain('a plain "yes" or "ok" is read as a normal message');
  });

  it('lists everything for an admin, with the platform prefix', async () => {
    const help = await kit.send('/help', ADMIN, { prefix: '!' });
    for (const usage of [
      '!yolo [on|off]',
      '!pair <code>',
      '!sethome',
      '!tools [enable|disable <toolset>|reset]',
    ]) {
      expect(help).toContain(usage);
    }
  });
});

describe('/whoami', () => {
  it('names platform, user, role, chat and session key', async () => {
    expect(await kit.send('/whoami')).toBe(
      [
        'Platform: test',
        'User: alice (Alice)',
        'Role: user',
        'Chat: dm chat-1',
        'Home channel: not set',
        `Session key: ${SESSION}`,
        'Commands you can run: /help, /new, /status, /stop, /model, /approve, /deny, /queue, /whoami, /usage, /tools, /cron',
      ].join('\n'),
    );
    expect(
      await kit.send('/who', ADMIN, { chat: { chatId: 'g1', chatType: 'group', threadId: '7' } }),
    ).toContain('Role: admin\nChat: group g1, thread 7');
  });
});

describe('/status', () => {
  it('shows session, model, idle task, approvals, yolo and queue kind', async () => {
    const session = await kit.store.getOrCreateSession(SESSION);
    expect(await kit.send('/status')).toBe(
      [
        `Session: ${session.sessionId}`,
        `Started: ${new Date(session.sessionStartedAt).toISOString()} (0 messages so far)`,
        'Model: test-model (gateway default)',
        'Task: idle',
        'Pending approvals: none',
        'YOLO: off',
        'Queue: embedded',
      ].join('\n'),
    );
  });

  it('works while a turn runs and counts pending approvals', async () => {
    await kit.ask('git reset --hard');
    kit.advance(60_000);
    await kit.ask('chmod 777 /srv/project/data');
    await kit.holdTurn();
    await waitFor(() => kit.running.has(SESSION), 'turn running');
    const status = await kit.send('/status');
    expect(status).toContain('Task: running — /stop stops it');
    expect(status).toContain('Pending approvals: 2 (oldest expires in 4 min) — /approve or /deny');
    await kit.send('/stop');
  });

  it('falls back to the process-wide count without a per-session probe', async () => {
    const handler = kit.handlerWith({ isTurnRunning: undefined });
    expect(await kit.send('/status', ALICE, { handler })).toContain('Task: 0 turns running in this process');
  });
});

describe('/model', () => {
  it('shows, sets and clears the session model override', async () => {
    expect(await kit.send('/model')).toBe(
      "Model: test-model (gateway default). Change it with /model <name>; /model default goes back to the gateway's default.",
    );
    expect(await kit.send('/model openai/gpt-4o-mini')).toBe(
      'This chat now uses openai/gpt-4o-mini, from the next turn on.',
    );
    expect((await kit.store.getOrCreateSession(SESSION)).modelOverride).toBe('openai/gpt-4o-mini');
    expect(await kit.send('/m')).toMatch(/^Model: openai\/gpt-4o-mini \(chosen for this chat\)/);
    expect(await kit.send('/model default')).toBe(
      'Back to the default model (test-model) from the next turn.',
    );
    expect((await kit.store.getOrCreateSession(SESSION)).modelOverride).toBeUndefined();
  });

  it('refuses something that is not a model name', async () => {
    expect(await kit.send('/model two words')).toMatch(/^"two words" does not look like a model name/);
    expect((await kit.store.getOrCreateSession(SESSION)).modelOverride).toBeUndefined();
  });
});

describe('/usage', () => {
  it('counts messages and tokens of the current conversation from the transcript', async () => {
    const session = await kit.store.getOrCreateSession(SESSION);
    await kit.store.appendMessages(session.sessionId, [
      { role: 'user', content: 'list files' },
      {
        role: 'assistant',
        content: null,
        toolCalls: [
          { id: 'c1', type: 'function', function: { name: 'terminal', arguments: '{"command":"ls"}' } },
        ],
        promptTokens: 1_200,
        completionTokens: 30,
      },
      { role: 'tool', content: 'a b c', toolCallId: 'c1', name: 'terminal' },
      { role: 'assistant', content: 'three files', promptTokens: 1_300, completionTokens: 12 },
    ]);
    const usage = await kit.send('/usage');
    expect(usage).toContain('Messages: 4 — 1 from you, 2 from the assistant, 1 tool result');
    expect(usage).toContain('Tokens: 2,500 in, 42 out, over 2 model calls');

    await kit.send('/new');
    expect(await kit.send('/usage')).toContain('Tokens: none recorded yet');
  });
});
