import { isRemote, transferOperands } from './detect-path-uses.js';
import { operands, type Segment } from './shell-segment.js';
import type { ShellWord } from './shell-types.js';

/**
 * Network sinks: what a command sends out — files it uploads, its stdin, its arguments (URLs,
 * headers, DNS names) — for the exfiltration rules.
 */

/** What a network sink sends: files, its stdin, and its arguments (which may carry substitutions). */
export interface Upload {
  readonly files: { path: string; word: ShellWord | undefined; recursive: boolean }[];
  /** It sends what it reads on stdin (`nc host 80`, `curl -T -`, `ssh host 'cat > x'`). */
  readonly stdin: boolean;
  /** Its arguments reach the network (URLs, headers, DNS names): substitutions in them leak. */
  readonly argsLeak: boolean;
}

const CURL_DATA = new Set([
  '-d',
  '--data',
  '--data-ascii',
  '--data-binary',
  '--data-urlencode',
  '--json',
  '-F',
  '--form',
  '-T',
  '--upload-file',
]);

/** The file a curl data value names: `@file`, `name@file`, `name=@file;type=x`, `name=<file`. */
function curlFile(option: string, value: string): string | undefined {
  if (option === '-T' || option === '--upload-file') return value;
  if (option === '-F' || option === '--form') {
    const m = /^[^=]*=[@<]([^;]*)/.exec(value);
    return m?.[1];
  }
  if (value.startsWith('@')) return value.slice(1);
  if (option === '--data-urlencode') {
    const at = value.indexOf('@');
    const eq = value.indexOf('=');
    if (at > 0 && (eq < 0 || at < eq)) return value.slice(at + 1);
  }
  return undefined;
}

function curlUpload(seg: Segment): Upload {
  const { argv, args } = seg;
  const files: Upload['files'] = [];
  let stdin = false;
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i] as string;
    const eq = arg.startsWith('--') ? arg.indexOf('=') : -1;
    const name = eq < 0 ? arg : arg.slice(0, eq);
    let option: string | undefined;
    let value: string | undefined;
    let word: ShellWord | undefined;
    if (CURL_DATA.has(name)) {
      option = name;
      value = eq < 0 ? argv[i + 1] : arg.slice(eq + 1);
      word = eq < 0 ? args[i + 1] : args[i];
      if (eq < 0) i += 1;
    } else if (/^-[dFT]./.test(arg)) {
      option = arg.slice(0, 2);
      value = arg.slice(2);
      word = args[i];
    }
    if (option === undefined || value === undefined) continue;
    const file = curlFile(option, value);
    if (file === undefined) continue;
    if (file === '-' || file === '.' || file === '/dev/stdin') stdin = true;
    else files.push({ path: file.toLowerCase(), word, recursive: false });
  }
  return { files, stdin, argsLeak: true };
}

function wgetUpload(seg: Segment): Upload {
  const files: Upload['files'] = [];
  let stdin = false;
  seg.argl.forEach((arg, i) => {
    for (const option of ['--post-file', '--body-file']) {
      let value: string | undefined;
      if (arg.startsWith(`${option}=`)) value = arg.slice(option.length + 1);
      else if (arg === option) value = seg.argl[i + 1];
      if (value === undefined) continue;
      if (value === '-' || value === '/dev/stdin') stdin = true;
      else files.push({ path: value, word: seg.args[i], recursive: false });
    }
  });
  return { files, stdin, argsLeak: true };
}

/** scp/rsync/sftp: local sources go out when the destination is remote. */
function copyUpload(seg: Segment): Upload | undefined {
  const ops = transferOperands(seg);
  const dest = ops[ops.length - 1];
  if (dest === undefined || !isRemote(dest)) return undefined;
  const files = ops
    .slice(0, -1)
    .filter((p) => !isRemote(p))
    .map((path) => ({ path, word: undefined, recursive: true }));
  return { files, stdin: false, argsLeak: false };
}

/** `aws s3 cp SRC s3://…`, `gsutil cp`, `rclone copy`, `gh gist create FILE`. */
function cloudUpload(seg: Segment): Upload | undefined {
  const ops = operands(seg.argl);
  if (seg.verb === 'gh') {
    if (ops[0] !== 'gist' || ops[1] !== 'create') return undefined;
    const files = ops.slice(2);
    return {
      files: files.filter((f) => f !== '-').map((path) => ({ path, word: undefined, recursive: false })),
      stdin: files.length === 0 || files.includes('-'),
      argsLeak: false,
    };
  }
  if (seg.verb === 'rclone' && ops[0] === 'rcat') return { files: [], stdin: true, argsLeak: false };
  const at = ops.findIndex(
    (op) =>
      op === 'cp' ||
      op === 'mv' ||
      op === 'sync' ||
      op === 'copy' ||
      op === 'copyto' ||
      op === 'move' ||
      op === 'rsync',
  );
  if (at < 0) return undefined;
  const rest = ops.slice(at + 1);
  const dest = rest[rest.length - 1];
  if (dest === undefined || !isRemote(dest)) return undefined;
  const sources = rest.slice(0, -1);
  return {
    files: sources
      .filter((s) => s !== '-' && !isRemote(s))
      .map((path) => ({ path, word: undefined, recursive: true })),
    stdin: sources.includes('-'),
    argsLeak: false,
  };
}

/** httpie/xh: `@file` and `field=@file` arguments, and stdin. */
function httpieUpload(seg: Segment): Upload {
  const files: Upload['files'] = [];
  seg.argl.forEach((arg, i) => {
    const m = /^(?:[^=:@]*(?:=|:=))?@(.+)$/.exec(arg);
    if (m !== null) files.push({ path: m[1] as string, word: seg.args[i], recursive: false });
  });
  return { files, stdin: true, argsLeak: true };
}

function mailUpload(seg: Segment): Upload {
  const files: Upload['files'] = [];
  seg.argl.forEach((arg, i) => {
    if (arg === '-a' || arg === '-A' || arg === '--attach') {
      const path = seg.argl[i + 1];
      if (path !== undefined) files.push({ path, word: seg.args[i + 1], recursive: false });
    }
  });
  return { files, stdin: true, argsLeak: true };
}

/** `socat - TCP:host:port`, `socat FILE:x TCP:…`: file addresses it reads. */
function socatUpload(seg: Segment): Upload {
  const files: Upload['files'] = [];
  for (const arg of operands(seg.argl)) {
    const m = /^(?:file|open|gopen|create):([^,]+)/.exec(arg);
    if (m !== null) files.push({ path: m[1] as string, word: undefined, recursive: false });
  }
  return { files, stdin: true, argsLeak: true };
}

export const STREAM_CLIENTS: ReadonlySet<string> = new Set([
  'nc',
  'ncat',
  'netcat',
  'cryptcat',
  'telnet',
  'ssh',
  'gnutls-cli',
  'pwncat',
  'ftp',
  'lftp',
  'tftp',
  'smbclient',
]);
export const DNS_TOOLS: ReadonlySet<string> = new Set([
  'dig',
  'nslookup',
  'host',
  'drill',
  'kdig',
  'delv',
  'ping',
  'ping6',
  'traceroute',
  'resolvectl',
  'getent',
  'whois',
]);
export const MAILERS: ReadonlySet<string> = new Set([
  'mail',
  'mailx',
  'sendmail',
  'mutt',
  'msmtp',
  'ssmtp',
  'neomutt',
  's-nail',
]);

/** What `seg` sends over the network, or undefined when it is not a network sink. */
export function uploadOf(seg: Segment): Upload | undefined {
  const verb = seg.verb;
  if (verb === 'curl') return curlUpload(seg);
  if (verb === 'wget') return wgetUpload(seg);
  if (STREAM_CLIENTS.has(verb)) return { files: [], stdin: true, argsLeak: true };
  if (verb === 'openssl')
    return seg.argl.includes('s_client') ? { files: [], stdin: true, argsLeak: false } : undefined;
  if (verb === 'socat') return socatUpload(seg);
  if (verb === 'scp' || verb === 'rsync' || verb === 'sftp') return copyUpload(seg);
  if (
    verb === 'aws' ||
    verb === 'gsutil' ||
    verb === 'gcloud' ||
    verb === 'rclone' ||
    verb === 'gh' ||
    verb === 'az'
  )
    return cloudUpload(seg);
  if (verb === 'http' || verb === 'https' || verb === 'xh' || verb === 'xhs') return httpieUpload(seg);
  if (DNS_TOOLS.has(verb)) return { files: [], stdin: false, argsLeak: true };
  if (MAILERS.has(verb)) return mailUpload(seg);
  if (seg.redirects.some((r) => r.target !== undefined && /^\/dev\/(?:tcp|udp)\//.test(r.target.text))) {
    return { files: [], stdin: verb === 'cat' && operands(seg.argv).length === 0, argsLeak: false };
  }
  if (verb === 'xargs') {
    const inner = seg.argl.find((a) => !a.startsWith('-') && !/^\d+$/.test(a) && a !== '{}');
    if (
      inner !== undefined &&
      (inner === 'curl' || inner === 'wget' || DNS_TOOLS.has(inner) || STREAM_CLIENTS.has(inner))
    )
      return { files: [], stdin: true, argsLeak: false };
  }
  return undefined;
}
