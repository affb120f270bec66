import { describeChat, isSameChat } from './admin-commands.js';
import type { CommandImpl, CommandRun } from './command-context.js';
import { commandSpec } from './command-table.js';
import { formatCount, plural, roughDuration } from './command-text.js';

/** `/help`: the commands this sender may run, and what works while a task runs. */
export const helpCommand: CommandImpl = async (run) => {
  const lines = ['Commands you can use here:'];
  for (const name of run.allowed) {
    const spec = commandSpec(name);
    lines.push(`${withPrefix(spec.usage, run.p)} — ${spec.description}`);
  }
  lines.push('');
  const midTurn = run.allowed.filter((name) => commandSpec(name).bypassesQueue && name !== 'help');
  if (midTurn.length > 0) {
    lines.push(
      `These work at once, even while I am busy: ${midTurn.map((name) => run.p + name).join(', ')}.`,
    );
  }
  lines.push(
    `Approvals need ${run.p}approve or a button: a plain "yes" or "ok" is read as a normal message.`,
  );
  return [lines.join('\n')];
};

/** `/whoami`: platform, user, role, chat and session key. */
export const whoamiCommand: CommandImpl = async (run) => {
  const { platform, sender, chat, isAdmin, sessionKey } = run.input;
  const user = sender.userName === undefined ? sender.userId : `${sender.userId} (${sender.userName})`;
  const where = chat.threadId === undefined ? chat.chatId : `${chat.chatId}, thread ${chat.threadId}`;
  return [
    [
      `Platform: ${platform}`,
      `User: ${user}`,
      `Role: ${isAdmin ? 'admin' : 'user'}`,
      `Chat: ${chat.chatType} ${where}`,
      `Home channel: ${await homeLine(run)}`,
      `Session key: ${sessionKey}`,
      `Commands you can run: ${run.allowed.map((name) => run.p + name).join(', ')}`,
    ].join('\n'),
  ];
};

/** `/status`: session, model, running or idle, pending approvals, yolo, queue. */
export const statusCommand: CommandImpl = async (run) => {
  const { store, approvals, queue, config } = run.deps;
  const key = run.input.sessionKey;
  const [session, pending, yolo] = await Promise.all([
    store.getOrCreateSession(key),
    approvals.listPending(key),
    approvals.isSessionYolo(key),
  ]);
  const messages = await store.countMessages(session.sessionId);
  const lines = [
    `Session: ${session.sessionId}${session.title === undefined ? '' : ` — "${session.title}"`}`,
    `Started: ${new Date(session.sessionStartedAt).toISOString()} (${plural(messages, 'message')} so far)`,
    `Model: ${modelLine(run, session.modelOverride)}`,
    `Task: ${await taskLine(run)}`,
  ];
  const oldest = pending[0];
  lines.push(
    oldest === undefined
      ? 'Pending approvals: none'
      : `Pending approvals: ${pending.length} (oldest expires in ${roughDuration(oldest.expiresAt - run.now())}) — ${run.p}approve or ${run.p}deny`,
  );
  lines.push(`YOLO: ${yolo || config.approvals.yolo ? 'on' : 'off'}`);
  lines.push(`Queue: ${queue.kind}`);
  return [lines.join('\n')];
};

/** `/model [name|default]`: shows or sets the session's model override. */
export const modelCommand: CommandImpl = async (run) => {
  const { store } = run.deps;
  const key = run.input.sessionKey;
  const wanted = run.args.trim();
  if (wanted === '') {
    const session = await store.getOrCreateSession(key);
    return [
      `Model: ${modelLine(run, session.modelOverride)}. Change it with ${run.p}model <name>; ${run.p}model default goes back to the gateway's default.`,
    ];
  }
  if (['default', 'reset', 'clear', 'none'].includes(wanted.toLowerCase())) {
    await store.updateSession(key, { modelOverride: null });
    return [`Back to the default model (${defaultModel(run)}) from the next turn.`];
  }
  if (!MODEL_NAME.test(wanted)) {
    return [
      `"${wanted.slice(0, 40)}" does not look like a model name (letters, digits and . _ - : / @ +, no spaces, at most 200 characters).`,
    ];
  }
  await store.updateSession(key, { modelOverride: wanted });
  return [`This chat now uses ${wanted}, from the next turn on.`];
};

const MODEL_NAME = /^[A-Za-z0-9][A-Za-z0-9._:/@+-]{0,199}$/;

/** `/usage`: messages and token counts of the current conversation, from the stored transcript. */
export const usageCommand: CommandImpl = async (run) => {
  const { store } = run.deps;
  const session = await store.getOrCreateSession(run.input.sessionKey);
  const messages = await store.listMessages(session.sessionId);
  const byRole = { user: 0, assistant: 0, tool: 0, system: 0 };
  let promptTokens = 0;
  let completionTokens = 0;
  let modelCalls = 0;
  for (const message of messages) {
    byRole[message.role] += 1;
    if (message.promptTokens !== undefined || message.completionTokens !== undefined) modelCalls += 1;
    promptTokens += message.promptTokens ?? 0;
    completionTokens += message.completionTokens ?? 0;
  }
  const lines = [
    `This conversation (session ${session.sessionId}, since ${new Date(session.sessionStartedAt).toISOString()}):`,
    `Messages: ${messages.length} — ${byRole.user} from you, ${byRole.assistant} from the assistant, ${plural(byRole.tool, 'tool result')}`,
    modelCalls === 0
      ? 'Tokens: none recorded yet'
      : `Tokens: ${formatCount(promptTokens)} in, ${formatCount(completionTokens)} out, over ${plural(modelCalls, 'model call')} (input counts every call's whole context)`,
  ];
  return [lines.join('\n')];
};

function defaultModel(run: CommandRun): string {
  return run.deps.config.model.name ?? 'none configured';
}

function modelLine(run: CommandRun, override: string | undefined): string {
  return override === undefined
    ? `${defaultModel(run)} (gateway default)`
    : `${override} (chosen for this chat)`;
}

async function taskLine(run: CommandRun): Promise<string> {
  const { isTurnRunning, queue } = run.deps;
  if (isTurnRunning !== undefined) {
    return (await isTurnRunning(run.input.sessionKey)) ? `running — ${run.p}stop stops it` : 'idle';
  }
  return `${plural(queue.activeTurns(), 'turn')} running in this process`;
}

/** Where `home` points on this platform; other chats' ids are shown to admins only. */
async function homeLine(run: CommandRun): Promise<string> {
  const home = await run.deps.store.getHomeChannel(run.input.platform);
  if (home === undefined) {
    return run.allowed.includes('sethome')
      ? `not set (${run.p}sethome in a chat makes it the home channel)`
      : 'not set';
  }
  if (isSameChat(home, run.input.chat)) return 'this chat';
  return run.input.isAdmin ? `${describeChat(home)} (set by ${home.setBy})` : 'another chat';
}

/** Usage strings are written with `/`; platforms with another prefix get theirs. */
function withPrefix(usage: string, prefix: string): string {
  return usage.startsWith('/') ? prefix + usage.slice(1) : usage;
}
