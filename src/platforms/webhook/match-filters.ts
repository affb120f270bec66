import { lookupPath, type WebhookEvent } from './payload-path.js';

export type FilterValue = string | number | boolean;

/**
 * True when the delivery matches every filter: the value at each path must be a string, number
 * or boolean equal (compared as text) to the filter's value or to one of its values. A missing
 * path, an object or an array never matches.
 */
export function matchFilters(
  event: WebhookEvent,
  filters: Readonly<Record<string, FilterValue | readonly FilterValue[]>>,
): boolean {
  for (const [path, expected] of Object.entries(filters)) {
    const found = lookupPath(event, path);
    if (!found.found) return false;
    const value = found.value;
    if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') return false;
    const accepted = (Array.isArray(expected) ? expected : [expected]) as readonly FilterValue[];
    if (!accepted.some((candidate) => String(candidate) === String(value))) return false;
  }
  return true;
}
