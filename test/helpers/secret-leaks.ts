/**
 * An oracle independent of the scrubber: decodes whatever in a text could be base64, hex or
 * percent-encoding and reports in which spellings a secret can still be read.
 */

function decodesTo(buffer: Buffer, secret: Buffer): boolean {
  return buffer.includes(secret);
}

/** Every base64 run decoded at each of the 4 character offsets (a redaction may cut a stream anywhere). */
function base64Leak(compacted: string, secret: Buffer, alphabet: RegExp, urlSafe: boolean): boolean {
  for (const match of compacted.matchAll(alphabet)) {
    const run = match[0];
    for (let shift = 0; shift < 4; shift += 1) {
      let piece = run.slice(shift);
      piece = piece.slice(0, piece.length - (piece.length % 4));
      if (piece.length < 4) continue;
      const decoded = Buffer.from(urlSafe ? piece.replace(/-/g, '+').replace(/_/g, '/') : piece, 'base64');
      if (decodesTo(decoded, secret)) return true;
    }
  }
  return false;
}

function hexLeak(compacted: string, secret: Buffer): boolean {
  for (const match of compacted.matchAll(/[0-9a-fA-F]{4,}/g)) {
    for (const shift of [0, 1]) {
      const piece = match[0].slice(shift);
      if (decodesTo(Buffer.from(piece.slice(0, piece.length - (piece.length % 2)), 'hex'), secret))
        return true;
    }
  }
  return false;
}

function percentDecoded(text: string): string {
  return text.replace(/\+/g, ' ').replace(/(?:%[0-9a-fA-F]{2})+/g, (run) => {
    try {
      return decodeURIComponent(run);
    } catch {
      return run;
    }
  });
}

/** The spellings (`raw`, `base64`, `base64url`, `hex`, `url`) in which `secret` can be read in `text`. */
export function secretLeaks(text: string, secret: string): string[] {
  const bytes = Buffer.from(secret, 'utf8');
  const compacted = text.replace(/\\[nrt]/g, '').replace(/\s+/g, '');
  const leaks: string[] = [];
  if (compacted.includes(secret.replace(/\s+/g, ''))) leaks.push('raw');
  if (base64Leak(compacted, bytes, /[A-Za-z0-9+/]{4,}/g, false)) leaks.push('base64');
  if (base64Leak(compacted, bytes, /[A-Za-z0-9_-]{4,}/g, true)) leaks.push('base64url');
  if (hexLeak(compacted, bytes)) leaks.push('hex');
  if (percentDecoded(text).includes(secret)) leaks.push('url');
  return leaks;
}

/**
 * Like `secretLeaks`, for dump-shaped output (`xxd`, `hexdump -C`, `od` with offsets): offsets are
 * dropped, the data columns read as one stream and the ASCII columns as another.
 */
export function dumpLeaks(text: string, secret: string): string[] {
  const data: string[] = [];
  const ascii: string[] = [];
  for (const line of text.split('\n')) {
    const row = /^[0-9a-fA-F]{6,8}:?\s+(.*)$/.exec(line);
    if (row === null) continue;
    let rest = row[1] as string;
    const piped = /\|(.*)\|\s*$/.exec(rest);
    const gap = /^(?:[0-9a-fA-F]{2,4} ?)+? {2,}/.exec(rest);
    if (piped !== null) {
      ascii.push(piped[1] as string);
      rest = rest.slice(0, piped.index);
    } else if (gap !== null) {
      ascii.push(rest.slice(gap[0].length));
      rest = gap[0];
    }
    data.push(rest);
  }
  const leaks = secretLeaks(data.join(' '), secret).map((leak) => `dump ${leak}`);
  if (ascii.join('').includes(secret)) leaks.push('dump ascii');
  return leaks;
}
