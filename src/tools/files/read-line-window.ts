import type { FileHandle } from 'node:fs/promises';

export interface WindowLine {
  readonly number: number;
  readonly text: string;
}

export interface LineWindowOptions {
  /** First line wanted, 1-based. */
  readonly offset: number;
  /** Lines wanted at most. */
  readonly limit: number;
  /** Characters kept per line; longer lines are cut and marked. */
  readonly maxLineChars: number;
  /** Characters of line text returned in total; the window ends early rather than exceed it. */
  readonly maxTotalChars: number;
  /** Bytes scanned at most to count the file's lines; beyond that the total stays unknown. */
  readonly maxCountBytes: number;
  readonly signal: AbortSignal;
}

export interface LineWindow {
  readonly lines: readonly WindowLine[];
  /** Total number of lines, or undefined when the file was too large to count. */
  readonly totalLines: number | undefined;
  /** True when the window stopped before `limit` lines because of `maxTotalChars`. */
  readonly cutByBudget: boolean;
}

const CHUNK_BYTES = 64 * 1024;
const NEWLINE = 0x0a;

/**
 * Reads lines `offset … offset+limit-1` of a UTF-8 file through a small buffer, never holding
 * more than the wanted lines in memory, then keeps scanning (newline counting only) to learn the
 * total. A line is `\n`-terminated; a trailing `\r` is dropped; a leading BOM is skipped.
 */
export async function readLineWindow(handle: FileHandle, options: LineWindowOptions): Promise<LineWindow> {
  const { offset, limit, maxLineChars, maxTotalChars, maxCountBytes, signal } = options;
  const lastWanted = offset + limit - 1;
  const maxLineBytes = maxLineChars * 4 + 4;
  const lines: WindowLine[] = [];
  const buffer = Buffer.alloc(CHUNK_BYTES);
  let lineNumber = 1;
  let parts: Buffer[] = [];
  let partBytes = 0;
  let lineBytes = 0;
  let lineHasContent = false;
  let usedChars = 0;
  let collecting = offset === 1;
  let cutByBudget = false;
  let scanned = 0;
  let position = 0;
  let firstChunk = true;

  const finishLine = (): void => {
    if (collecting) {
      let text = Buffer.concat(parts, partBytes).toString('utf8');
      if (text.endsWith('\r') && lineBytes === partBytes) text = text.slice(0, -1);
      if (text.length > maxLineChars || lineBytes > partBytes) {
        text = `${text.slice(0, maxLineChars)} … [line truncated: ${lineBytes} bytes in full]`;
      }
      if (lines.length > 0 && usedChars + text.length > maxTotalChars) {
        cutByBudget = true;
        collecting = false;
      } else {
        lines.push({ number: lineNumber, text });
        usedChars += text.length;
      }
    }
    lineNumber += 1;
    parts = [];
    partBytes = 0;
    lineBytes = 0;
    lineHasContent = false;
    if (!cutByBudget) collecting = lineNumber >= offset && lineNumber <= lastWanted;
  };

  const wantMore = (): boolean => collecting || (lineNumber < offset && !cutByBudget);

  for (;;) {
    signal.throwIfAborted();
    const { bytesRead } = await handle.read(buffer, 0, CHUNK_BYTES, position);
    if (bytesRead === 0) break;
    position += bytesRead;
    scanned += bytesRead;
    let start = 0;
    if (firstChunk) {
      firstChunk = false;
      if (buffer[0] === 0xef && buffer[1] === 0xbb && buffer[2] === 0xbf) start = 3;
    }
    while (start < bytesRead) {
      const newline = buffer.indexOf(NEWLINE, start);
      const end = newline === -1 || newline >= bytesRead ? bytesRead : newline;
      if (end > start) {
        lineHasContent = true;
        lineBytes += end - start;
        if (collecting && partBytes < maxLineBytes) {
          const take = Math.min(end - start, maxLineBytes - partBytes);
          parts.push(Buffer.from(buffer.subarray(start, start + take)));
          partBytes += take;
        }
      }
      if (end === bytesRead) break;
      finishLine();
      start = end + 1;
      if (!wantMore()) {
        // Window complete: count the remaining newlines without decoding anything.
        return await countRest(start, bytesRead);
      }
    }
  }
  if (lineHasContent) finishLine();
  return { lines, totalLines: lineNumber - 1, cutByBudget };

  async function countRest(from: number, filled: number): Promise<LineWindow> {
    let count = lineNumber - 1;
    let trailing = false;
    let begin = from;
    let length = filled;
    for (;;) {
      for (
        let at = buffer.indexOf(NEWLINE, begin);
        at !== -1 && at < length;
        at = buffer.indexOf(NEWLINE, at + 1)
      ) {
        count += 1;
      }
      if (length > begin) trailing = buffer[length - 1] !== NEWLINE;
      signal.throwIfAborted();
      const { bytesRead } = await handle.read(buffer, 0, CHUNK_BYTES, position);
      if (bytesRead === 0) break;
      if (scanned >= maxCountBytes) return { lines, totalLines: undefined, cutByBudget };
      position += bytesRead;
      scanned += bytesRead;
      begin = 0;
      length = bytesRead;
    }
    return { lines, totalLines: count + (trailing ? 1 : 0), cutByBudget };
  }
}
