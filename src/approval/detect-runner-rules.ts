import type { Rule, RuleContext, VerbRules } from './detect-context.js';
import { DANGEROUS } from './detect-keys.js';
import { heredocBodies } from './detect-literal-output.js';
import { RUNNERS, type RunnerSpec } from './detect-runner-table.js';
import { xargsRules } from './detect-xargs-rules.js';
import { operands } from './shell-segment.js';
import type { ShellWord } from './shell-types.js';

/**
 * Programs that run other programs given in their arguments, peeled like `sudo` so the inner
 * command is judged: project runners (`poetry run`, `npm exec`, `nix-shell --run`…; xargs,
 * find -exec, parallel and hyperfine are in detect-xargs-rules.ts), and the schedulers and
 * readers that run text later or from data (`at`, `batch`, `crontab`, `make -f /dev/stdin`,
 * `trap '…'`), and wrapper options that run or load code.
 */

/** Index of the subcommand path (`run`, `exec`, `bisect run`) in argv, skipping global options. */
function pathEnd(spec: RunnerSpec, argv: readonly string[]): number {
  let i = 0;
  let step = 0;
  while (i < argv.length && step < spec.path.length) {
    const arg = argv[i] as string;
    if (arg.startsWith('-')) {
      i += spec.globalValued?.includes(arg) ? 2 : 1;
      continue;
    }
    if (arg.toLowerCase() !== spec.path[step]) return -1;
    step += 1;
    i += 1;
  }
  return step === spec.path.length ? i : -1;
}

function runner(ctx: RuleContext, spec: RunnerSpec): void {
  const { args, argv } = ctx.seg;
  let i = pathEnd(spec, argv);
  if (i < 0) return;
  let positional = spec.positional ?? 0;
  let sawDashes = false;
  let alternative = -1;
  while (i < args.length) {
    const word = args[i] as ShellWord;
    const arg = word.text;
    if (arg === '--') {
      sawDashes = true;
      i += 1;
      break;
    }
    if (arg.startsWith('-') && arg.length > 1) {
      const eq = arg.indexOf('=');
      const name = eq >= 0 ? arg.slice(0, eq) : arg;
      if (spec.payload?.includes(name)) {
        ctx.runPayload(eq >= 0 ? { ...word, text: arg.slice(eq + 1) } : args[i + 1]);
        if (spec.payloadOnly === true) return;
        i += eq >= 0 ? 1 : 2;
        continue;
      }
      if (spec.stop?.includes(name)) return;
      if (spec.commandAfter?.includes(name)) {
        sawDashes = true;
        i += 1;
        break;
      }
      const valued = spec.valued?.includes(name) === true;
      if (
        !valued &&
        eq < 0 &&
        name.startsWith('--') &&
        spec.flags !== undefined &&
        !spec.flags.includes(name) &&
        alternative < 0
      )
        alternative = i + 2;
      i += valued && eq < 0 ? 2 : 1;
      continue;
    }
    if (positional > 0) {
      positional -= 1;
      i += 1;
      continue;
    }
    break;
  }
  if (spec.dashes === true && !sawDashes) return;
  const command = args.slice(i);
  if (command.length === 0) return;
  if (spec.shell === true) {
    const first = command[0] as ShellWord;
    const words = spec.shellFirstOnly === true ? [first] : command;
    if (words.some((word) => word.expanded)) ctx.danger(DANGEROUS.codeFromData);
    ctx.scanShell(words.map((word) => word.text).join(' '));
    return;
  }
  ctx.scanWords(command);
  if (alternative > 0 && alternative < args.length) ctx.scanWords(args.slice(alternative));
}

function runners(ctx: RuleContext): void {
  for (const spec of RUNNERS.get(ctx.seg.family) ?? []) runner(ctx, spec);
}

/** `at`, `batch`, `crontab`: commands that run later, out of sight of any approval. */
function scheduler(ctx: RuleContext): void {
  const { verb, argv } = ctx.seg;
  const letters = argv.filter((arg) => /^-[a-zA-Z]+$/.test(arg)).join('');
  if (verb === 'crontab') {
    if (/l/.test(letters) && !/[re]/.test(letters) && operands(argv).length === 0) return;
  } else if (/[lc]/.test(letters) || argv.includes('-r') || argv.includes('-d')) {
    return;
  }
  ctx.danger(DANGEROUS.scheduledCommand);
  for (const body of heredocBodies(ctx.seg)) {
    for (const line of body.split('\n')) {
      const command = verb === 'crontab' ? line.replace(/^\s*(?:@\w+|(?:\S+\s+){5})/, '') : line;
      if (command.trim() !== '' && !command.trim().startsWith('#')) ctx.scanShell(command, true);
    }
  }
}

/** `make -f /dev/stdin`, `make -f <(…)`, `make -f "$x"`: the makefile is data. */
const STDIN_FILES = /^(?:-|\/dev\/stdin|\/dev\/fd\/[0-9]+|\/proc\/[^/]+\/fd\/[0-9]+)$/;

function make(ctx: RuleContext): void {
  const { args } = ctx.seg;
  for (let i = 0; i < args.length; i += 1) {
    const arg = (args[i] as ShellWord).text;
    let file: ShellWord | undefined;
    if (arg === '-f' || arg === '--file' || arg === '--makefile') file = args[i + 1];
    else if (arg.startsWith('--file=') || arg.startsWith('--makefile='))
      file = { ...(args[i] as ShellWord), text: arg.slice(arg.indexOf('=') + 1) };
    else if (/^-f./.test(arg)) file = { ...(args[i] as ShellWord), text: arg.slice(2) };
    else if (
      /^(?:SHELL|MAKESHELL)=/.test(arg) &&
      !/^(?:SHELL|MAKESHELL)=(?:\/(?:usr\/)?bin\/)?(?:ba|da|z|k)?sh$/.test(arg)
    ) {
      ctx.danger(DANGEROUS.optionProgram);
    }
    if (file !== undefined && (file.expanded || STDIN_FILES.test(file.text)))
      ctx.danger(DANGEROUS.codeFromData);
  }
}

/** `trap 'ACTION' SIGNAL…`: the action runs later, in this shell. */
function trap(ctx: RuleContext): void {
  const ops = ctx.seg.args.filter((word) => !/^-[lp-]$/.test(word.text) || word.text === '-');
  if (ctx.seg.argv.includes('-l') || ctx.seg.argv.includes('-p') || ops.length < 2) return;
  const action = ops[0] as ShellWord;
  if (action.text === '-' || action.text === '') return;
  ctx.runPayload(action, ctx.positional);
}

/** Options wrappers take that run or load code: `strace -o '|cmd'`, `fakeroot -l lib`, `systemd-run --on-calendar`. */
function wrapperOptions(ctx: RuleContext): void {
  for (const { name, options } of ctx.seg.wrappers) {
    for (let i = 0; i < options.length; i += 1) {
      const option = options[i] as string;
      if (name === 'strace' || name === 'ltrace') {
        const value =
          option === '-o' || option === '--output'
            ? options[i + 1]
            : option.startsWith('--output=')
              ? option.slice(9)
              : /^-o./.test(option)
                ? option.slice(2)
                : undefined;
        if (value !== undefined && /^[|!]/.test(value)) {
          ctx.danger(DANGEROUS.optionProgram);
          ctx.scanShell(value.slice(1));
        }
      } else if (
        name === 'fakeroot' &&
        (option === '-l' ||
          option === '--faked' ||
          /^--(?:lib|faked)(?:=|$)/.test(option) ||
          /^-l./.test(option))
      ) {
        ctx.danger(DANGEROUS.envCodeInjection);
      } else if (name === 'systemd-run' && /^--(?:on-|timer-property)/.test(option)) {
        ctx.danger(DANGEROUS.scheduledCommand);
      }
    }
  }
}

export const runnerGenericRules: readonly Rule[] = [wrapperOptions];

export const runnerRules: readonly VerbRules[] = [
  ...xargsRules,
  { verbs: [...RUNNERS.keys()], run: runners },
  { verbs: ['at', 'batch', 'crontab'], run: scheduler },
  { verbs: ['make', 'gmake'], run: make },
  { verbs: ['trap'], run: trap },
];
