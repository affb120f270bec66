import type { CodeLanguage, RuleContext } from './detect-context.js';
import { DANGEROUS, HARDLINE } from './detect-keys.js';
import { classifyDeleteTarget } from './detect-paths.js';

/**
 * Heuristic scan of inline programs (`python -c`, `node -e`, `perl -e`, awk programs, heredocs
 * into an interpreter). The program itself is not understood; when it can start a process its
 * string literals are scanned as shell commands, and recursive-delete APIs aimed at `/`, a
 * system directory or home are hardline.
 */

const EXEC_API =
  /\b(?:system|popen|subprocess|spawn|spawnsync|execsync|execfile|execfilesync|exec|execa|execv|execvp|execvpe|execl|execlp|check_output|check_call|getoutput|getstatusoutput|shell_exec|passthru|proc_open|child_process|open3|qx)\b|do shell script|os\.execute|io\.popen|%x[({[]|deno\.command|bun\.spawn/;
const AWK_EXEC = /\bsystem\s*\(|\|\s*getline|\|\s*"/;
const DESTRUCTIVE_API =
  /rmtree|removedirs|rm_rf|remove_tree|rimraf|deltree|rmsync|rmdirsync|\bfs\.rm\b|\bfs\.promises\.rm\b|\brm_r\b/;
const REDIS_FLUSH = /flushall|flushdb/;

interface Literals {
  /** String literals joined per innermost parenthesised call: `run(['rm', '-rf', '/'])` → `rm -rf /`. */
  readonly groups: string[];
  /** Every literal on its own. */
  readonly all: string[];
  /** Backtick literals of languages where backticks run a shell (perl, ruby, php). */
  readonly backticks: string[];
}

function commentStyle(language: CodeLanguage): '#' | '//' | 'none' {
  if (
    language === 'python' ||
    language === 'ruby' ||
    language === 'perl' ||
    language === 'awk' ||
    language === 'r' ||
    language === 'tcl'
  ) {
    return '#';
  }
  if (language === 'node' || language === 'php') return '//';
  return 'none';
}

/** One linear pass collecting string literals; unterminated literals end at the end of the text. */
export function stringLiterals(code: string, language: CodeLanguage): Literals {
  const groups = new Map<number, string[]>();
  const all: string[] = [];
  const backticks: string[] = [];
  const stack: number[] = [0];
  let nextGroup = 1;
  const comments = commentStyle(language);
  const shellTicks = language === 'perl' || language === 'ruby' || language === 'php';
  let i = 0;
  while (i < code.length) {
    const c = code[i] as string;
    if (c === '"' || c === "'" || c === '`') {
      let j = i + 1;
      let text = '';
      while (j < code.length && code[j] !== c) {
        if (code[j] === '\\' && j + 1 < code.length) {
          text += code[j + 1];
          j += 2;
        } else {
          text += code[j];
          j += 1;
        }
      }
      i = j + 1;
      if (c === '`' && shellTicks) {
        backticks.push(text);
        continue;
      }
      all.push(text);
      const group = stack[stack.length - 1] as number;
      const bucket = groups.get(group);
      if (bucket === undefined) groups.set(group, [text]);
      else bucket.push(text);
      continue;
    }
    if (c === '(') stack.push(nextGroup++);
    else if (c === ')' && stack.length > 1) stack.pop();
    else if ((comments === '#' && c === '#') || (comments === '//' && c === '/' && code[i + 1] === '/')) {
      const nl = code.indexOf('\n', i);
      i = nl < 0 ? code.length : nl;
      continue;
    }
    i += 1;
  }
  return { groups: [...groups.values()].map((texts) => texts.join(' ')), all, backticks };
}

export function scanInlineCode(ctx: RuleContext, language: CodeLanguage, code: string): void {
  const lower = code.toLowerCase();
  const literals = stringLiterals(code, language);
  const runsShell = language === 'awk' ? AWK_EXEC.test(lower) : EXEC_API.test(lower);
  if (runsShell) {
    if (language === 'awk') ctx.danger(DANGEROUS.awkShell);
    for (const group of literals.groups) ctx.scanShell(group, true);
  }
  for (const command of literals.backticks) ctx.scanShell(command, true);
  if (DESTRUCTIVE_API.test(lower)) {
    ctx.danger(DANGEROUS.inlineDelete);
    for (const literal of literals.all) {
      const target = classifyDeleteTarget(literal.trim());
      if (target === 'root') ctx.hardline(HARDLINE.rootDelete);
      else if (target === 'system') ctx.hardline(HARDLINE.systemDirDelete);
      else if (target === 'home') ctx.hardline(HARDLINE.homeDelete);
    }
  }
  for (const literal of literals.all) ctx.scanSql(literal);
  if (REDIS_FLUSH.test(lower)) ctx.danger(DANGEROUS.redisFlush);
}
