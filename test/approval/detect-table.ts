import { expect, it } from 'vitest';
import { type DetectOptions, detect } from '../../src/approval/detect.js';

/** A table row: command, expected verdict, and a key that must be among the findings (undefined: none). */
export type Row = readonly [
  command: string,
  verdict: 'hardline' | 'dangerous' | 'safe',
  key: string | undefined,
];

export const OPTIONS: DetectOptions = { homeDir: '/home/alice', hermesHome: '/home/alice/.hermes-gateway' };

/** One test per row. */
export function checkRows(rows: readonly Row[]): void {
  it.each(rows)('%j is %s (%s)', (command, verdict, key) => {
    const result = detect(command, OPTIONS);
    expect(result.verdict).toBe(verdict);
    const keys = result.findings.map((finding) => finding.key);
    if (key === undefined) expect(keys).toEqual([]);
    else expect(keys).toContain(key);
  });
}
