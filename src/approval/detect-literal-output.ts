import { operands, type Segment } from './shell-segment.js';
import { decodeAnsiC } from './shell-word-builder.js';

/** What a command prints when the command itself shows it (`echo`, `printf`, `cat <<EOF`). */

/** Heredoc and here-string bodies fed to a command's stdin. */
export function heredocBodies(seg: Segment): string[] {
  const out: string[] = [];
  for (const redirect of seg.redirects) {
    if (
      redirect.body !== undefined &&
      (redirect.op === '<<' || redirect.op === '<<-' || redirect.op === '<<<')
    ) {
      out.push(redirect.body);
    }
  }
  return out;
}

/** Decodes echo -e / printf style backslash escapes (`\\x72` → `r`). */
export function decodeEscapes(text: string): string {
  return text.includes('\\') ? decodeAnsiC(`${text.replaceAll("'", "\\'")}'`, 0).text : text;
}

/** What a stage writes to stdout when that is visible in the command itself. */
export function literalOutput(seg: Segment): string[] | undefined {
  if (seg.verb === 'echo') {
    let i = 0;
    while (i < seg.argv.length && /^-[neE]+$/.test(seg.argv[i] as string)) i += 1;
    const text = seg.argv.slice(i).join(' ');
    const decoded = decodeEscapes(text);
    return decoded === text ? [text] : [text, decoded];
  }
  if (seg.verb === 'printf') {
    const args = seg.argv[0] === '--' ? seg.argv.slice(1) : seg.argv;
    const [format, ...rest] = args;
    if (format === undefined || format === '-v') return undefined;
    return [printfOutput(format, rest)];
  }
  if (seg.verb === 'cat' && operands(seg.argv).length === 0) {
    const bodies = heredocBodies(seg);
    return bodies.length > 0 ? bodies : undefined;
  }
  return undefined;
}

const CONVERSION = /%([-+ #0]*[0-9]*(?:\.[0-9]*)?)([sbdiouxXcqfeEgG%])/g;

/** What `printf FORMAT ARGS…` prints: the format is reused until the arguments run out. */
export function printfOutput(format: string, args: readonly string[]): string {
  const template = decodeEscapes(format);
  let out = '';
  let next = 0;
  for (let round = 0; round < 64; round += 1) {
    let used = 0;
    out += template.replace(CONVERSION, (_match, _flags: string, kind: string) => {
      if (kind === '%') return '%';
      used += 1;
      const arg = args[next++] ?? '';
      return kind === 'b' ? decodeEscapes(arg) : arg;
    });
    if (used === 0 || next >= args.length) break;
  }
  return out;
}
