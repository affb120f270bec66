import type { RuleContext, VerbRules } from './detect-context.js';
import { INTERPRETERS, parseInterpreter } from './detect-interpreter-rules.js';
import { DANGEROUS } from './detect-keys.js';
import { operands } from './shell-segment.js';

/**
 * Code that comes in unreviewed (packages installed from a URL or a git source, remote
 * modules run directly) and shells that go out (reverse and bind shells, `/dev/tcp`, `nc -e`,
 * `socat exec:`), plus file servers that expose `/` or home, or listen beyond loopback.
 */

/** A package spec that is a URL, a git source or a tarball — not a registry name. */
function remoteSpec(spec: string): boolean {
  return (
    /^(?:git\+|git:|github:|gitlab:|bitbucket:|gist:|hg\+|svn\+|bzr\+)/.test(spec) ||
    /^(?:https?|ftp|file):\/\//.test(spec) ||
    /^[a-z0-9_.-]+\s*@\s*(?:git\+|https?:)/.test(spec) ||
    /^git@[^:]+:/.test(spec) ||
    /\.git(?:#.*)?$/.test(spec)
  );
}

/** npm's `user/repo` shorthand is a GitHub repository. */
function npmGithubShorthand(spec: string): boolean {
  return (
    /^[a-z0-9][a-z0-9_.-]*\/[a-z0-9_.-]+(?:#.*)?$/.test(spec) &&
    !spec.startsWith('@') &&
    !spec.startsWith('.')
  );
}

const PIP_INSTALL = new Set(['install', 'download', 'wheel']);

function pip(ctx: RuleContext): void {
  const ops = operands(ctx.seg.argl);
  if (!PIP_INSTALL.has(ops[0] ?? '')) return;
  if (ops.slice(1).some(remoteSpec) || editableRemote(ctx.seg.argl)) ctx.danger(DANGEROUS.remoteInstall);
}

function editableRemote(argl: readonly string[]): boolean {
  return argl.some((a, i) => (a === '-e' || a === '--editable') && remoteSpec(argl[i + 1] ?? ''));
}

/** `uv pip install git+…`, `uv tool install git+…`, `uv add git+…`, `uvx --from git+…`. */
function uv(ctx: RuleContext): void {
  const { argl } = ctx.seg;
  if (argl.some((a, i) => (a === '--from' || a === '--with') && remoteSpec(argl[i + 1] ?? '')))
    ctx.danger(DANGEROUS.remoteInstall);
  const ops = operands(argl);
  const installs =
    ops.includes('install') || ops.includes('add') || ops.includes('run') || ctx.seg.verb === 'uvx';
  if (installs && ops.some(remoteSpec)) ctx.danger(DANGEROUS.remoteInstall);
}

function pipx(ctx: RuleContext): void {
  const { argl } = ctx.seg;
  const ops = operands(argl);
  if ((ops[0] === 'install' || ops[0] === 'run' || ops[0] === 'inject') && ops.slice(1).some(remoteSpec))
    ctx.danger(DANGEROUS.remoteInstall);
  if (argl.some((a, i) => a === '--spec' && remoteSpec(argl[i + 1] ?? '')))
    ctx.danger(DANGEROUS.remoteInstall);
}

const NPM_INSTALL = new Set([
  'install',
  'i',
  'add',
  'isntall',
  'in',
  'ins',
  'inst',
  'insta',
  'instal',
  'exec',
  'x',
  'dlx',
  'create',
]);

function npm(ctx: RuleContext): void {
  const ops = operands(ctx.seg.argl);
  if (!NPM_INSTALL.has(ops[0] ?? '')) return;
  if (ops.slice(1).some((spec) => remoteSpec(spec) || npmGithubShorthand(spec)))
    ctx.danger(DANGEROUS.remoteInstall);
}

function cargo(ctx: RuleContext): void {
  const { argl } = ctx.seg;
  if (operands(argl)[0] === 'install' && argl.some((a) => a === '--git' || a.startsWith('--git=')))
    ctx.danger(DANGEROUS.remoteInstall);
}

function gem(ctx: RuleContext): void {
  const { argl } = ctx.seg;
  if (
    operands(argl)[0] === 'install' &&
    argl.some((a) => a === '--source' || a === '-s' || a.startsWith('--source='))
  )
    ctx.danger(DANGEROUS.remoteInstall);
}

/** `go install`/`go run`/`go get` of an explicit URL (module paths are the normal case and stay safe). */
function go(ctx: RuleContext): void {
  const ops = operands(ctx.seg.argl);
  if (
    (ops[0] === 'install' || ops[0] === 'run' || ops[0] === 'get') &&
    ops.slice(1).some((op) => /^(?:https?|git\+|file):\/\//.test(op))
  )
    ctx.danger(DANGEROUS.remoteInstall);
}

/** `deno run https://…` runs a remote module as it is fetched. */
function deno(ctx: RuleContext): void {
  const ops = operands(ctx.seg.argl);
  if (
    (ops[0] === 'run' || ops[0] === 'install' || ops[0] === 'compile') &&
    ops.slice(1).some((op) => /^(?:https?|npm|jsr):/.test(op) && op.startsWith('http'))
  )
    ctx.danger(DANGEROUS.downloadRun);
}

/** `npx github:u/r`, `npx https://…tgz`: npx is peeled as a wrapper, so the spec is the verb. */
export function wrappedRemotePackage(ctx: RuleContext): void {
  const { seg } = ctx;
  if (!seg.wrappers.some((w) => w.name === 'npx' || w.name === 'pnpx' || w.name === 'bunx')) return;
  const spec = seg.verbWord?.text.toLowerCase() ?? '';
  const options = seg.wrappers.flatMap((w) => w.options.map((o) => o.toLowerCase()));
  if (remoteSpec(spec) || npmGithubShorthand(spec) || options.some(remoteSpec))
    ctx.danger(DANGEROUS.remoteInstall);
}

/** `nc -e /bin/sh`, `ncat --exec`, `nc -c 'sh'`: a shell on the other end of a socket. */
function netcat(ctx: RuleContext): void {
  const { argv, argl } = ctx.seg;
  for (const arg of argl) {
    if (
      arg === '--exec' ||
      arg === '--sh-exec' ||
      arg === '--lua-exec' ||
      arg.startsWith('--exec=') ||
      arg.startsWith('--sh-exec=')
    ) {
      ctx.danger(DANGEROUS.reverseShell);
      return;
    }
  }
  if (argv.some((a) => /^-[a-zA-Z]*[ec]/.test(a) && !a.startsWith('--'))) ctx.danger(DANGEROUS.reverseShell);
}

/** `socat TCP:h:p EXEC:/bin/sh`, `socat tcp-listen:4444 system:bash`. */
function socat(ctx: RuleContext): void {
  if (operands(ctx.seg.argl).some((op) => /^(?:exec|system):/.test(op))) ctx.danger(DANGEROUS.reverseShell);
}

const REVERSE_OPS = new Set(['<>', '>&', '&>', '&>>', '<&']);

/** `bash -i >& /dev/tcp/h/p 0>&1`, `exec 5<>/dev/tcp/h/p`, `sh <&196` after opening a socket. */
export function devTcpRule(ctx: RuleContext): void {
  const seg = ctx.seg;
  for (const redirect of seg.redirects) {
    const target = redirect.target?.text.toLowerCase();
    if (target === undefined || !/^\/dev\/(?:tcp|udp)\//.test(target)) continue;
    if (
      REVERSE_OPS.has(redirect.op) ||
      seg.family === 'shell' ||
      seg.verb === 'exec' ||
      (seg.verb === '' && redirect.op !== '<')
    )
      ctx.danger(DANGEROUS.reverseShell);
  }
  if (
    seg.wrappers.some((w) => w.name === 'exec') &&
    seg.redirects.some((r) => r.target !== undefined && /^\/dev\/(?:tcp|udp)\//.test(r.target.text))
  )
    ctx.danger(DANGEROUS.reverseShell);
}

const SOCKET_API =
  /\bsocket\b|fsockopen|tcpsocket|io::socket|net\.socket|net\.connect|createconnection|socket\.socket|\bsocat\b/;
const SHELL_HANDOFF =
  /dup2|pty\.spawn|subprocess|\/bin\/(?:ba|z|da)?sh|child_process|\bexec\b|popen|proc_open|spawn|system\(/;

/** Inline programs that open a socket and hand it a shell: `python -c 'import socket,pty…'`. */
function inlineReverseShell(ctx: RuleContext): void {
  const spec = INTERPRETERS.get(ctx.seg.family);
  if (spec === undefined) return;
  const program = parseInterpreter(ctx.seg.argv, spec);
  for (const code of program.code) {
    const lower = code.toLowerCase();
    if (SOCKET_API.test(lower) && SHELL_HANDOFF.test(lower)) ctx.danger(DANGEROUS.reverseShell);
  }
  if (program.module === 'http.server' || program.module === 'simplehttpserver')
    httpServer(ctx, program.files);
  if (program.module === 'pip' || program.module === 'pipx' || program.module === 'uv') {
    const ops = operands(program.files);
    if (PIP_INSTALL.has(ops[0] ?? '') && (ops.slice(1).some(remoteSpec) || editableRemote(program.files)))
      ctx.danger(DANGEROUS.remoteInstall);
  }
}

function loopback(host: string): boolean {
  return /^(?:127\.|localhost$|::1$|\[::1\]$)/.test(host);
}

/** Directories whose whole content must not be served: `/`, home, a system directory. */
function broadDirectory(dir: string): boolean {
  const d = dir.replace(/\/+$/, '');
  return (
    d === '' ||
    d === '~' ||
    /^\/(?:etc|root|home|proc|var|usr)?$/.test(d) ||
    d.startsWith('~/.ssh') ||
    d.includes('.hermes-gateway')
  );
}

/** `python -m http.server [port] [-b ADDR] [-d DIR]`: all interfaces unless bound to loopback. */
function httpServer(ctx: RuleContext, args: readonly string[]): void {
  let bind: string | undefined;
  let dir: string | undefined;
  for (let i = 0; i < args.length; i += 1) {
    const arg = args[i] as string;
    if (arg === '-b' || arg === '--bind') bind = args[i + 1];
    else if (arg.startsWith('--bind=')) bind = arg.slice(7);
    else if (arg === '-d' || arg === '--directory') dir = args[i + 1];
    else if (arg.startsWith('--directory=')) dir = arg.slice(12);
  }
  if (bind === undefined || !loopback(bind) || (dir !== undefined && broadDirectory(dir)))
    ctx.danger(DANGEROUS.fileServer);
}

/** `php -S 0.0.0.0:8000`, `php -S host:port -t /`. */
function phpServer(ctx: RuleContext): void {
  const { argl } = ctx.seg;
  const at = argl.indexOf('-s');
  if (at < 0 || ctx.seg.argv[at] !== '-S') return;
  const host = (argl[at + 1] ?? '').split(':')[0] ?? '';
  const root = argl[argl.indexOf('-t') + 1];
  if (!loopback(host) || (argl.includes('-t') && root !== undefined && broadDirectory(root)))
    ctx.danger(DANGEROUS.fileServer);
}

/** `ruby -run -e httpd . -p 8000` (WEBrick on all interfaces). */
function rubyServer(ctx: RuleContext): void {
  const { argl } = ctx.seg;
  if (argl.some((a) => a === '-run' || a === '-rwebrick') && argl.includes('httpd')) {
    const bound = argl.findIndex((a) => a === '-b' || a === '--bind-address');
    if (bound < 0 || !loopback(argl[bound + 1] ?? '')) ctx.danger(DANGEROUS.fileServer);
  }
}

function busyboxHttpd(ctx: RuleContext): void {
  const { argl } = ctx.seg;
  if (!ctx.seg.wrappers.some((w) => w.name === 'busybox' || w.name === 'toybox')) return;
  const port = argl[argl.indexOf('-p') + 1];
  const home = argl[argl.indexOf('-h') + 1];
  if (
    !argl.includes('-p') ||
    port === undefined ||
    !loopback(port.split(':')[0] ?? '') ||
    (home !== undefined && broadDirectory(home))
  )
    ctx.danger(DANGEROUS.fileServer);
}

export const networkRules: readonly VerbRules[] = [
  { verbs: ['pip'], run: pip },
  { verbs: ['uv', 'uvx'], run: uv },
  { verbs: ['pipx'], run: pipx },
  { verbs: ['npm', 'pnpm', 'yarn', 'bun'], run: npm },
  { verbs: ['cargo'], run: cargo },
  { verbs: ['gem'], run: gem },
  { verbs: ['go'], run: go },
  { verbs: ['deno'], run: deno },
  { verbs: ['nc', 'ncat', 'netcat', 'cryptcat', 'pwncat'], run: netcat },
  { verbs: ['socat'], run: socat },
  { verbs: [...INTERPRETERS.keys()], run: inlineReverseShell },
  { verbs: ['php'], run: phpServer },
  { verbs: ['ruby'], run: rubyServer },
  { verbs: ['httpd'], run: busyboxHttpd },
];
