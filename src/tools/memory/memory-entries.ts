/**
 * The on-disk form of a memory file: entries separated by a line holding only `§` (as in
 * Hermes), so the files stay readable and editable by hand.
 */
export const ENTRY_DELIMITER = '\n§\n';

/** Length in characters (code points), the unit of the size caps. */
export function charCount(text: string): number {
  let count = 0;
  for (const _ of text) count += 1;
  return count;
}

/** Size of a list of entries as stored: the entries plus the delimiters between them. */
export function entriesSize(entries: readonly string[]): number {
  return charCount(entries.join(ENTRY_DELIMITER));
}

/**
 * Splits a file into entries. Any line that is `§` alone (surrounding blanks allowed) ends an
 * entry; entries are trimmed, empty ones dropped and exact repeats kept once, so a hand-edited
 * file is read as leniently as possible.
 */
export function parseEntries(text: string): string[] {
  const entries: string[] = [];
  let current: string[] = [];
  const flush = (): void => {
    const entry = current.join('\n').trim();
    if (entry !== '' && !entries.includes(entry)) entries.push(entry);
    current = [];
  };
  for (const line of text.replace(/\r\n?/g, '\n').split('\n')) {
    if (line.trim() === '§') flush();
    else current.push(line);
  }
  flush();
  return entries;
}

export function serializeEntries(entries: readonly string[]): string {
  return entries.length === 0 ? '' : `${entries.join(ENTRY_DELIMITER)}\n`;
}

/** Removes exact repeats, keeping the first occurrence. */
export function uniqueEntries(entries: readonly string[]): string[] {
  return [...new Set(entries)];
}

/** `1,052/2,200 chars (48%)` */
export function formatUsage(used: number, limit: number): string {
  const percent = limit > 0 ? Math.min(100, Math.round((used / limit) * 100)) : 100;
  return `${used.toLocaleString('en-US')}/${limit.toLocaleString('en-US')} chars (${percent}%)`;
}

/** A one-line preview of an entry for error messages and candidate lists. */
export function previewEntry(entry: string, max = 80): string {
  const flat = entry.replace(/\s+/g, ' ');
  const chars = [...flat];
  return chars.length <= max ? flat : `${chars.slice(0, max - 1).join('')}…`;
}

/** `  1. first entry…` lines, for messages that ask the model to pick an entry. */
export function listPreviews(entries: readonly string[]): string {
  return entries.map((entry, index) => `  ${index + 1}. ${previewEntry(entry)}`).join('\n');
}
