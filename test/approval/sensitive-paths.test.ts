import { describe, expect, it } from 'vitest';
import { classifySensitivePath, collapsePath } from '../../src/approval/sensitive-paths.js';

const real = { home: '/home/ann', hermesHome: '/home/ann/.hermes-gateway' };
const folded = { home: '~', hermesHome: '~/.hermes-gateway' };

describe('classifySensitivePath', () => {
  it.each([
    ['/home/ann/.hermes-gateway/.env', 'hermes_secret', 'hardline', 'dangerous'],
    ['/home/ann/.hermes-gateway/state.db-wal', 'hermes_secret', 'hardline', 'dangerous'],
    ['/home/ann/.hermes-gateway/config.yaml', 'hermes_secret', 'hardline', 'dangerous'],
    ['/home/ann/.hermes-gateway/plugins/evil.mjs', 'hermes_home', 'hardline', 'none'],
    ['/home/ann/.hermes-gateway', 'hermes_home', 'hardline', 'none'],
    ['/home/ann/x/../.HERMES-GATEWAY//.env', 'hermes_secret', 'hardline', 'dangerous'],
    ['/home/ann/.zshenv', 'shell_startup', 'dangerous', 'none'],
    ['/home/ann/.ssh/id_ed25519', 'ssh', 'dangerous', 'dangerous'],
    ['/home/ann/.ssh/id_ed25519.pub', 'ssh', 'dangerous', 'none'],
    ['/home/ann/.aws/credentials', 'credentials', 'dangerous', 'dangerous'],
    ['/home/ann/.config/systemd/user/x.service', 'systemd_user', 'dangerous', 'none'],
    ['/home/ann/src/app/.git/hooks/post-checkout', 'git_hooks', 'dangerous', 'none'],
    ['.git/hooks/pre-commit', 'git_hooks', 'dangerous', 'none'],
    ['/etc/passwd', 'system_config', 'dangerous', 'none'],
    ['/etc/shadow', 'system_config', 'dangerous', 'dangerous'],
    ['/var/spool/cron/crontabs/ann', 'cron', 'dangerous', 'none'],
    ['/proc/1234/environ', 'process_secrets', 'hardline', 'dangerous'],
    ['/proc/self/task/7/environ', 'process_secrets', 'hardline', 'dangerous'],
    ['/dev/vda', 'block_device', 'hardline', 'dangerous'],
    ['/dev/nvme0n1p1', 'block_device', 'hardline', 'dangerous'],
    ['/root/.ssh/id_rsa', 'ssh', 'dangerous', 'dangerous'],
    ['/home/bob/.aws/credentials', 'credentials', 'dangerous', 'dangerous'],
    ['/home/bob/.bashrc', 'shell_startup', 'dangerous', 'none'],
    ['/proc/1/root/home/ann/.hermes-gateway/.env', 'hermes_secret', 'hardline', 'dangerous'],
    ['/proc/self/root/etc/shadow', 'system_config', 'dangerous', 'dangerous'],
    ['/proc/1234/fd/7', 'process_secrets', 'hardline', 'dangerous'],
    ['/proc/1234/cwd/.env', 'process_secrets', 'hardline', 'dangerous'],
    ['/proc/sysrq-trigger', 'kernel_control', 'hardline', 'none'],
    ['/proc/sys/kernel/panic', 'kernel_control', 'dangerous', 'none'],
    ['/sys/class/net/eth0/mtu', 'kernel_control', 'dangerous', 'none'],
    ['/home/ann/.config/rclone/rclone.conf', 'credentials', 'dangerous', 'dangerous'],
  ])('%s', (path, area, write, read) => {
    expect(classifySensitivePath(path, real)).toMatchObject({ area, write, read });
  });

  it.each([
    '/home/ann/src/app/README.md',
    '/tmp/x',
    '/dev/null',
    'notes.txt',
    '/home/ann/.gitignore',
    '/home/ann/git/hooks/x',
    '/proc/self/fd/0',
    '/proc/cpuinfo',
    '/tmp/a//b/../c',
    '/home/bob/projects/app/main.go',
  ])('%s is not sensitive', (path) => {
    expect(classifySensitivePath(path, real)).toBeUndefined();
  });

  it('reads the detector’s folded spelling with folded roots', () => {
    expect(classifySensitivePath('~/.hermes-gateway/state.db', folded)?.area).toBe('hermes_secret');
    expect(classifySensitivePath('~/.bashrc', folded)?.area).toBe('shell_startup');
    expect(classifySensitivePath('~/../ann/.bashrc', folded)).toBeUndefined();
  });

  it('finds HERMES_HOME outside the home directory', () => {
    const roots = { home: '/home/ann', hermesHome: '/srv/hermes' };
    expect(classifySensitivePath('/srv/hermes/.env', roots)?.write).toBe('hardline');
    expect(classifySensitivePath('/srv/hermes-other/.env', roots)).toBeUndefined();
  });
});

describe('collapsePath', () => {
  it.each([
    ['/a/b/../c', '/a/c'],
    ['//a///b/./c/', '/a/b/c'],
    ['/../..', '/'],
    ['~/x/../../y', '~/y'],
  ])('%s → %s', (input, output) => {
    expect(collapsePath(input)).toBe(output);
  });
});
