// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are shell commands, not templates
import { describe, expect, it } from 'vitest';
import { DANGEROUS, type DetectOptions, detect, HARDLINE } from '../../src/approval/detect.js';

const OPTIONS: DetectOptions = { homeDir: '/home/alice', hermesHome: '/home/alice/.hermes-gateway' };

function keysOf(command: string): string[] {
  return detect(command, OPTIONS).findings.map((finding) => finding.key);
}

/** Spellings that hide a hardline command: each must still be found. */
const OBFUSCATED_HARDLINE: readonly (readonly [string, string])[] = [
  ['r\\m -rf /', HARDLINE.rootDelete],
  ['r\\m -r\\f /', HARDLINE.rootDelete],
  ['\\rm -rf /', HARDLINE.rootDelete],
  ["r''m -rf /", HARDLINE.rootDelete],
  ['r""m -rf /', HARDLINE.rootDelete],
  ['"rm" -rf /', HARDLINE.rootDelete],
  ["'rm' '-rf' '/'", HARDLINE.rootDelete],
  ['r"m" -rf /', HARDLINE.rootDelete],
  ["rm -rf ''/", HARDLINE.rootDelete],
  ['rm${IFS}-rf${IFS}/', HARDLINE.rootDelete],
  ['rm$IFS-rf$IFS/', HARDLINE.rootDelete],
  ['rm${IFS:0:1}-rf${IFS:0:1}/', HARDLINE.rootDelete],
  ['r$@m -rf /', HARDLINE.rootDelete],
  ['{rm,-rf,/}', HARDLINE.rootDelete],
  ["$'\\x72\\x6d' -rf /", HARDLINE.rootDelete],
  ["$'\\162\\155' -rf /", HARDLINE.rootDelete],
  ["$'rm' -rf /", HARDLINE.rootDelete],
  ['ｒｍ －ｒｆ ／', HARDLINE.rootDelete],
  ['ｒｅｂｏｏｔ', HARDLINE.shutdown],
  ['\u001b[31mrm -rf /\u001b[0m', HARDLINE.rootDelete],
  ['r\u001b[0mm -rf /', HARDLINE.rootDelete],
  ['r\u009b0mm -rf /', HARDLINE.rootDelete],
  ['\u001b]0;title\u0007reboot', HARDLINE.shutdown],
  ['r\u200bm -rf /', HARDLINE.rootDelete],
  ['r\u0000m -rf /', HARDLINE.rootDelete],
  ['\u202erm -rf /', HARDLINE.rootDelete],
  ['rm -rf \\\n/', HARDLINE.rootDelete],
  ['rm -r\\\nf /', HARDLINE.rootDelete],
  ['re\\\nboot', HARDLINE.shutdown],
  ['rm -rf /\r\n', HARDLINE.rootDelete],
  ['x=rm; $x -rf /', HARDLINE.rootDelete],
  ['d=/; rm -rf $d', HARDLINE.rootDelete],
  ['cmd="rm -rf"; $cmd /', HARDLINE.rootDelete],
  ['export T=~; rm -rf "$T"', HARDLINE.homeDelete],
  ['$(echo rm) -rf /', HARDLINE.rootDelete],
  ['`echo rm` -rf /', HARDLINE.rootDelete],
  ['$(printf "\\x72\\x6d") -rf /', HARDLINE.rootDelete],
  ['$(which rm) -rf /', HARDLINE.rootDelete],
  ['rm -rf ${x:-/}', HARDLINE.rootDelete],
  ['bash -c "rm -rf /"', HARDLINE.rootDelete],
  ['bash -c "bash -c \'rm -rf /\'"', HARDLINE.rootDelete],
  ['sh -c \'sh -c "reboot"\'', HARDLINE.shutdown],
  ['bash -lc "rm -rf ~"', HARDLINE.homeDelete],
  ['bash -x -c "reboot"', HARDLINE.shutdown],
  ['zsh -c "mkfs.ext4 /dev/sda1"', HARDLINE.mkfs],
  ['eval "rm -rf /"', HARDLINE.rootDelete],
  ['eval \'eval "reboot"\'', HARDLINE.shutdown],
  ['eval rm -rf /', HARDLINE.rootDelete],
  ['builtin eval "rm -rf /"', HARDLINE.rootDelete],
  ['python -c "import os; os.system(\'rm -rf /\')"', HARDLINE.rootDelete],
  ['python3 -c \'import subprocess; subprocess.run(["rm", "-rf", "/"])\'', HARDLINE.rootDelete],
  ['python3 -c \'import shutil; shutil.rmtree("/")\'', HARDLINE.rootDelete],
  ['python3 -c "import shutil,os; shutil.rmtree(os.path.expanduser(\'~\'))"', HARDLINE.homeDelete],
  ["node -e \"require('child_process').execSync('reboot')\"", HARDLINE.shutdown],
  ["node -e \"require('fs').rmSync('/', {recursive: true})\"", HARDLINE.rootDelete],
  ['perl -e \'system("rm -rf /")\'', HARDLINE.rootDelete],
  ["ruby -e '`reboot`'", HARDLINE.shutdown],
  ['php -r \'shell_exec("rm -rf /");\'', HARDLINE.rootDelete],
  ['awk \'BEGIN{system("rm -rf /")}\'', HARDLINE.rootDelete],
  ['bash <<EOF\nrm -rf /\nEOF', HARDLINE.rootDelete],
  ["sh <<'X'\nreboot\nX", HARDLINE.shutdown],
  ['bash <<-EOF\n\trm -rf /\n\tEOF', HARDLINE.rootDelete],
  ['python3 - <<EOF\nimport os\nos.system("rm -rf ~")\nEOF', HARDLINE.homeDelete],
  ['bash <<< "rm -rf /"', HARDLINE.rootDelete],
  ['echo "rm -rf /" | bash', HARDLINE.rootDelete],
  ["printf 'reboot' | sh", HARDLINE.shutdown],
  ["echo -e '\\x72\\x6d -rf /' | sh", HARDLINE.rootDelete],
  ['cat <<EOF | bash\nrm -rf /\nEOF', HARDLINE.rootDelete],
  ['echo $(rm -rf /)', HARDLINE.rootDelete],
  ['echo "$(rm -rf /)"', HARDLINE.rootDelete],
  ['echo `rm -rf /`', HARDLINE.rootDelete],
  ['x=$(reboot)', HARDLINE.shutdown],
  ['cat <<EOF\n$(rm -rf /)\nEOF', HARDLINE.rootDelete],
  ['diff <(rm -rf /) x', HARDLINE.rootDelete],
  ['true && rm -rf /', HARDLINE.rootDelete],
  ['false || rm -rf /', HARDLINE.rootDelete],
  ['ls | rm -rf /', HARDLINE.rootDelete],
  ['sleep 1 & rm -rf /', HARDLINE.rootDelete],
  ['ls\nrm -rf /', HARDLINE.rootDelete],
  ['(rm -rf /)', HARDLINE.rootDelete],
  ['{ rm -rf /; }', HARDLINE.rootDelete],
  ['if true; then rm -rf /; fi', HARDLINE.rootDelete],
  ['for f in a; do reboot; done', HARDLINE.shutdown],
  ['while true; do rm -rf ~; done', HARDLINE.homeDelete],
  ['! rm -rf /', HARDLINE.rootDelete],
  ['function f { rm -rf /; }; f', HARDLINE.rootDelete],
  ['f() { reboot; }; f', HARDLINE.shutdown],
  ['ssh host rm -rf /', HARDLINE.rootDelete],
  ["ssh -p 22 host 'rm -rf /'", HARDLINE.rootDelete],
  ['ssh -o ProxyCommand="reboot" host', HARDLINE.shutdown],
  ['su -c "rm -rf /"', HARDLINE.rootDelete],
  ['su - root -c reboot', HARDLINE.shutdown],
  ["sudo sh -c 'rm -rf /'", HARDLINE.rootDelete],
  ['env -S "rm -rf /"', HARDLINE.rootDelete],
  ['flock /tmp/l -c "reboot"', HARDLINE.shutdown],
  ['watch "rm -rf /"', HARDLINE.rootDelete],
  ['script -qc "reboot" /dev/null', HARDLINE.shutdown],
  ["tmux new -d 'rm -rf /'", HARDLINE.rootDelete],
  ["xargs sh -c 'rm -rf /'", HARDLINE.rootDelete],
  ['find . -exec sh -c "reboot" \\;', HARDLINE.shutdown],
  ['docker exec web rm -rf /', HARDLINE.rootDelete],
  ['kubectl exec pod -- reboot', HARDLINE.shutdown],
];

/** Wrappers in front of the command: peeled, the command is still seen. */
const WRAPPED: readonly string[] = [
  'sudo rm -rf /',
  'sudo -u bob rm -rf /',
  'sudo -E env PATH=/x rm -rf /',
  'sudo -- rm -rf /',
  'doas rm -rf /',
  'pkexec rm -rf /',
  'env A=1 rm -rf /',
  'env -i rm -rf /',
  'FOO=1 BAR=2 rm -rf /',
  'nohup rm -rf / &',
  'setsid rm -rf /',
  'time rm -rf /',
  'time -p rm -rf /',
  'nice rm -rf /',
  'nice -n 5 rm -rf /',
  'nice -10 rm -rf /',
  'ionice -c3 rm -rf /',
  'chrt -f 10 rm -rf /',
  'taskset -c 0 rm -rf /',
  'stdbuf -o0 rm -rf /',
  'timeout 10 rm -rf /',
  'timeout -s KILL 10 rm -rf /',
  'exec rm -rf /',
  'command rm -rf /',
  'busybox rm -rf /',
  'toybox rm -rf /',
  '/bin/rm -rf /',
  '/usr/bin/rm -rf /',
  './rm -rf /',
  '/usr/bin/env rm -rf /',
  'flock /tmp/lock rm -rf /',
  'chroot /mnt rm -rf /',
  'npx rimraf /',
  'sudo nohup nice -n 5 env A=1 /bin/rm -rf /',
];

/** Quoted prose and data that only looks dangerous. */
const PROSE: readonly string[] = [
  'echo "bash -c \'rm -rf /\'"',
  'echo "eval rm -rf /"',
  'echo \'python -c "os.system(\\"rm -rf /\\")"\'',
  'git commit -m "$(cat msg.txt)"',
  'git commit -m "sudo reboot\nrm -rf /"',
  "grep -E 'reboot|shutdown' /var/log/syslog",
  'echo "a; rm -rf /"',
  "echo 'x && reboot'",
  'echo "\\`reboot\\`" > /dev/null',
  "printf '%s\\n' 'rm -rf /'",
  "cat <<'EOF' > deploy.sh\nsudo reboot\nEOF",
  'echo ｒｍ',
  'jq \'.items[] | select(.name == "rm -rf /")\' x.json',
  'node -v # node -e "rm"',
  'echo $(date) reboot',
];

describe('detect: obfuscated hardline commands', () => {
  it.each(OBFUSCATED_HARDLINE)('%j is hardline (%s)', (command, key) => {
    expect(detect(command, OPTIONS).verdict).toBe('hardline');
    expect(keysOf(command)).toContain(key);
  });
});

describe('detect: wrappers are peeled', () => {
  it.each(WRAPPED)('%j is hardline', (command) => {
    expect(keysOf(command)).toContain(HARDLINE.rootDelete);
  });
});

describe('detect: quoted prose stays safe', () => {
  it.each(PROSE)('%j is safe', (command) => {
    expect(detect(command, OPTIONS)).toEqual({ verdict: 'safe', findings: [] });
  });
});

describe('detect: scanning depth and size', () => {
  it('refuses a command over the size limit without reading it', () => {
    const result = detect(`echo ${'a'.repeat(100_000)}`);
    expect(result).toEqual({
      verdict: 'hardline',
      findings: [{ key: HARDLINE.parserLimit, description: HARDLINE.parserLimit, tier: 'hardline' }],
    });
  });

  it('honours a custom size limit', () => {
    expect(detect('ls -la', { maxLength: 3 }).verdict).toBe('hardline');
    expect(detect('ls', { maxLength: 3 }).verdict).toBe('safe');
  });

  it('treats payloads nested deeper than the scanner follows as a parser limit', () => {
    let command = 'ls';
    for (let i = 0; i < 12; i += 1) command = `eval ${command}`;
    expect(keysOf(command)).toContain(HARDLINE.parserLimit);
  });

  it('treats substitutions nested beyond the scanner limit as a parser limit', () => {
    const command = `echo ${'$('.repeat(40)}ls${')'.repeat(40)}`;
    expect(keysOf(command)).toContain(HARDLINE.parserLimit);
  });

  it('scans both views when normalisation drops characters', () => {
    // The shell sees `echo ESC[1` ; `rm -rf /` — stripping the escape must not hide it.
    const command = 'echo \u001b[1;rm -rf / \u0007';
    expect(keysOf(command)).toContain(HARDLINE.rootDelete);
  });

  it('does not report malformed quoting found only in the normalised view', () => {
    // A full-width quote becomes `"` under NFKC, but the shell does not treat it as a quote.
    expect(detect('echo ＂hello', OPTIONS).verdict).toBe('safe');
  });

  it('flags obfuscated command names that cannot be resolved', () => {
    expect(keysOf('a=r; b=m; $a$b -rf /tmp/x')).toContain(DANGEROUS.obfuscatedName);
  });
});

describe('detect: options', () => {
  it('folds the given home directory to ~', () => {
    expect(detect('rm -rf /srv/users/bob', { homeDir: '/srv/users/bob' }).verdict).toBe('hardline');
    expect(detect('rm -rf /srv/users/bob', { homeDir: '/home/alice' }).verdict).toBe('dangerous');
  });

  it('folds a HERMES_HOME outside the home directory to ~/.hermes-gateway', () => {
    const options = { homeDir: '/home/alice', hermesHome: '/srv/hermes' };
    expect(detect('sed -i s/a/b/ /srv/hermes/config.yaml', options).findings).toContainEqual({
      key: DANGEROUS.editHermes,
      description: DANGEROUS.editHermes,
      tier: 'dangerous',
    });
    expect(detect('echo x > /srv/hermes/.env', options).findings.map((f) => f.key)).toContain(
      DANGEROUS.redirectSystem,
    );
  });

  it('never throws on input that is not a string', () => {
    expect(detect(undefined as unknown as string).verdict).toBe('hardline');
    expect(detect(42 as unknown as string).verdict).toBe('hardline');
  });
});
