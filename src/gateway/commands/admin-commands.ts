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
 * `/sethome`: would remember this chat as the home channel for notifications. The store has no
 * place for it yet, so it says so instead of pretending.
 */
export const sethomeCommand: CommandImpl = async () => [
  'Home channels are not supported yet: there is nowhere to keep one, so nothing was changed. Notifications go to the chat that started the task.',
];
