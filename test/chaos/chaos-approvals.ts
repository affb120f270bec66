import { readdirSync, readFileSync } from 'node:fs';
import type { FakeTelegram, FakeUser } from '../fakes/fake-telegram.js';

/** How the test answers a prompt: one press, a double press, or a press with a worker killed. */
export type PressVariant = 'press' | 'double' | 'kill_random' | 'kill_holder';

/** An approval prompt the test saw in a chat and pressed "Allow once" on. */
export interface PressedPrompt {
  readonly messageId: number;
  readonly chatId: number;
  readonly token: string;
  readonly requestId: string;
  readonly variant: PressVariant;
  /** The update ids of its presses (more than one for a double press). */
  readonly presses: number[];
}

export interface ApproverOptions {
  readonly fake: FakeTelegram;
  readonly users: readonly FakeUser[];
  /** With worker kills: some presses kill a random worker, some the worker running the command. */
  readonly kills: boolean;
  /** Kills a random worker that is up (none when none is). */
  readonly killRandomWorker: () => Promise<void>;
  /** Kills the process with this pid when it is one of the test's and up; says whether it did. */
  readonly killRunner: (pid: number) => Promise<boolean>;
}

export interface Approver {
  readonly prompts: PressedPrompt[];
  /** True for a message that is (or was) an approval prompt. */
  isPrompt(messageId: number): boolean;
  /** Tokens whose command's runner the approver killed while the approved command ran. */
  readonly holdersKilled: Set<string>;
  stop(): Promise<void>;
}

const VARIANTS: readonly PressVariant[] = ['press', 'double', 'kill_random', 'kill_holder'];

/**
 * Presses "✅ Allow once" on every approval prompt the bot shows in the test's chats, as the
 * person would (a callback query through the fake Telegram). Presses rotate through the
 * variants: a plain press; two presses in a row (the second must change nothing); a press while a
 * random worker is SIGKILLed; and a press after which the worker running the approved command is
 * SIGKILLed while the command runs (found through /proc: the command's shell names the token).
 */
export function startApprover(options: ApproverOptions): Approver {
  const { fake, users } = options;
  const prompts: PressedPrompt[] = [];
  const promptIds = new Set<number>();
  const holdersKilled = new Set<string>();
  const watching = new Set<string>();
  let stopped = false;

  const scan = async () => {
    for (const user of users) {
      for (const message of fake.messages(user.id)) {
        if (message.buttons.length === 0 || promptIds.has(message.messageId)) continue;
        const data = message.buttons.flat().find((button) => button.data?.startsWith('ea:once:'))?.data;
        const token = /req-\d+-\d+/.exec(message.text)?.[0];
        if (data === undefined || token === undefined) continue;
        promptIds.add(message.messageId);
        const planned = VARIANTS[prompts.length % VARIANTS.length] ?? 'press';
        const variant = !options.kills && planned.startsWith('kill') ? 'press' : planned;
        const prompt: PressedPrompt = {
          messageId: message.messageId,
          chatId: user.id,
          token,
          requestId: data.slice('ea:once:'.length),
          variant,
          presses: [],
        };
        prompts.push(prompt);
        const press = () =>
          prompt.presses.push(fake.click({ messageId: message.messageId, from: user, data }));
        press();
        if (variant === 'double') press();
        if (variant === 'kill_random') await options.killRandomWorker();
        if (variant === 'kill_holder' && !holdersKilled.has(token)) watching.add(token);
      }
    }
    for (const token of watching) {
      const runner = runnerOf(token);
      if (runner === undefined) continue;
      watching.delete(token);
      if (await options.killRunner(runner)) holdersKilled.add(token);
    }
  };

  const loop = (async () => {
    while (!stopped) {
      await scan();
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  })();

  return {
    prompts,
    isPrompt: (messageId) => promptIds.has(messageId),
    holdersKilled,
    async stop() {
      stopped = true;
      await loop;
    },
  };
}

/** The pid of the process that started the shell running the approved command of `token`. */
function runnerOf(token: string): number | undefined {
  const marker = `scratch-${token};`;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      if (!cmdline.includes(marker) || !cmdline.includes('-c')) continue;
      // stat: pid (comm) state ppid …; comm may hold spaces, so read after its closing paren.
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (Number.isInteger(ppid) && ppid > 1) return ppid;
    } catch {
      // gone meanwhile
    }
  }
  return undefined;
}
