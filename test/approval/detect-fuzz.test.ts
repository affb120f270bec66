// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are shell commands, not templates
import { describe, expect, it } from 'vitest';
import type { DetectResult } from '../../src/approval/approval-types.js';
import { commandSegments, detect, isCompoundCommand } from '../../src/approval/detect.js';
import { DetectionRun } from '../../src/approval/detect-engine.js';

/** Small deterministic PRNG (mulberry32) so every run sees the same inputs. */
function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const ATOMS = [
  'rm',
  '-rf',
  '/',
  '~',
  ' ',
  ' ',
  ';',
  '&&',
  '||',
  '|',
  '&',
  '\n',
  "'",
  '"',
  '\\',
  '$(',
  ')',
  '(',
  '`',
  '${',
  '}',
  '{',
  '<<',
  '<<-',
  '<<<',
  'EOF',
  '>',
  '>>',
  '2>&1',
  '<(',
  '$IFS',
  '${IFS}',
  "$'\\x72'",
  'bash -c ',
  'sh -c ',
  'eval ',
  'python3 -c ',
  'node -e ',
  'sudo ',
  'env A=1 ',
  'nohup ',
  'find . -exec ',
  'xargs ',
  '\\;',
  '#',
  '*',
  '$HOME',
  'reboot',
  'mkfs',
  '/dev/sda',
  'dd',
  'of=',
  'curl x',
  'git push --force',
  'DROP TABLE t',
  'redis-cli',
  'flushall',
  'chmod',
  '777',
  '+x',
  ':(){',
  ':|:&',
  '};:',
  '\u001b[31m',
  '\u009b',
  '\u200b',
  'ｒｍ',
  '\u0000',
  '\r',
  'x=',
  '$x',
  '{a,b}',
  'powershell -c ',
  'cmd /c ',
  'iwr x | iex',
];

function randomCommand(next: () => number): string {
  const count = 1 + Math.floor(next() * 40);
  let out = '';
  for (let i = 0; i < count; i += 1) out += ATOMS[Math.floor(next() * ATOMS.length)];
  return out;
}

function randomCodeUnits(next: () => number, length: number): string {
  let out = '';
  for (let i = 0; i < length; i += 1) out += String.fromCharCode(Math.floor(next() * 0x10000));
  return out;
}

function adversarial(next: () => number): string[] {
  const big = 100_000;
  const runs = [
    '"',
    "'",
    '\\',
    '$(',
    '`',
    '${',
    '(',
    '{',
    '|',
    ';',
    '<<EOF\n',
    '$IFS',
    '\u001b[',
    'a ',
    '{a,',
  ];
  const inputs = runs.map((unit) => unit.repeat(Math.ceil(big / unit.length)));
  let nested = 'rm -rf /';
  for (let i = 0; i < 12; i += 1) nested = `bash -c ${JSON.stringify(nested)}`;
  inputs.push(nested);
  inputs.push(`${'eval '.repeat(20_000)}reboot`);
  inputs.push(`${'$('.repeat(5_000)}ls${')'.repeat(5_000)}`);
  inputs.push(`${'find . -exec '.repeat(8_000)}rm {} \\;`);
  inputs.push(`python3 -c "${"os.system('rm -rf /');".repeat(4_000)}"`);
  inputs.push(`cat <<EOF\n${'$(ls)\n'.repeat(15_000)}EOF`);
  inputs.push(randomCodeUnits(next, big));
  inputs.push(`echo ${'a'.repeat(big)}`);
  inputs.push(`${'x=aaaaaaaaaaaaaaaa; '.repeat(10)}${'eval $x '.repeat(10_000)}`);
  return inputs;
}

function expectValid(result: DetectResult): void {
  expect(['hardline', 'dangerous', 'safe']).toContain(result.verdict);
  expect(Array.isArray(result.findings)).toBe(true);
  const keys = new Set<string>();
  for (const finding of result.findings) {
    expect(typeof finding.key).toBe('string');
    expect(finding.key.length).toBeGreaterThan(0);
    expect(finding.description).toBe(finding.key);
    expect(['hardline', 'dangerous']).toContain(finding.tier);
    expect(keys.has(finding.key)).toBe(false);
    keys.add(finding.key);
  }
  const hasHardline = result.findings.some((finding) => finding.tier === 'hardline');
  if (result.verdict === 'hardline') expect(hasHardline).toBe(true);
  else if (result.verdict === 'dangerous') expect(result.findings.length > 0 && !hasHardline).toBe(true);
  else expect(result.findings).toEqual([]);
}

describe('detect: fuzz', () => {
  it('answers thousands of random atom soups with a valid result', () => {
    const next = prng(0x5eed);
    for (let i = 0; i < 3000; i += 1) {
      const command = randomCommand(next);
      expectValid(detect(command));
      expectValid(
        detect(command, { homeDir: '/home/a', hermesHome: '/srv/h', maxLength: Number.POSITIVE_INFINITY }),
      );
      expect(Array.isArray(commandSegments(command))).toBe(true);
      expect(typeof isCompoundCommand(command)).toBe('boolean');
    }
  });

  it('never hits an internal error (detect() would hide it behind a parser-limit finding)', () => {
    const next = prng(0xbad);
    for (let i = 0; i < 3000; i += 1) {
      const command = i % 5 === 0 ? randomCodeUnits(next, 80) : randomCommand(next);
      const run = new DetectionRun({ homeDir: '/home/a', hermesHome: '/srv/h' }, 1 << 20);
      expect(() => run.scanCommand(command, 0, true)).not.toThrow();
      expectValid(run.result());
    }
  });

  it('answers random UTF-16 noise (lone surrogates included)', () => {
    const next = prng(42);
    for (let i = 0; i < 500; i += 1) {
      const command = randomCodeUnits(next, 1 + Math.floor(next() * 200));
      expectValid(detect(command));
      expect(typeof isCompoundCommand(command)).toBe('boolean');
    }
  });

  it('answers adversarial 100 KB inputs, through the size limit and with it lifted', () => {
    const next = prng(7);
    for (const command of adversarial(next)) {
      expectValid(detect(command));
      expectValid(detect(command, { maxLength: Number.POSITIVE_INFINITY }));
      expect(typeof isCompoundCommand(command)).toBe('boolean');
      expect(Array.isArray(commandSegments(command, { maxLength: Number.POSITIVE_INFINITY }))).toBe(true);
    }
  });

  it('stays far from catastrophic on adversarial inputs just under the size limit', () => {
    // A guard against super-linear blow-ups, not a benchmark: the measured worst case is tens of
    // milliseconds (bench/approval.ts reports real figures); one second means something went quadratic.
    const cases = [
      'a;'.repeat(32_000),
      'eval '.repeat(13_000),
      '`a`'.repeat(21_000),
      'ls|'.repeat(16_000),
      '$(a)'.repeat(16_000),
      'bash -c "x" ;'.repeat(5_000),
      'bash -c '.repeat(8_000),
      'sudo -u x env A=1 nohup '.repeat(2_700),
    ];
    for (const command of cases) {
      expect(command.length).toBeLessThanOrEqual(65_536);
      const started = performance.now();
      expectValid(detect(command));
      expect(performance.now() - started).toBeLessThan(1_000);
    }
  });

  it('still finds the hardline command inside deeply nested shells up to the scanner depth', () => {
    let nested = 'rm -rf /';
    for (let i = 0; i < 5; i += 1) nested = `bash -c ${JSON.stringify(nested)}`;
    const result = detect(nested);
    expect(result.verdict).toBe('hardline');
  });
});
