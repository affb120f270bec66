import { DANGEROUS, HARDLINE } from './detect-keys.js';

/** Rules applied to a whole script text rather than to one command. */

const METADATA_ENDPOINTS = [
  '169.254.169.254',
  '169.254.170.2',
  '100.100.100.200',
  'metadata.google.internal',
  'fd00:ec2::254',
  '2852039166',
  '0xa9fea9fe',
];
const HERMES_SECRETS_WINDOWS = /\\\.hermes(?:-gateway)?\\(?:\.env|config\.yaml)/;

export interface TextFindings {
  hardline(key: string): void;
  danger(key: string): void;
}

/** Replaces quoted characters with `_` so prose inside quotes cannot look like syntax. */
function maskQuoted(text: string): string {
  let out = '';
  let quote = '';
  let from = 0;
  for (let i = 0; i < text.length; i += 1) {
    const c = text[i];
    if (quote === '') {
      if (c === '\\') i += 1;
      else if (c === '"' || c === "'") {
        quote = c;
        out += text.slice(from, i + 1);
        from = i + 1;
      }
    } else if (c === '\\' && quote === '"') {
      i += 1;
    } else if (c === quote) {
      out += '_'.repeat(Math.max(0, i - from));
      from = i;
      quote = '';
    }
  }
  out += quote === '' ? text.slice(from) : '_'.repeat(text.length - from);
  return out;
}

function isBombNameChar(c: string | undefined): boolean {
  return c !== undefined && /[A-Za-z0-9_:.-]/.test(c);
}

/** `NAME(){ NAME|NAME& };NAME` in any spacing, outside quotes. */
export function hasForkBomb(text: string): boolean {
  if (!text.includes('(') || !text.includes('|') || !text.includes('{')) return false;
  const compact = maskQuoted(text).replace(/\s+/g, '');
  let at = compact.indexOf('(){');
  while (at >= 0) {
    let start = at;
    while (start > 0 && at - start < 64 && isBombNameChar(compact[start - 1])) start -= 1;
    const name = compact.slice(start, at);
    const window = compact.slice(at + 3, at + 515);
    const close = window.indexOf('}');
    if (name !== '' && close >= 0) {
      const body = window.slice(0, close);
      if (body.includes(`${name}|${name}`) && body.includes('&')) return true;
    }
    at = compact.indexOf('(){', at + 3);
  }
  return false;
}

export function textRules(text: string, sink: TextFindings): void {
  if (hasForkBomb(text)) sink.hardline(HARDLINE.forkBomb);
  const lower = text.toLowerCase();
  if (METADATA_ENDPOINTS.some((endpoint) => lower.includes(endpoint))) sink.danger(DANGEROUS.cloudMetadata);
  if (lower.includes('\\')) {
    let at = lower.indexOf('\\.ssh');
    while (at >= 0) {
      const next = lower[at + 5];
      if (next === undefined || !/[a-z0-9_-]/.test(next)) {
        sink.danger(DANGEROUS.winSshKeys);
        break;
      }
      at = lower.indexOf('\\.ssh', at + 5);
    }
    if (HERMES_SECRETS_WINDOWS.test(lower)) sink.danger(DANGEROUS.winHermesSecrets);
  }
}
