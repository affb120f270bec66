import type { RuleContext } from './detect-context.js';
import { DANGEROUS } from './detect-keys.js';
import { type Segment, shortLetters } from './shell-segment.js';
import type { ShellWord } from './shell-types.js';

/**
 * Remote fetchers and decoders whose output a shell runs through a substitution
 * (`bash <(curl …)`, `eval "$(curl …)"`, `sh -c "$(echo … | base64 -d)"`).
 */

export const REMOTE_FETCHERS: ReadonlySet<string> = new Set([
  'curl',
  'wget',
  'fetch',
  'http',
  'https',
  'xh',
  'aria2c',
  'lwp-request',
  'iwr',
  'irm',
  'invoke-webrequest',
  'invoke-restmethod',
]);

function substitutionsOf(seg: Segment): { word: ShellWord; process: boolean }[] {
  const out: { word: ShellWord; process: boolean }[] = [];
  for (const word of seg.args) if (word.subs.length > 0) out.push({ word, process: false });
  for (const redirect of seg.redirects) {
    if (redirect.target !== undefined && redirect.target.subs.length > 0)
      out.push({ word: redirect.target, process: true });
  }
  return out;
}

/** The obfuscation family of a decoding stage (`base64 -d`, `xxd -r`, `tr`, `openssl … -d`). */
export function decoderKey(seg: Segment): string | undefined {
  const { verb, argv, argl } = seg;
  if (verb === 'base64' || verb === 'base32' || verb === 'base16' || verb === 'basenc') {
    const decodes =
      argv.some((arg) => arg === '--decode' || arg === '-D') || shortLetters(argv).includes('d');
    return decodes ? DANGEROUS.decodePipe : undefined;
  }
  if (verb === 'xxd')
    return shortLetters(argv).includes('r') || argl.includes('--revert') ? DANGEROUS.xxdPipe : undefined;
  if (verb === 'tr') return DANGEROUS.trPipe;
  if (verb === 'openssl' && (argl.includes('enc') || argl.includes('base64')) && argl.includes('-d')) {
    return DANGEROUS.opensslPipe;
  }
  return undefined;
}

/**
 * Substitutions whose output a shell runs: `bash <(curl …)`, `eval "$(curl …)"`,
 * `sh -c "$(wget -O- …)"`, `source <(curl …)`, `eval "$(echo … | base64 -d)"`.
 */
export function substitutedSources(ctx: RuleContext): void {
  for (const { word } of substitutionsOf(ctx.seg)) {
    for (const sub of word.subs) {
      for (const inner of ctx.segmentsOf(sub.list)) {
        if (REMOTE_FETCHERS.has(inner.verb)) {
          ctx.danger(sub.kind === 'process-in' ? DANGEROUS.remoteProcSubst : DANGEROUS.remoteCmdSubst);
        }
        const decoder = decoderKey(inner);
        if (decoder !== undefined) ctx.danger(decoder);
      }
    }
  }
}
