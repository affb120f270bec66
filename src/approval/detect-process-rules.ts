import type { RuleContext, VerbRules } from './detect-context.js';
import { psShowsEnvironment } from './detect-exfil-rules.js';
import { DANGEROUS, HARDLINE } from './detect-keys.js';
import { classifyDeleteTarget } from './detect-paths.js';
import { operands, type Segment, shortLetters } from './shell-segment.js';

/**
 * Whole-system processes and state: killing everything by other means than `kill -1`, firewall
 * flushes, taking the network down, account changes, kernel settings, and reading every
 * process's environment with `ps e`.
 */

/** `fuser -k /` (or -km on a mount point that is `/`, home or a system directory). */
function fuser(ctx: RuleContext): void {
  const { argv, argl } = ctx.seg;
  if (!shortLetters(argv).includes('k') && !argl.includes('--kill')) return;
  for (const op of operands(argl)) {
    if (classifyDeleteTarget(op) !== 'other') ctx.hardline(HARDLINE.killAll);
  }
}

const PROCESS_FILTERS = new Set([
  'grep',
  'egrep',
  'fgrep',
  'rg',
  'pgrep',
  'pidof',
  'lsof',
  'head',
  'jq',
  'sed',
]);

/** `kill $(ps -e -o pid=)`: the pid list is every process (no filter in the substitution). */
function killUnfiltered(ctx: RuleContext): void {
  for (const word of ctx.seg.args) {
    for (const sub of word.subs) {
      const inner = ctx.segmentsOf(sub.list);
      const lists = inner.some(
        (seg) => seg.verb === 'ps' || (seg.verb === 'ls' && seg.argl.includes('/proc')),
      );
      const filtered = inner.some((seg) => PROCESS_FILTERS.has(seg.verb) || awkFilters(seg));
      if (lists && !filtered) ctx.danger(DANGEROUS.killList);
    }
  }
}

function awkFilters(seg: Segment): boolean {
  return seg.verb === 'awk' && seg.argv.some((a) => /\/.+\/|==|~|\$\d+\s*[<>]/.test(a));
}

/** iptables/ip6tables: flush, delete chains, or a DROP/REJECT default policy. */
function iptables(ctx: RuleContext): void {
  const { argv, argl } = ctx.seg;
  const letters = shortLetters(argv);
  const flush = /[FXZ]/.test(letters) || argl.some((a) => a === '--flush' || a === '--delete-chain');
  const policy =
    (letters.includes('P') || argl.includes('--policy')) && argl.some((a) => a === 'drop' || a === 'reject');
  if (flush || policy) ctx.danger(DANGEROUS.firewall);
}

function iptablesRestore(ctx: RuleContext): void {
  ctx.danger(DANGEROUS.firewall);
}

function nft(ctx: RuleContext): void {
  const ops = operands(ctx.seg.argl);
  if (ops[0] === 'flush' || (ops[0] === 'delete' && (ops[1] === 'table' || ops[1] === 'chain')))
    ctx.danger(DANGEROUS.firewall);
  if (ctx.seg.argv.includes('-f')) ctx.danger(DANGEROUS.firewall);
}

function ufw(ctx: RuleContext): void {
  const sub = operands(ctx.seg.argl)[0];
  if (sub === 'disable' || sub === 'reset') ctx.danger(DANGEROUS.firewall);
}

function firewallCmd(ctx: RuleContext): void {
  if (
    ctx.seg.argl.some(
      (a) => a === '--panic-on' || a.startsWith('--set-default-zone=drop') || a === '--complete-reload',
    )
  )
    ctx.danger(DANGEROUS.firewall);
}

/** `ip link set X down`, `ip addr flush`, `ip route flush|del default`. */
function ip(ctx: RuleContext): void {
  const ops = operands(ctx.seg.argl);
  const object = ops[0] ?? '';
  const action = ops[1] ?? '';
  if (
    ('link'.startsWith(object) && object !== '' && ops.includes('down')) ||
    (object === 'l' && ops.includes('down'))
  )
    ctx.danger(DANGEROUS.netDown);
  else if (
    ('address'.startsWith(object) || 'route'.startsWith(object)) &&
    object !== '' &&
    action === 'flush'
  )
    ctx.danger(DANGEROUS.netDown);
  else if (
    'route'.startsWith(object) &&
    object.length >= 2 &&
    (action === 'del' || action === 'delete') &&
    ops.includes('default')
  )
    ctx.danger(DANGEROUS.netDown);
}

function ifconfig(ctx: RuleContext): void {
  if (operands(ctx.seg.argl).includes('down')) ctx.danger(DANGEROUS.netDown);
}

function nmcli(ctx: RuleContext): void {
  const ops = operands(ctx.seg.argl);
  if (
    (ops[0]?.startsWith('n') && ops.includes('off')) ||
    ops.includes('down') ||
    (ops[0]?.startsWith('r') && ops.includes('off'))
  )
    ctx.danger(DANGEROUS.netDown);
}

function passwd(ctx: RuleContext): void {
  const { argv, argl } = ctx.seg;
  if (argl.includes('--status') || argl.includes('-s') || shortLetters(argv) === 'S') return;
  ctx.danger(DANGEROUS.userChange);
}

/** usermod/chage/gpasswd only when they change something (not `-h`/`--help`, `-l` list). */
function accountChange(ctx: RuleContext): void {
  const { argv, argl, verb } = ctx.seg;
  if (argl.includes('--help') || argl.includes('-h')) return;
  if (verb === 'chage' && (argl.includes('-l') || argl.includes('--list'))) return;
  if (argv.length > 0 || ctx.seg.redirects.length > 0) ctx.danger(DANGEROUS.userChange);
}

/** `sysctl -w k=v`, `sysctl -p`, `sysctl k=v`: kernel settings changed at run time. */
function sysctl(ctx: RuleContext): void {
  const { argv, argl } = ctx.seg;
  const letters = shortLetters(argv);
  if (
    /[wp]/.test(letters) ||
    argl.includes('--write') ||
    argl.includes('--load') ||
    argl.includes('--system') ||
    operands(argl).some((op) => op.includes('='))
  )
    ctx.danger(DANGEROUS.kernelWrite);
}

function ps(ctx: RuleContext): void {
  if (psShowsEnvironment(ctx.seg)) ctx.danger(DANGEROUS.procSecretRead);
}

export const processRules: readonly VerbRules[] = [
  { verbs: ['killall5'], run: (ctx) => ctx.hardline(HARDLINE.killAll) },
  { verbs: ['fuser'], run: fuser },
  { verbs: ['kill', 'pkill'], run: killUnfiltered },
  {
    verbs: ['iptables', 'ip6tables', 'iptables-nft', 'iptables-legacy', 'ebtables', 'arptables'],
    run: iptables,
  },
  { verbs: ['iptables-restore', 'ip6tables-restore'], run: iptablesRestore },
  { verbs: ['nft'], run: nft },
  { verbs: ['ufw'], run: ufw },
  { verbs: ['firewall-cmd'], run: firewallCmd },
  { verbs: ['ip'], run: ip },
  { verbs: ['ifconfig'], run: ifconfig },
  { verbs: ['ifdown', 'ifdown-all'], run: (ctx) => ctx.danger(DANGEROUS.netDown) },
  { verbs: ['nmcli'], run: nmcli },
  { verbs: ['passwd'], run: passwd },
  {
    verbs: ['userdel', 'deluser', 'groupdel', 'delgroup', 'chpasswd', 'vipw', 'vigr', 'pwconv', 'pwunconv'],
    run: (ctx) => ctx.danger(DANGEROUS.userChange),
  },
  { verbs: ['usermod', 'chage', 'gpasswd', 'groupmod', 'useradd', 'adduser', 'chsh'], run: accountChange },
  { verbs: ['sysctl'], run: sysctl },
  { verbs: ['ps'], run: ps },
];
