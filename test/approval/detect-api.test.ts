// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are shell commands, not templates
import { describe, expect, it } from 'vitest';
import { commandSegments, isCompoundCommand } from '../../src/approval/detect.js';

describe('isCompoundCommand', () => {
  it.each([
    'ls -la',
    'git push origin main',
    'echo "a;b|c&d<e>f"',
    "echo 'x && y'",
    "echo '$(x)'",
    "echo '`x`'",
    'echo a\\;b',
    'podman ps -a',
    'echo $HOME',
    'echo ${HOME}',
    "echo $'a;b'",
    '',
  ])('%j is a plain command', (command) => {
    expect(isCompoundCommand(command)).toBe(false);
  });

  it.each([
    'ls; rm x',
    'ls && rm x',
    'ls || rm x',
    'ls | grep x',
    'sleep 1 &',
    'cat < f',
    'echo x > f',
    'echo `id`',
    'echo $(id)',
    'echo "$(id)"',
    'echo "`id`"',
    'ls\nrm x',
    "echo 'line1\nline2'",
    'echo "unterminated',
    'ls ； rm x',
    'diff <(a) <(b)',
  ])('%j is compound', (command) => {
    expect(isCompoundCommand(command)).toBe(true);
  });

  it('never throws on a non-string', () => {
    expect(isCompoundCommand(undefined as unknown as string)).toBe(true);
  });
});

describe('commandSegments', () => {
  it('lists each simple command after peeling wrappers', () => {
    expect(commandSegments('nohup env A=1 /usr/bin/LS -la /tmp && time make build')).toEqual([
      'ls -la /tmp',
      'make build',
    ]);
  });

  it('gives a privilege wrapper its own segment before the command it runs', () => {
    expect(commandSegments('sudo -S -u bob rm f')).toEqual(['sudo -S -u bob rm f', 'rm f']);
    expect(commandSegments('echo pw | sudo -S')).toEqual(['echo pw', 'sudo -S']);
  });

  it('includes nested payloads and substitutions', () => {
    expect(commandSegments('bash -c "sudo -S id"')).toEqual(['bash -c sudo -s id', 'sudo -S id', 'id']);
    expect(commandSegments('echo $(whoami)')).toEqual(['echo $(whoami)', 'whoami']);
  });

  it('folds case except on option words and removes quoting', () => {
    expect(commandSegments('GIT "Push" --Force')).toEqual(['git push --Force']);
    expect(commandSegments("r''m -R x")).toEqual(['rm -R x']);
  });

  it('returns an empty list for oversized or non-string input', () => {
    expect(commandSegments('ls', { maxLength: 1 })).toEqual([]);
    expect(commandSegments(null as unknown as string)).toEqual([]);
  });
});
