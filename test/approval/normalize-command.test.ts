// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are shell commands, not templates
import { describe, expect, it } from 'vitest';
import {
  foldHomePaths,
  HERMES_HOME_ALIAS,
  normalizeCommand,
  shellViewOfCommand,
  stripControlSequences,
} from '../../src/approval/normalize-command.js';

describe('stripControlSequences', () => {
  it.each([
    ['\u001b[31mred\u001b[0m', 'red'],
    ['a\u001b[1;32;40mb', 'ab'],
    ['\u001b]0;window title\u0007ls', 'ls'],
    ['\u001b]8;;http://x\u001b\\link', 'link'],
    ['\u001b(Bls', 'ls'],
    ['\u001bcls', 'ls'],
    ['r\u009b0mm', 'rm'],
    ['r\u0085m', 'rm'],
    ['r\u0000m', 'rm'],
    ['r\u200bm', 'rm'],
    ['\ufeffls', 'ls'],
    ['\u202erm\u202c', 'rm'],
    ['soft\u00adhyphen', 'softhyphen'],
    ['plain ascii', 'plain ascii'],
  ])('%j → %j', (input, expected) => {
    expect(stripControlSequences(input)).toBe(expected);
  });
});

describe('normalizeCommand', () => {
  it('turns full-width letters and punctuation into ASCII (NFKC)', () => {
    expect(normalizeCommand('ｒｍ －ｒｆ ／')).toBe('rm -rf /');
    expect(normalizeCommand('ls；reboot')).toBe('ls;reboot');
  });

  it('joins backslash-newline continuations but keeps an escaped backslash before a newline', () => {
    expect(normalizeCommand('rm -rf \\\n/')).toBe('rm -rf /');
    expect(normalizeCommand('rm -r\\\nf /')).toBe('rm -rf /');
    expect(normalizeCommand('echo \\\\\nreboot')).toBe('echo \\\\\nreboot');
    expect(normalizeCommand('a \\\r\nb')).toBe('a b');
  });

  it('converts CRLF line ends', () => {
    expect(normalizeCommand('ls\r\npwd')).toBe('ls\npwd');
  });

  it('folds $HOME, ${HOME} and the absolute home to ~', () => {
    const options = { homeDir: '/home/alice' };
    expect(normalizeCommand('rm -rf $HOME/x', options)).toBe('rm -rf ~/x');
    expect(normalizeCommand('rm -rf "${HOME}"', options)).toBe('rm -rf "~"');
    expect(normalizeCommand('cat /home/alice/.ssh/id_rsa', options)).toBe('cat ~/.ssh/id_rsa');
    expect(normalizeCommand('cat /home/alice', options)).toBe('cat ~');
    expect(normalizeCommand('cp x --target=/home/alice/', options)).toBe('cp x --target=~/');
  });

  it('leaves look-alike paths and variables alone', () => {
    const options = { homeDir: '/home/alice' };
    expect(normalizeCommand('ls /home/alice2', options)).toBe('ls /home/alice2');
    expect(normalizeCommand('ls /x/home/alice', options)).toBe('ls /x/home/alice');
    expect(normalizeCommand('echo $HOMEDIR', options)).toBe('echo $HOMEDIR');
  });

  it('folds HERMES_HOME, as a variable or an absolute path, to ~/.hermes-gateway', () => {
    const options = { homeDir: '/home/alice', hermesHome: '/srv/hermes/' };
    expect(normalizeCommand('sed -i x $HERMES_HOME/config.yaml', options)).toBe(
      `sed -i x ${HERMES_HOME_ALIAS}/config.yaml`,
    );
    expect(normalizeCommand('cat ${HERMES_HOME}/.env', options)).toBe(`cat ${HERMES_HOME_ALIAS}/.env`);
    expect(normalizeCommand('cat /srv/hermes/.env', options)).toBe(`cat ${HERMES_HOME_ALIAS}/.env`);
  });

  it('folds a HERMES_HOME inside the home directory before the home itself', () => {
    const options = { homeDir: '/home/alice', hermesHome: '/home/alice/custom' };
    expect(normalizeCommand('cat /home/alice/custom/.env /home/alice/x', options)).toBe(
      `cat ${HERMES_HOME_ALIAS}/.env ~/x`,
    );
  });

  it('ignores home paths that are too short to fold safely', () => {
    expect(foldHomePaths('rm -rf /home/x', { homeDir: '/home' })).toBe('rm -rf /home/x');
    expect(foldHomePaths('rm -rf /x', { homeDir: '/' })).toBe('rm -rf /x');
    expect(foldHomePaths('rm -rf /srv', { hermesHome: '/srv' })).toBe('rm -rf /srv');
    expect(foldHomePaths('cat /data/.env', { hermesHome: '/data' })).toBe(`cat ${HERMES_HOME_ALIAS}/.env`);
    expect(foldHomePaths('rm -rf /root/x', { homeDir: '/root' })).toBe('rm -rf ~/x');
    expect(foldHomePaths('rm -rf x', { homeDir: 'relative/dir' })).toBe('rm -rf x');
  });

  it('is the identity on ordinary ASCII commands', () => {
    const command = 'git log --oneline | head -5 && echo "done"';
    expect(normalizeCommand(command)).toBe(command);
  });
});

describe('shellViewOfCommand', () => {
  it('only removes NUL bytes and folds homes', () => {
    expect(shellViewOfCommand('r\u0000m \u001b[0m$HOME')).toBe('rm \u001b[0m~');
    expect(shellViewOfCommand('ｒｍ')).toBe('ｒｍ');
  });
});
