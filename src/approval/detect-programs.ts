/**
 * Well-known programs an option or variable may name without needing approval (`tar -I zstd`,
 * `GIT_SSH_COMMAND='ssh -i key'`, `core.editor 'code --wait'`), and the test for "one such
 * program with plain arguments": no expansion, quoting or shell syntax.
 */

export const SSH_PROGRAMS: readonly string[] = ['ssh', 'rsh'];
export const PAGERS: readonly string[] = [
  'less',
  'more',
  'most',
  'cat',
  'bat',
  'batcat',
  'delta',
  'diff-so-fancy',
  'tee',
];
export const EDITORS: readonly string[] = [
  'vim',
  'vi',
  'nvim',
  'nano',
  'emacs',
  'emacsclient',
  'code',
  'subl',
  'micro',
  'hx',
  'kak',
  'true',
  'cat',
  'mate',
  'gedit',
  'kate',
];
export const COMPILERS: readonly string[] = [
  'gcc',
  'g++',
  'clang',
  'clang++',
  'cc',
  'c++',
  'ccache',
  'tcc',
  'icc',
  'icx',
  'sccache',
];
export const COMPRESSORS: readonly string[] = [
  'gzip',
  'gunzip',
  'pigz',
  'bzip2',
  'bunzip2',
  'pbzip2',
  'lbzip2',
  'xz',
  'unxz',
  'pixz',
  'zstd',
  'unzstd',
  'pzstd',
  'zstdmt',
  'lz4',
  'lzip',
  'plzip',
  'lzma',
  'lzop',
  'brotli',
];
export const GPG_PROGRAMS: readonly string[] = ['gpg', 'gpg2', 'gpgsm', 'ssh-keygen'];
/** `credential.helper` values git completes to `git-credential-<name>`. */
export const CREDENTIAL_HELPERS: readonly string[] = [
  'store',
  'cache',
  'osxkeychain',
  'manager',
  'manager-core',
  'libsecret',
  'wincred',
  'gnome-keyring',
];

const PLAIN_COMMAND = /^[\w./~@%+,:=-]+(?:[ \t]+[\w./~@%+,:=-]+)*$/;

/** True when `command` is one program from `accepted` with plain arguments. */
export function isAcceptedProgram(command: string, accepted: readonly string[]): boolean {
  const trimmed = command.trim();
  if (!PLAIN_COMMAND.test(trimmed)) return false;
  const first = trimmed.split(/[ \t]+/)[0] ?? '';
  return accepted.includes(first.slice(first.lastIndexOf('/') + 1).toLowerCase());
}
