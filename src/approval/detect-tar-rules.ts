import type { RuleContext, VerbRules } from './detect-context.js';
import { DANGEROUS } from './detect-keys.js';
import { optionCommand } from './detect-option-command.js';
import { COMPRESSORS } from './detect-programs.js';
import { resolveLongOption } from './shell-segment.js';
import type { ShellWord } from './shell-types.js';

/**
 * tar and zip options that run programs: `--checkpoint-action=exec=…`, `--to-command`,
 * `-F`/`--info-script`, `--rsh-command`, `-I`/`--use-compress-program` (a compressor is fine),
 * and zip's `-TT`/`--unzip-command`.
 */

// --- tar -----------------------------------------------------------------------------------------

const TAR_LONGS = [
  '--checkpoint',
  '--checkpoint-action',
  '--check-device',
  '--check-links',
  '--to-command',
  '--to-stdout',
  '--totals',
  '--touch',
  '--use-compress-program',
  '--usage',
  '--utc',
  '--unlink-first',
  '--unquote',
  '--update',
  '--info-script',
  '--new-volume-script',
  '--newer',
  '--newer-mtime',
  '--rsh-command',
  '--rmt-command',
  '--remove-files',
  '--recursion',
  '--recursive-unlink',
  '--record-size',
  '--restrict',
];
/** Old-style letters (`tar xIf zstd a.tar`) that take the next argument. */
const TAR_VALUE_LETTERS = 'fbCgIKLNTVXF';

function tarProgram(
  ctx: RuleContext,
  option: string,
  value: ShellWord | undefined,
  text: string | undefined,
): void {
  if (text === undefined) return;
  if (option === '--checkpoint-action') {
    const exec = /^exec=(.*)$/s.exec(text);
    if (exec !== null) {
      ctx.danger(DANGEROUS.tarExec);
      ctx.scanShell(exec[1] as string);
    }
    return;
  }
  if (option === '--use-compress-program' || option === '-I') {
    optionCommand(ctx, text, value, COMPRESSORS, DANGEROUS.tarExec);
    return;
  }
  ctx.danger(DANGEROUS.tarExec);
  ctx.scanShell(text);
}

function tar(ctx: RuleContext): void {
  const { args } = ctx.seg;
  let start = 0;
  const first = args[0]?.text;
  if (first !== undefined && !first.startsWith('-') && /^[a-zA-Z]+$/.test(first)) {
    // Old style: each letter that needs a value takes the next argument in turn.
    let next = 1;
    for (const letter of first) {
      if (!TAR_VALUE_LETTERS.includes(letter)) continue;
      const value = args[next];
      if (letter === 'I') tarProgram(ctx, '-I', value, value?.text);
      if (letter === 'F') tarProgram(ctx, '--info-script', value, value?.text);
      next += 1;
    }
    start = next;
  }
  for (let i = start; i < args.length; i += 1) {
    const word = args[i] as ShellWord;
    const arg = word.text;
    if (arg === '--') break;
    if (arg.startsWith('--')) {
      const name = resolveLongOption(arg, TAR_LONGS);
      const eq = arg.indexOf('=');
      const takes =
        name === '--checkpoint-action' ||
        name === '--to-command' ||
        name === '--use-compress-program' ||
        name === '--info-script' ||
        name === '--new-volume-script' ||
        name === '--rsh-command' ||
        name === '--rmt-command';
      if (name === undefined || !takes) continue;
      const value = eq >= 0 ? word : args[i + 1];
      tarProgram(ctx, name, value, eq >= 0 ? arg.slice(eq + 1) : args[++i]?.text);
      continue;
    }
    if (!arg.startsWith('-') || arg.length < 2) continue;
    for (let k = 1; k < arg.length; k += 1) {
      const letter = arg[k] as string;
      if (!TAR_VALUE_LETTERS.includes(letter)) continue;
      const rest = arg.slice(k + 1);
      const value = rest !== '' ? word : args[i + 1];
      const text = rest !== '' ? rest : args[++i]?.text;
      if (letter === 'I') tarProgram(ctx, '-I', value, text);
      if (letter === 'F') tarProgram(ctx, '--info-script', value, text);
      break;
    }
  }
}

function zip(ctx: RuleContext): void {
  const { argv } = ctx.seg;
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i] as string;
    let command: string | undefined;
    if (arg === '-TT' || arg === '--unzip-command') command = argv[i + 1];
    else if (arg.startsWith('--unzip-command=')) command = arg.slice(16);
    else if (arg.startsWith('-TT')) command = arg.slice(3);
    if (command === undefined) continue;
    ctx.danger(DANGEROUS.zipExec);
    ctx.scanShell(command);
  }
}

export const tarRules: readonly VerbRules[] = [
  { verbs: ['tar', 'gtar', 'bsdtar'], run: tar },
  { verbs: ['zip'], run: zip },
];
