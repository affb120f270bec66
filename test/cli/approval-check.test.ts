import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { runApprovalCheck } from '../../src/cli/approval-check.js';

interface Captured {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

async function run(argv: readonly string[], input = ''): Promise<Captured> {
  let stdout = '';
  let stderr = '';
  const code = await runApprovalCheck(
    argv,
    {
      stdin: Readable.from([input]),
      stdout: (text) => {
        stdout += text;
      },
      stderr: (text) => {
        stderr += text;
      },
    },
    { homeDir: '/home/alice', hermesHome: '/home/alice/.hermes-gateway' },
  );
  return { code, stdout, stderr };
}

function jsonLines(text: string): unknown[] {
  return text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as unknown);
}

describe('approval check', () => {
  it('prints the verdict then one line per finding, exit 0 even for hardline', async () => {
    const result = await run(['rm', '-rf', '/']);
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe('hardline');
    expect(lines).toContain('  hardline: recursive delete of root filesystem');
    expect(lines).toContain('  dangerous: recursive delete');
  });

  it('prints just the verdict for a safe command', async () => {
    expect(await run(['ls -la'])).toEqual({ code: 0, stdout: 'safe\n', stderr: '' });
  });

  it('joins the COMMAND words into one command', async () => {
    const result = await run(['--json', 'git', 'push', '--force']);
    expect(jsonLines(result.stdout)).toEqual([
      {
        command: 'git push --force',
        verdict: 'dangerous',
        findings: [
          {
            key: 'git force push (rewrites remote history)',
            description: 'git force push (rewrites remote history)',
            tier: 'dangerous',
          },
        ],
      },
    ]);
  });

  it('accepts -- before a command that starts with a dash', async () => {
    const result = await run(['--json', '--', '-rf']);
    expect(result.code).toBe(0);
    expect(jsonLines(result.stdout)).toEqual([{ command: '-rf', verdict: 'safe', findings: [] }]);
  });

  it('answers one JSON line per --stdin line, in order, commands with newlines included', async () => {
    const input = `${JSON.stringify('ls')}\n${JSON.stringify('bash <<EOF\nreboot\nEOF')}\n\n${JSON.stringify('git push -f')}\n`;
    const result = await run(['--stdin'], input);
    expect(result.code).toBe(0);
    const answers = jsonLines(result.stdout) as { command: string; verdict: string }[];
    expect(answers.map((answer) => [answer.command, answer.verdict])).toEqual([
      ['ls', 'safe'],
      ['bash <<EOF\nreboot\nEOF', 'hardline'],
      ['git push -f', 'dangerous'],
    ]);
  });

  it('answers a bad --stdin line with an error object, goes on, and exits 2', async () => {
    const input = `${JSON.stringify('ls')}\nnot json\n42\r\n${JSON.stringify('reboot')}`;
    const result = await run(['--stdin', '--json'], input);
    expect(result.code).toBe(2);
    const answers = jsonLines(result.stdout) as Record<string, unknown>[];
    expect(answers).toHaveLength(4);
    expect(answers[0]?.verdict).toBe('safe');
    expect(answers[1]).toEqual({ error: 'line 2: expected a JSON-encoded string' });
    expect(answers[2]).toEqual({ error: 'line 3: expected a JSON-encoded string' });
    expect(answers[3]?.verdict).toBe('hardline');
  });

  it('answers nothing for empty stdin', async () => {
    expect(await run(['--stdin'], '')).toEqual({ code: 0, stdout: '', stderr: '' });
  });

  it.each([
    [[] as string[], 'no command given'],
    [['--yaml', 'ls'], "unknown option '--yaml'"],
    [['-rf'], "unknown option '-rf'"],
    [['--stdin', 'ls'], 'not both'],
  ])('exits 2 with a usage message for %j', async (argv, message) => {
    const result = await run(argv);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain(message);
    expect(result.stderr).toContain('usage: hermes-gateway approval check');
  });

  it('prints usage on --help', async () => {
    const result = await run(['--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('usage: hermes-gateway approval check');
  });

  it('folds the configured HERMES_HOME like the gate does', async () => {
    const result = await run(['--json', 'sed -i s/a/b/ /home/alice/.hermes-gateway/config.yaml']);
    const [answer] = jsonLines(result.stdout) as { findings: { key: string }[] }[];
    expect(answer?.findings.map((finding) => finding.key)).toEqual([
      'write, move, link or delete in hermes-gateway home (HERMES_HOME)',
      'in-place edit of Hermes config/env',
    ]);
  });
});
