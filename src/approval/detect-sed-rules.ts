import type { RuleContext, VerbRules } from './detect-context.js';
import { DANGEROUS } from './detect-keys.js';
import { writesOutside } from './detect-option-command.js';
import { isBlockDevice, isHermesHomePath, isSensitiveWriteTarget } from './detect-paths.js';
import { sedEffects } from './sed-script.js';
import { resolveLongOption } from './shell-segment.js';
import type { ShellWord } from './shell-types.js';

/**
 * sed's ways out: the `e` command and `s///e` run shell commands, `w` writes files, `-f
 * /dev/stdin` reads the program from data, a script holding an expansion is code from data,
 * and `-i` on a file named by an expansion is a write to an unknown target. `--sandbox`
 * turns `e`/`w`/`r` off.
 */

// --- sed -----------------------------------------------------------------------------------------

const SED_LONGS = [
  '--expression',
  '--file',
  '--in-place',
  '--sandbox',
  '--quiet',
  '--silent',
  '--regexp-extended',
  '--separate',
  '--null-data',
  '--zero-terminated',
  '--unbuffered',
  '--line-length',
  '--posix',
  '--debug',
  '--follow-symlinks',
  '--binary',
  '--help',
  '--version',
];
const STDIN_FILES = /^(?:-|\/dev\/stdin|\/dev\/fd\/[0-9]+|\/proc\/[^/]+\/fd\/[0-9]+)$/;

function sed(ctx: RuleContext): void {
  const { args } = ctx.seg;
  const scripts: ShellWord[] = [];
  const files: ShellWord[] = [];
  let sandbox = false;
  let inPlace = false;
  let scriptFile = false;
  let options = true;
  for (let i = 0; i < args.length; i += 1) {
    const word = args[i] as ShellWord;
    const arg = word.text;
    if (options && arg === '--') {
      options = false;
      continue;
    }
    if (options && arg.startsWith('--')) {
      const name = resolveLongOption(arg, SED_LONGS);
      const eq = arg.indexOf('=');
      const value = eq >= 0 ? { ...word, text: arg.slice(eq + 1) } : args[++i];
      if (name === '--sandbox') sandbox = true;
      if (name === '--in-place') inPlace = true;
      if (name === '--in-place' || name === '--line-length') {
        if (eq < 0 && name === '--in-place') i -= 1;
        continue;
      }
      if (name === '--expression' && value !== undefined) scripts.push(value);
      else if (name === '--file' && value !== undefined) {
        scriptFile = true;
        if (STDIN_FILES.test(value.text) || value.expanded) ctx.danger(DANGEROUS.codeFromData);
      } else if (eq < 0) i -= 1;
      continue;
    }
    if (options && arg.startsWith('-') && arg.length > 1) {
      for (let k = 1; k < arg.length; k += 1) {
        const letter = arg[k];
        if (letter === 'i') {
          inPlace = true;
          break;
        }
        if (letter === 'e' || letter === 'f' || letter === 'l') {
          const rest = arg.slice(k + 1);
          const value = rest !== '' ? { ...word, text: rest } : args[++i];
          if (letter === 'e' && value !== undefined) scripts.push(value);
          if (letter === 'f' && value !== undefined) {
            scriptFile = true;
            if (STDIN_FILES.test(value.text) || value.expanded) ctx.danger(DANGEROUS.codeFromData);
          }
          break;
        }
      }
      continue;
    }
    if (scripts.length === 0 && !scriptFile) scripts.push(word);
    else files.push(word);
  }
  if (inPlace && files.some((file) => file.expanded)) ctx.danger(DANGEROUS.unresolvedWriteTarget);
  if (sandbox) return;
  for (const script of scripts) {
    if (script.expanded) ctx.danger(DANGEROUS.codeFromData);
    const { exec, writes } = sedEffects(script.text);
    for (const command of exec) {
      ctx.danger(DANGEROUS.sedExec);
      if (command !== '') ctx.scanShell(command);
    }
    for (const target of writes) {
      const lower = target.toLowerCase();
      if (
        isBlockDevice(lower) ||
        isSensitiveWriteTarget(lower) ||
        isHermesHomePath(lower) ||
        writesOutside(lower, false)
      )
        ctx.danger(DANGEROUS.sedWrite);
    }
  }
}

export const sedRules: readonly VerbRules[] = [{ verbs: ['sed', 'gsed'], run: sed }];
