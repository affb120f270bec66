import type { ChatAddress } from '../../platforms/adapter.js';
import type { CommandImpl } from './command-context.js';

/** Pairing codes: 8 characters of an unambiguous alphabet; be lenient about case and spacing. */
const CODE = /^[A-Za-z0-9]{4,16}$/;
const PLATFORM = /^[a-z][a-z0-9_-]{0,31}$/;

/**
 * `/pair <code>` or `/pair <platform> <code>` (admins): approves the user behind a pending
 * pairing code, on this chat's platform unless another one is named.
 */
export const pairCommand: CommandImpl = async (run) => {
  const words = run.args.trim().split(/\s+/).filter(Boolean);
  const [first, second] = words;
  const platform = words.length === 2 ? first!.toLowerCase() : run.input.platform;
  const raw = words.length === 2 ? second : first;
  if (
    words.length === 0 ||
    words.length > 2 ||
    raw === undefined ||
    !CODE.test(raw) ||
    !PLATFORM.test(platform)
  ) {
    return [
      `Usage: ${run.p}pair <code> — the code the new user got from me (or ${run.p}pair <platform> <code>).`,
    ];
  }
  const { approvePairing } = run.deps;
  if (approvePairing === undefined) return ['Pairing is not available on this gateway.'];
  const code = raw.toUpperCase();
  const approved = await approvePairing(platform, code, run.input.sender.userId);
  if (approved === undefined) {
    return [
      `No pending pairing code ${code} on ${platform} (unknown, already used or expired). Ask the user to message me again for a fresh code.`,
    ];
  }
  const who = approved.userName === undefined ? approved.userId : `${approved.userName} (${approved.userId})`;
  return [`✅ Paired: ${who} can now talk to me on ${platform}.`];
};

/**
 * `/sethome`: makes this chat (and thread) the platform's home channel, where notifications
 * addressed to `home` go (a webhook route's `deliver: { platform, chat_id: home }`). The home
 * channel is one per platform, so a group, channel or thread can be made home by admins only; a
 * user the operator lets run `/sethome` (`gateway.user_commands`) may make their own DM home.
 */
export const sethomeCommand: CommandImpl = async (run) => {
  const { platform, chat, sender, isAdmin } = run.input;
  const { store } = run.deps;
  if (run.args.trim() !== '') {
    return [`${run.p}sethome takes no arguments: send it in the chat that should become the home channel.`];
  }
  if (chat.chatType !== 'dm' && !isAdmin) {
    return [`Only admins can make a group chat the home channel. ${run.p}sethome in a direct message works.`];
  }
  const previous = await store.getHomeChannel(platform);
  if (previous !== undefined && isSameChat(previous, chat)) {
    return [`This chat is already the home channel for ${platform}.`];
  }
  await store.setHomeChannel({
    platform,
    chatId: chat.chatId,
    ...(chat.threadId === undefined ? {} : { threadId: chat.threadId }),
    setBy: sender.userId,
  });
  run.deps.logger.info(
    { platform, chatId: chat.chatId, threadId: chat.threadId, setBy: sender.userId },
    'home channel set',
  );
  // Scheduled runs that found no home channel run now, once each, instead of waiting for their next time.
  const retried = (await run.deps.cron?.retryUndelivered(platform)) ?? 0;
  const replaced =
    previous === undefined
      ? ''
      : isAdmin
        ? ` It replaces ${describeChat(previous)}.`
        : ' It replaces the previous home channel.';
  return [
    `🏠 This chat is now the home channel for ${platform}: notifications addressed to "home" (such as webhook results with chat_id: home) arrive here.${replaced}`,
    ...(retried > 0
      ? [
          `⏰ ${retried === 1 ? 'One scheduled task' : `${retried} scheduled tasks`} that had nowhere to deliver ${retried === 1 ? 'runs' : 'run'} again now.`,
        ]
      : []),
  ];
};

/** Whether a stored home channel is this chat (and thread). */
export function isSameChat(home: ChatAddress, chat: ChatAddress): boolean {
  return home.chatId === chat.chatId && home.threadId === chat.threadId;
}

/** `chat -1001, thread 7`. */
export function describeChat(chat: ChatAddress): string {
  return chat.threadId === undefined ? `chat ${chat.chatId}` : `chat ${chat.chatId}, thread ${chat.threadId}`;
}
