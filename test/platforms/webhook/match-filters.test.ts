import { describe, expect, it } from 'vitest';
import { matchFilters } from '../../../src/platforms/webhook/match-filters.js';
import { lookupPath, visibleHeaders } from '../../../src/platforms/webhook/payload-path.js';

const event = {
  payload: {
    action: 'opened',
    number: 7,
    merged: true,
    labels: [{ name: 'bug' }],
    repository: { name: 'x' },
  },
  headers: { 'x-github-event': 'pull_request' },
};

describe('matchFilters', () => {
  it('matches one value or one of several, and headers', () => {
    expect(matchFilters(event, {})).toBe(true);
    expect(matchFilters(event, { action: ['opened', 'reopened'] })).toBe(true);
    expect(matchFilters(event, { action: 'opened', 'headers.x-github-event': 'pull_request' })).toBe(true);
    expect(matchFilters(event, { action: 'closed' })).toBe(false);
    expect(matchFilters(event, { 'headers.x-github-event': 'issues' })).toBe(false);
  });

  it('compares numbers and booleans as text, and indexes arrays', () => {
    expect(matchFilters(event, { number: 7 })).toBe(true);
    expect(matchFilters(event, { number: '7' })).toBe(true);
    expect(matchFilters(event, { merged: true })).toBe(true);
    expect(matchFilters(event, { 'labels.0.name': 'bug' })).toBe(true);
  });

  it('never matches a missing path or an object', () => {
    expect(matchFilters(event, { 'sender.login': 'x' })).toBe(false);
    expect(matchFilters(event, { repository: '[object Object]' })).toBe(false);
  });
});

describe('lookupPath and visibleHeaders', () => {
  it('reads own keys only', () => {
    expect(lookupPath(event, 'constructor')).toEqual({ found: false });
    expect(lookupPath(event, 'labels.length')).toEqual({ found: false });
    expect(lookupPath(event, 'action..x')).toEqual({ found: false });
    expect(lookupPath({ payload: ['a', 'b'], headers: {} }, '1')).toEqual({ found: true, value: 'b' });
  });

  it('hides credentials and signatures from templates and filters', () => {
    const visible = visibleHeaders({
      authorization: 'Bearer s',
      'x-hub-signature-256': 'sha256=..',
      'webhook-signature': 'v1,..',
      'X-GitHub-Event': 'push',
      'x-multi': ['a', 'b'],
    });
    expect(visible).toEqual({ 'x-github-event': 'push', 'x-multi': 'a, b' });
  });
});
