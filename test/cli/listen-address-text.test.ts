import { describe, expect, it } from 'vitest';
import { listenAddressText } from '../../src/cli/listen-address-text.js';

describe('the banner http line', () => {
  it('shows the address as is for a specific host', () => {
    expect(listenAddressText('127.0.0.1', 'http://127.0.0.1:8642')).toBe(
      'http://127.0.0.1:8642  (OpenAI API at http://127.0.0.1:8642/v1)',
    );
    expect(listenAddressText('10.0.0.5', 'http://10.0.0.5:9000')).not.toContain('all interfaces');
  });

  it('says when every interface is bound (fastify reports only 127.0.0.1)', () => {
    expect(listenAddressText('0.0.0.0', 'http://127.0.0.1:8642')).toBe(
      'http://127.0.0.1:8642  (OpenAI API at http://127.0.0.1:8642/v1), listening on all interfaces (0.0.0.0:8642)',
    );
    expect(listenAddressText('::', 'http://[::1]:8642')).toContain('listening on all interfaces ([::]:8642)');
  });
});
