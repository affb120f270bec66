// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are shell commands, not templates
import { describe, expect, it } from 'vitest';
import { parseShell } from '../../src/approval/shell-scan.js';
import { operands, peelCommand, verbFamily, verbName } from '../../src/approval/shell-segment.js';
import type { ShellList } from '../../src/approval/shell-types.js';

function words(list: ShellList): string[][] {
  return list.commands.map((command) => command.words.map((word) => word.text));
}

describe('parseShell: words', () => {
  it.each([
    ['ls -la /tmp', [['ls', '-la', '/tmp']]],
    ["r''m -rf", [['rm', '-rf']]],
    ['r\\m x', [['rm', 'x']]],
    ['"a b" \'c d\' e\\ f', [['a b', 'c d', 'e f']]],
    ['echo "a\\"b" "\\$x"', [['echo', 'a"b', '$x']]],
    ["echo $'a\\tb\\x41'", [['echo', 'a\tbA']]],
    ['rm${IFS}-rf${IFS}/', [['rm', '-rf', '/']]],
    ['echo "a${IFS}b"', [['echo', 'a b']]],
    ['echo {a,b,c}.txt', [['echo', 'a.txt', 'b.txt', 'c.txt']]],
    ["echo '{a,b}'", [['echo', '{a,b}']]],
    ['echo ${x:-fallback}', [['echo', 'fallback']]],
    ['echo $1$@x', [['echo', 'x']]],
    ['echo a#b # comment', [['echo', 'a#b']]],
    ['a=1 b="x y" cmd', [['a=1', 'b=x y', 'cmd']]],
  ])('%j', (source, expected) => {
    expect(words(parseShell(source).list)).toEqual(expected);
  });

  it('marks unquoted globs and expansions as dynamic, quoted ones not', () => {
    const [command] = parseShell('x *.js "*.ts" $v "$v" \\*').list.commands;
    expect(command?.words.map((word) => word.dynamic)).toEqual([false, true, false, true, false, false]);
  });

  it('records a word that is exactly one expansion', () => {
    const [command] = parseShell('x $a "${b}" $a$b').list.commands;
    expect(command?.words.map((word) => word.expansionName)).toEqual([undefined, 'a', 'b', undefined]);
    expect(command?.words[1]?.expansionUnquoted).toBe(true);
    expect(command?.words[2]?.expansionUnquoted).toBe(false);
  });

  it('notices command names assembled from expansions', () => {
    const [command] = parseShell('r${x}m $HOME/bin/tool').list.commands;
    expect(command?.words.map((word) => word.mixedName)).toEqual([true, false]);
  });
});

describe('parseShell: structure', () => {
  it('splits commands at separators and keeps pipelines', () => {
    const { list } = parseShell('a | b |& c; d && e || f & g\nh');
    expect(words(list)).toEqual([['a'], ['b'], ['c'], ['d'], ['e'], ['f'], ['g'], ['h']]);
    expect(list.pipelines).toEqual([[[0], [1], [2]]]);
    expect(list.commands[5]?.background).toBe(true);
    expect(list.commands[6]?.background).toBe(false);
  });

  it('flattens groups into the list and uses them as pipeline stages', () => {
    const { list } = parseShell('(a; b) | { c; } | d');
    expect(words(list)).toEqual([['a'], ['b'], ['c'], ['d']]);
    expect(list.pipelines).toEqual([[[0, 1], [2], [3]]]);
  });

  it('parses command, backtick and process substitutions into their own lists', () => {
    const { list } = parseShell('echo $(id -u) "`date`" <(ls)');
    const subs = list.commands[0]?.words.flatMap((word) => word.subs) ?? [];
    expect(subs.map((sub) => sub.kind)).toEqual(['command', 'backtick', 'process-in']);
    expect(subs.map((sub) => words(sub.list))).toEqual([[['id', '-u']], [['date']], [['ls']]]);
  });

  it('reads redirections with their targets', () => {
    const [command] = parseShell('cmd 2>&1 >> out.log < in &>all').list.commands;
    expect(command?.redirects.map((r) => [r.fd, r.op, r.target?.text])).toEqual([
      [2, '>&', '1'],
      [undefined, '>>', 'out.log'],
      [undefined, '<', 'in'],
      [undefined, '&>', 'all'],
    ]);
  });

  it('reads heredoc bodies and here-strings', () => {
    const { list } = parseShell('cat <<EOF | sh\nline $(id)\nEOF\nbash <<-X\n\tone\n\tX\nsh <<< "two"');
    expect(words(list)).toEqual([['cat'], ['sh'], ['bash'], ['sh']]);
    expect(list.commands[0]?.redirects[0]?.body).toBe('line $(id)\n');
    expect(list.commands[0]?.redirects[0]?.bodySubs.map((sub) => words(sub.list))).toEqual([[['id']]]);
    expect(list.commands[2]?.redirects[0]?.body).toBe('one\n');
    expect(list.commands[3]?.redirects[0]?.body).toBe('two');
  });

  it('does not expand a heredoc whose delimiter is quoted', () => {
    const { list } = parseShell("cat <<'EOF'\n$(id)\nEOF");
    expect(list.commands[0]?.redirects[0]?.bodySubs).toEqual([]);
  });

  it('reports unterminated quotes, substitutions and groups as malformed', () => {
    for (const source of ['echo "x', "echo 'x", 'echo $(x', 'echo `x', 'echo ${x', '(ls', '{ ls']) {
      expect(parseShell(source).malformed).toBe(true);
    }
    expect(parseShell('echo "ok" \'ok\' $(ok) `ok`').malformed).toBe(false);
  });

  it('stops at the nesting limit and says so', () => {
    const parsed = parseShell(`${'$('.repeat(100)}x${')'.repeat(100)}`);
    expect(parsed.overflow).toBe(true);
  });
});

describe('peelCommand', () => {
  function peel(source: string) {
    const command = parseShell(source).list.commands[0];
    if (command === undefined) throw new Error('no command');
    return peelCommand(command);
  }

  it.each([
    ['sudo -u bob -E rm -rf x', 'rm', ['-rf', 'x']],
    ['env -i A=1 B=2 /usr/bin/python3.11 x.py', 'python3.11', ['x.py']],
    ['nohup nice -n 5 timeout -s KILL 10 ls -l', 'ls', ['-l']],
    ['command -v rm', 'command', ['-v', 'rm']],
    ['busybox sh -c x', 'sh', ['-c', 'x']],
    ['then reboot', 'reboot', []],
    ['A=1', '', []],
  ])('%j → %s %j', (source, verb, args) => {
    const seg = peel(source);
    expect(seg.verb).toBe(verb);
    expect(seg.argv).toEqual(args);
  });

  it('keeps wrappers, their options and assignments', () => {
    const seg = peel('FOO=1 sudo -S -u bob env BAR=2 ls');
    expect(seg.wrappers.map((w) => [w.name, w.options])).toEqual([
      ['sudo', ['-S', '-u', 'bob']],
      ['env', ['BAR=2']],
    ]);
    expect(seg.assignments).toEqual(['FOO=1', 'BAR=2']);
  });

  it('names verbs and families', () => {
    expect(verbName('/usr/bin/RM.exe')).toBe('rm');
    expect(verbName('C:\\Windows\\System32\\cmd.exe')).toBe('cmd');
    expect(verbFamily('python3.12')).toBe('python');
    expect(verbFamily('mkfs.ext4')).toBe('mkfs');
    expect(verbFamily('zsh')).toBe('shell');
    expect(verbFamily('ls')).toBe('ls');
    expect(operands(['-a', 'x', '--', '-b'])).toEqual(['x', '-b']);
  });
});
