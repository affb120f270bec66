import { describe, expect, it } from 'vitest';
import { type DetectOptions, detect } from '../../src/approval/detect.js';

/** Expected verdict of one command; dangerous and hardline rows name the key that must be found. */
export type FamilyRow =
  | readonly [command: string, verdict: 'safe']
  | readonly [command: string, verdict: 'dangerous' | 'hardline', key: string];

/** Home and HERMES_HOME the family tables are written against. */
export const FAMILY_OPTIONS: DetectOptions = {
  homeDir: '/home/alice',
  hermesHome: '/home/alice/.hermes-gateway',
};

/**
 * One table-driven suite: every row's verdict must be exactly the expected one, a non-safe row
 * must carry its key at the row's tier, and a safe row must have no finding at all.
 */
export function familyTable(
  family: string,
  rows: readonly FamilyRow[],
  options: DetectOptions = FAMILY_OPTIONS,
): void {
  describe(`detect family: ${family}`, () => {
    const cases = rows.map((row) => ({ command: row[0], verdict: row[1], key: row[2] ?? 'no finding' }));
    it.each(cases)('$command is $verdict ($key)', ({ command, verdict, key }) => {
      const result = detect(command, options);
      expect(result.verdict).toBe(verdict);
      if (verdict === 'safe') {
        expect(result.findings).toEqual([]);
        return;
      }
      const finding = result.findings.find((f) => f.key === key);
      expect(finding, `findings: ${result.findings.map((f) => f.key).join(' | ')}`).toBeDefined();
      expect(finding?.tier).toBe(verdict);
    });
  });
}
