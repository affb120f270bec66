import type { RuleContext, VerbRules } from './detect-context.js';
import { DANGEROUS, HARDLINE } from './detect-keys.js';
import { operands } from './shell-segment.js';

/** Services, process killing, sudo flags, package removal. */

const SERVICE_STOP = new Set([
  'stop',
  'restart',
  'disable',
  'mask',
  'kill',
  'try-restart',
  'reload-or-restart',
  'try-reload-or-restart',
]);
const SYSTEMCTL_POWER = new Set(['poweroff', 'reboot', 'halt', 'kexec', 'soft-reboot']);
/** Units that stop every service (and the network) when isolated. */
const SYSTEMCTL_OFFLINE = new Set([
  'rescue',
  'emergency',
  'suspend',
  'hibernate',
  'hybrid-sleep',
  'suspend-then-hibernate',
]);
const OFFLINE_TARGETS =
  /^(?:rescue|emergency|runlevel[016]|halt|poweroff|reboot|kexec|shutdown|sleep|suspend|hibernate)(?:\.target)?$/;
const SYSTEMCTL_VALUE_OPTIONS = new Set([
  '-H',
  '--host',
  '-M',
  '--machine',
  '-t',
  '--type',
  '-p',
  '--property',
  '-s',
  '--signal',
  '-n',
  '--lines',
  '-o',
  '--output',
  '--root',
  '--state',
  '--kill-whom',
  '--job-mode',
  '--what',
  '--when',
  '-P',
  '--kill-value',
  '--image',
  '--message',
]);

/** The first operand after options that take values, with its index in `argv`. */
export function firstOperand(
  argv: readonly string[],
  valueOptions: ReadonlySet<string>,
): { index: number; value: string | undefined } {
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i] as string;
    if (arg === '--') return { index: i + 1, value: argv[i + 1] };
    if (arg.startsWith('-') && arg.length > 1) {
      if (!arg.includes('=') && valueOptions.has(arg)) i += 1;
      continue;
    }
    return { index: i, value: arg };
  }
  return { index: argv.length, value: undefined };
}

/** Names a process or unit of this gateway (or of Hermes Agent). */
export function namesGateway(text: string): boolean {
  return /(?:^|[^a-z0-9_])(?:hermes|gateway|cli\.py)(?:$|[^a-z0-9_])/.test(text);
}

function systemctl(ctx: RuleContext): void {
  const { argv, argl } = ctx.seg;
  const { index } = firstOperand(argv, SYSTEMCTL_VALUE_OPTIONS);
  const sub = argl[index];
  if (sub === undefined) return;
  if (SYSTEMCTL_POWER.has(sub)) ctx.hardline(HARDLINE.systemctlPower);
  if (SYSTEMCTL_OFFLINE.has(sub)) ctx.hardline(HARDLINE.systemctlIsolate);
  if (sub === 'isolate') {
    const target = argl[index + 1];
    if (target !== undefined && OFFLINE_TARGETS.test(target)) ctx.hardline(HARDLINE.systemctlIsolate);
    else ctx.danger(DANGEROUS.serviceStop);
  }
  if (sub === 'start' && argl.slice(index + 1).some((unit) => OFFLINE_TARGETS.test(unit)))
    ctx.hardline(HARDLINE.systemctlIsolate);
  if (!SERVICE_STOP.has(sub)) return;
  ctx.danger(DANGEROUS.serviceStop);
  if (argl.slice(index + 1).some((unit) => unit.includes('hermes'))) ctx.danger(DANGEROUS.gatewayStop);
}

function service(ctx: RuleContext): void {
  const [unit, action] = operands(ctx.seg.argl);
  if (unit === undefined || action === undefined) return;
  if (!['stop', 'restart', 'force-reload', 'force-stop'].includes(action)) return;
  ctx.danger(DANGEROUS.serviceStop);
  if (unit.includes('hermes')) ctx.danger(DANGEROUS.gatewayStop);
}

function isKillSignal(value: string): boolean {
  return value === '9' || value === 'kill' || value === 'sigkill';
}

/** Exact process names that would match this gateway (it runs on node). */
function targetsGateway(argl: readonly string[]): boolean {
  return operands(argl).some(
    (arg) => namesGateway(arg) || arg === 'node' || arg === 'nodejs' || arg === 'tsx',
  );
}

function pkill(ctx: RuleContext): void {
  const { argl } = ctx.seg;
  for (let i = 0; i < argl.length; i += 1) {
    const arg = argl[i] as string;
    if (arg === '-9' || arg === '-kill' || arg === '-sigkill') ctx.danger(DANGEROUS.pkill9);
    else if (arg === '--signal' && isKillSignal(argl[i + 1] ?? '')) ctx.danger(DANGEROUS.pkill9);
    else if (arg.startsWith('--signal=') && isKillSignal(arg.slice(9))) ctx.danger(DANGEROUS.pkill9);
  }
  if (targetsGateway(argl)) ctx.danger(DANGEROUS.selfKill);
}

function killall(ctx: RuleContext): void {
  const { argl } = ctx.seg;
  for (let i = 0; i < argl.length; i += 1) {
    const arg = argl[i] as string;
    if (arg === '--') break;
    if (arg === '-9' || arg === '-kill' || arg === '-sigkill') ctx.danger(DANGEROUS.killallKill);
    else if ((arg === '-s' || arg === '--signal') && isKillSignal(argl[i + 1] ?? '')) {
      ctx.danger(DANGEROUS.killallSignal);
    } else if (arg.startsWith('--signal=') && isKillSignal(arg.slice(9))) ctx.danger(DANGEROUS.killallSignal);
    else if (arg === '-r' || arg === '--regexp') ctx.danger(DANGEROUS.killallRegex);
  }
  if (targetsGateway(argl)) ctx.danger(DANGEROUS.selfKill);
}

/** `kill $(pgrep …)` / ``kill `pidof …` ``: the pid list is opaque and may hold our own. */
function killBySubstitution(ctx: RuleContext): void {
  for (const word of ctx.seg.args) {
    for (const sub of word.subs) {
      const finds = ctx.segmentsOf(sub.list).some((seg) => seg.verb === 'pgrep' || seg.verb === 'pidof');
      if (!finds) continue;
      ctx.danger(sub.kind === 'backtick' ? DANGEROUS.selfKillBacktick : DANGEROUS.selfKillSubst);
    }
  }
}

/** sudo options that read a password from stdin/askpass or open a shell (generic rule). */
export function sudoFlagRule(ctx: RuleContext): void {
  // `sudo -s CMD` runs CMD through a shell, which is judged as the command it is; only a bare
  // `sudo -s` (an interactive root shell) is flagged for its shell flag.
  const runsCommand = ctx.seg.verbWord !== undefined;
  for (const wrapper of ctx.seg.wrappers) {
    if (wrapper.name !== 'sudo') continue;
    if (runsCommand && sudoRunsShell(wrapper.options)) shellCommandOfSudo(ctx);
    for (const option of wrapper.options) {
      if (option === '--') break;
      if (option.startsWith('--')) {
        const name = option.split('=')[0]?.toLowerCase() ?? '';
        if (name.startsWith('--st') || name.startsWith('--a') || (name.startsWith('--sh') && !runsCommand))
          ctx.danger(DANGEROUS.sudoFlag);
        continue;
      }
      if (!option.startsWith('-') || option.length < 2) continue;
      let letters = '';
      for (const letter of option.slice(1)) {
        letters += letter;
        if ('CDghprRtTUu'.includes(letter)) break;
      }
      if (!/[SaA]/.test(letters) && !(letters.includes('s') && !runsCommand)) continue;
      ctx.danger(option.length === 2 ? DANGEROUS.sudoFlag : DANGEROUS.sudoCombined);
    }
  }
}

/** `-s`/`--shell`/`-i`/`--login` (alone or in a cluster before a value option): sudo hands the command to a shell. */
function sudoRunsShell(options: readonly string[]): boolean {
  for (const option of options) {
    if (option === '--') break;
    if (option.startsWith('--')) {
      const name = option.split('=')[0]?.toLowerCase() ?? '';
      if (
        (name.length >= 4 && '--shell'.startsWith(name)) ||
        (name.length >= 4 && '--login'.startsWith(name))
      )
        return true;
      continue;
    }
    if (!option.startsWith('-')) continue;
    for (const letter of option.slice(1)) {
      if (letter === 's' || letter === 'i') return true;
      if ('CDghprRtTUu'.includes(letter)) break;
    }
  }
  return false;
}

/**
 * `sudo -s CMD…` / `sudo -i CMD…`: the words are joined and run by the target user's shell,
 * which expands `$` again. The joined text is judged as shell, and a `$` in it (unexpanded by the
 * outer shell) is a command the detector cannot know.
 */
function shellCommandOfSudo(ctx: RuleContext): void {
  const words = [ctx.seg.verbWord, ...ctx.seg.args].filter((word) => word !== undefined);
  const text = words.map((word) => word.text).join(' ');
  if (text.includes('$') || text.includes('`')) ctx.danger(DANGEROUS.codeFromData);
  ctx.scanShell(text, true);
}

const DAEMON_VARIABLES = /^(?:docker_host|docker_context|container_host|container_connection)=/i;

/** DOCKER_HOST=… and friends, as a prefix, given to env, or exported (generic rule). */
export function daemonEnvRule(ctx: RuleContext): void {
  const { seg } = ctx;
  const exported = seg.verb === 'export' || seg.verb === 'declare' || seg.verb === 'typeset';
  if (
    seg.assignments.some((a) => DAEMON_VARIABLES.test(a)) ||
    (exported && seg.argv.some((a) => DAEMON_VARIABLES.test(a)))
  ) {
    ctx.danger(DANGEROUS.daemonEnv);
  }
}

const UNINSTALL: ReadonlyMap<string, ReadonlySet<string>> = new Map<string, ReadonlySet<string>>([
  ['npm', new Set(['uninstall', 'unlink', 'remove', 'rm', 'r', 'un'])],
  ['pnpm', new Set(['remove', 'rm', 'uninstall', 'un', 'unlink'])],
  ['yarn', new Set(['remove'])],
  ['bun', new Set(['remove', 'rm'])],
  ['pip', new Set(['uninstall'])],
  ['pipx', new Set(['uninstall', 'uninstall-all'])],
  ['poetry', new Set(['remove'])],
  ['uv', new Set(['remove'])],
  ['brew', new Set(['uninstall', 'remove', 'rm'])],
  ['apt', new Set(['remove', 'purge', 'autoremove', 'autopurge'])],
  ['apt-get', new Set(['remove', 'purge', 'autoremove', 'autopurge'])],
  ['aptitude', new Set(['remove', 'purge'])],
  ['dnf', new Set(['remove', 'erase', 'autoremove'])],
  ['yum', new Set(['remove', 'erase', 'autoremove'])],
  ['microdnf', new Set(['remove'])],
  ['zypper', new Set(['remove', 'rm'])],
  ['apk', new Set(['del'])],
  ['snap', new Set(['remove'])],
  ['gem', new Set(['uninstall'])],
  ['cargo', new Set(['uninstall'])],
  ['conda', new Set(['remove', 'uninstall'])],
  ['mamba', new Set(['remove', 'uninstall'])],
  ['micromamba', new Set(['remove', 'uninstall'])],
  ['port', new Set(['uninstall'])],
  ['choco', new Set(['uninstall'])],
  ['winget', new Set(['uninstall'])],
  ['scoop', new Set(['uninstall'])],
]);
const PACKAGE_VALUE_OPTIONS = new Set([
  '--prefix',
  '-C',
  '--dir',
  '--cwd',
  '-w',
  '--workspace',
  '--filter',
  '-F',
]);

function packageUninstall(ctx: RuleContext): void {
  const { argv, argl, family } = ctx.seg;
  if (family === 'pacman' || family === 'yay' || family === 'paru') {
    if (argv.some((arg) => /^-R[a-zA-Z]*$/.test(arg)) || argl.includes('--remove'))
      ctx.danger(DANGEROUS.pkgUninstall);
    return;
  }
  const subs = UNINSTALL.get(family);
  if (subs === undefined) return;
  const first = firstOperand(argv, PACKAGE_VALUE_OPTIONS);
  let sub = argl[first.index];
  if ((family === 'yarn' && sub === 'global') || (family === 'uv' && (sub === 'pip' || sub === 'tool'))) {
    sub = operands(argl.slice(first.index + 1))[0];
    if (family === 'uv' && sub === 'uninstall') sub = 'remove';
  }
  if (sub !== undefined && subs.has(sub)) ctx.danger(DANGEROUS.pkgUninstall);
}

export const systemRules: readonly VerbRules[] = [
  { verbs: ['systemctl'], run: systemctl },
  { verbs: ['service'], run: service },
  { verbs: ['pkill'], run: pkill },
  { verbs: ['killall'], run: killall },
  { verbs: ['kill'], run: killBySubstitution },
  { verbs: [...UNINSTALL.keys(), 'pacman', 'yay', 'paru'], run: packageUninstall },
];
