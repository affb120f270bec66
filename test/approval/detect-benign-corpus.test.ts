import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { type DetectOptions, detect } from '../../src/approval/detect.js';

/**
 * False positives: everyday commands as developers and operators type them
 * (corpus/benign-commands.txt). At most 3 % may need approval, and each that does is listed
 * here with the reason — a new one fails the test until it is either fixed or explained.
 */

const OPTIONS: DetectOptions = { homeDir: '/home/alice', hermesHome: '/home/alice/.hermes-gateway' };
const MAX_RATE = 0.03;

/** Commands of the corpus that are allowed to need approval, and why. */
const EXPECTED_FLAGS: Readonly<Record<string, string>> = {
  'cp .env.example .env.local':
    'overwrites a project .env file (Hermes: "overwrite project env/config file")',
  'kill $(lsof -t -i:3000)':
    'the pids come from a substitution: `kill` of a value not known statically could be -1',
  'ssh web1 uptime': 'a command run on another host is never vouched for by this host (issue 19)',
  'PYTHONPATH=src python -m pytest':
    'PYTHONPATH changes which code `python -m` imports (the program that runs is not the one named)',
  'git branch --merged | grep -v main | xargs git branch -d':
    'xargs hands data from a pipe to `git branch`, whose arguments decide what it deletes',
  'node -e "console.log(require(\'./package.json\').version)"':
    'an inline program is not understood: always asks (Hermes: "script execution via -e/-c flag")',
  'python3 -c "import sys; print(sys.version)"':
    'an inline program is not understood: always asks (Hermes: "script execution via -e/-c flag")',
};

function corpus(): string[] {
  const text = readFileSync(new URL('./corpus/benign-commands.txt', import.meta.url), 'utf8');
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
}

describe('detect: benign corpus', () => {
  const commands = corpus();
  const flagged = commands.filter((command) => detect(command, OPTIONS).verdict !== 'safe');

  it('holds at least 300 distinct everyday commands', () => {
    expect(commands.length).toBeGreaterThanOrEqual(300);
    expect(new Set(commands).size).toBe(commands.length);
  });

  it('lists every expected flag in the corpus itself', () => {
    for (const command of Object.keys(EXPECTED_FLAGS)) expect(commands).toContain(command);
  });

  it('flags only commands listed with a reason', () => {
    const unexplained = flagged.filter((command) => EXPECTED_FLAGS[command] === undefined);
    expect(unexplained).toEqual([]);
  });

  it(`flags at most ${MAX_RATE * 100} % of the corpus`, () => {
    expect(flagged.length / commands.length).toBeLessThanOrEqual(MAX_RATE);
  });

  it('keeps the everyday commands issue 19 names safe', () => {
    const named = [
      'npm test',
      'make',
      'git status',
      'git log --oneline -5',
      'git diff HEAD~1',
      'git commit -m "fix"',
      'git push origin main',
      'docker ps',
      'docker build -t app .',
      'grep -r TODO src',
      'rm -f build/x.o',
      'rm -f /tmp/scratch.txt',
      'sudo --shell id',
    ];
    expect(named.filter((command) => detect(command, OPTIONS).verdict !== 'safe')).toEqual([]);
  });

  it('never calls an everyday command hardline', () => {
    expect(commands.filter((command) => detect(command, OPTIONS).verdict === 'hardline')).toEqual([]);
  });
});
