import { stripControlSequences } from './normalize-command.js';
import { globMatch } from './policy-glob.js';

/**
 * User deny rules (`approvals.deny`): case-insensitive globs refused in every mode, yolo
 * included. A rule is tried against the normalised whole command and against each simple
 * command at a command position, so `rm -rf *` also catches `cd build && rm -rf dist`.
 */
export function matchDenyRule(
  rules: readonly string[],
  command: string,
  segments: readonly string[],
): string | undefined {
  if (rules.length === 0) return undefined;
  const candidates = new Set<string>([normalizeForRules(command)]);
  for (const segment of segments) {
    const normalised = normalizeForRules(segment);
    if (normalised !== '') candidates.add(normalised);
  }
  for (const rule of rules) {
    const pattern = normalizeForRules(rule);
    if (pattern === '') continue;
    for (const candidate of candidates) {
      if (globMatch(pattern, candidate, { caseInsensitive: true })) return rule;
    }
  }
  return undefined;
}

/**
 * A light, rule-oriented normalisation: terminal escapes, NUL bytes and invisible format
 * characters removed, Unicode NFKC (full-width letters), backslash-newline continuations
 * joined, whitespace runs collapsed.
 */
export function normalizeForRules(text: string): string {
  return stripControlSequences(text)
    .normalize('NFKC')
    .replace(/\\\r?\n/g, '')
    .replace(/\s+/g, ' ')
    .trim();
}
