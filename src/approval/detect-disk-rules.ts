import type { RuleContext, VerbRules } from './detect-context.js';
import { DANGEROUS, HARDLINE } from './detect-keys.js';
import { isBlockDevice } from './detect-paths.js';
import { operands, shortLetters } from './shell-segment.js';

/**
 * Disks and volumes beyond `mkfs`/`dd`: other formatters, partition editors, encrypted-volume
 * formats, destructive surface tests, secure erase, pools and logical volumes, and copying
 * programs aimed at a raw device.
 */

function anyBlockDevice(ctx: RuleContext): boolean {
  return ctx.seg.argl.some((arg) => isBlockDevice(arg.includes('=') ? arg.slice(arg.indexOf('=') + 1) : arg));
}

/** Formatters under other names than mkfs*: always hardline, like mkfs itself. */
const FORMATTERS = [
  'mkdosfs',
  'mkfatfs',
  'mkntfs',
  'mkexfatfs',
  'mkexfat',
  'mkreiserfs',
  'mkudffs',
  'mkjfs',
  'jfs_mkfs',
  'mkhfs',
  'mkfs_hfsplus',
  'mke4fs',
  'mkbtrfs',
  'mkxfs',
  'mkf2fs',
  'mkcramfs',
  'mkminix',
];

const PARTED_DESTROY = new Set(['mklabel', 'mktable']);
const PARTED_CHANGE = new Set(['rm', 'resizepart', 'mkpart', 'mkpartfs', 'resize', 'move', 'rescue']);

/** `parted DEV mklabel gpt` wipes the table; `rm N`, `mkpart`… change it. Printing is fine. */
function parted(ctx: RuleContext): void {
  const ops = operands(ctx.seg.argl);
  if (ops.some((op) => PARTED_DESTROY.has(op))) {
    if (anyBlockDevice(ctx)) ctx.hardline(HARDLINE.wipeDevice);
    else ctx.danger(DANGEROUS.partition);
  } else if (ops.some((op) => PARTED_CHANGE.has(op))) {
    ctx.danger(DANGEROUS.partition);
  } else if (ops.length > 1 && !ops.includes('print') && !ops.includes('p')) {
    ctx.danger(DANGEROUS.partition);
  }
}

/** fdisk/gdisk/cfdisk: listing (`-l`) is fine; anything else edits a partition table. */
function fdiskLike(ctx: RuleContext): void {
  const { argv, argl } = ctx.seg;
  if (
    shortLetters(argv).includes('l') ||
    argl.includes('--list') ||
    argl.includes('-v') ||
    argl.includes('--version')
  )
    return;
  if (operands(argl).length > 0 || ctx.seg.redirects.length > 0) ctx.danger(DANGEROUS.partition);
}

/** sfdisk writes a table from stdin unless it only lists, dumps or shows. */
function sfdisk(ctx: RuleContext): void {
  const { argv, argl } = ctx.seg;
  const readOnly = [
    '--list',
    '--dump',
    '--json',
    '--show-size',
    '--list-free',
    '--verify',
    '--version',
    '--help',
    '--backup-pt-sectors',
  ];
  if (argl.includes('--delete')) {
    ctx.danger(DANGEROUS.partition);
    return;
  }
  if (argl.some((a) => readOnly.includes(a)) || /[lJdsFVgrh]/.test(shortLetters(argv))) return;
  if (operands(argl).length > 0) ctx.danger(DANGEROUS.partition);
}

/** sgdisk changes beyond the zap/clear handled as hardline: `-d N`, `-n`, `--delete`. */
function sgdiskChange(ctx: RuleContext): void {
  const { argv, argl } = ctx.seg;
  if (
    /[dntcx]/.test(shortLetters(argv)) ||
    argl.some((a) => ['--delete', '--new', '--typecode', '--change-name'].includes(a.split('=')[0] ?? ''))
  )
    ctx.danger(DANGEROUS.partition);
}

const CRYPT_DESTROY = new Set(['luksformat', 'erase', 'lukserase', 'reencrypt', 'convert']);

function cryptsetup(ctx: RuleContext): void {
  const ops = operands(ctx.seg.argl);
  const action = ops[0];
  if (action !== undefined && CRYPT_DESTROY.has(action)) ctx.hardline(HARDLINE.luks);
  else if (action === 'luksremovekey' || action === 'lukskillslot') ctx.danger(DANGEROUS.volumeRemove);
}

/** `badblocks -w` overwrites the whole device with test patterns. */
function badblocks(ctx: RuleContext): void {
  if (shortLetters(ctx.seg.argv).includes('w')) ctx.hardline(HARDLINE.wipeDevice);
}

function zpool(ctx: RuleContext): void {
  const sub = operands(ctx.seg.argl)[0];
  if (sub === 'destroy' || sub === 'labelclear') ctx.danger(DANGEROUS.volumeRemove);
  if (sub === 'create' && anyBlockDevice(ctx)) ctx.hardline(HARDLINE.mkfs);
}

function zfs(ctx: RuleContext): void {
  const sub = operands(ctx.seg.argl)[0];
  if (sub === 'destroy' || sub === 'rollback') ctx.danger(DANGEROUS.volumeRemove);
}

function mdadm(ctx: RuleContext): void {
  const { argl, argv } = ctx.seg;
  if (argl.includes('--zero-superblock')) ctx.hardline(HARDLINE.wipeDevice);
  else if (argl.includes('--create') || shortLetters(argv).includes('C')) {
    if (anyBlockDevice(ctx)) ctx.hardline(HARDLINE.mkfs);
  } else if (argl.includes('--remove') || argl.includes('--fail') || argl.includes('--stop')) {
    ctx.danger(DANGEROUS.volumeRemove);
  }
}

/** `nvme format`, `nvme sanitize`: the controller erases the namespace. */
function nvme(ctx: RuleContext): void {
  const sub = operands(ctx.seg.argl)[0];
  if (sub === 'format' || sub === 'sanitize' || sub === 'delete-ns') ctx.hardline(HARDLINE.wipeDevice);
}

function hdparm(ctx: RuleContext): void {
  if (
    ctx.seg.argl.some(
      (a) =>
        a.startsWith('--security-erase') ||
        a === '--trim-sector-ranges' ||
        a === '--write-sector' ||
        a === '--make-bad-sector',
    )
  )
    ctx.hardline(HARDLINE.wipeDevice);
}

/** Copying programs whose output operand is a device: `ddrescue in /dev/sdb`, `bmaptool copy img /dev/sdb`. */
function copyToDevice(ctx: RuleContext): void {
  const ops = operands(ctx.seg.argl);
  const outputs = ops.filter((op) => op.startsWith('of=')).map((op) => op.slice(3));
  const dest = ctx.seg.verb === 'ddrescue' ? ops[1] : ops[ops.length - 1];
  if (dest !== undefined) outputs.push(dest);
  if (outputs.some((out) => isBlockDevice(out))) ctx.hardline(HARDLINE.deviceCopy);
}

export const diskRules: readonly VerbRules[] = [
  { verbs: FORMATTERS, run: (ctx) => ctx.hardline(HARDLINE.mkfs) },
  { verbs: ['parted'], run: parted },
  { verbs: ['fdisk', 'gdisk', 'cfdisk', 'cgdisk'], run: fdiskLike },
  { verbs: ['sfdisk'], run: sfdisk },
  { verbs: ['sgdisk'], run: sgdiskChange },
  { verbs: ['cryptsetup'], run: cryptsetup },
  { verbs: ['badblocks'], run: badblocks },
  { verbs: ['zpool'], run: zpool },
  { verbs: ['zfs'], run: zfs },
  {
    verbs: ['lvremove', 'vgremove', 'pvremove', 'lvreduce'],
    run: (ctx) => ctx.danger(DANGEROUS.volumeRemove),
  },
  { verbs: ['mdadm'], run: mdadm },
  { verbs: ['nvme'], run: nvme },
  { verbs: ['hdparm'], run: hdparm },
  { verbs: ['sg_format', 'sg_sanitize'], run: (ctx) => ctx.hardline(HARDLINE.wipeDevice) },
  { verbs: ['ddrescue', 'bmaptool', 'dcfldd', 'dc3dd'], run: copyToDevice },
];
