import { describe, expect, it } from 'vitest';
import { type HermesError, isHermesError } from '../../../src/errors/hermes-error.js';
import { createSsrfGuard, type ResolveHost } from '../../../src/tools/web/ssrf-guard.js';

/** A resolver answering from a table, so tests never depend on real DNS. */
const table =
  (entries: Record<string, readonly string[]>): ResolveHost =>
  async (hostname) => {
    const found = entries[hostname];
    if (found === undefined) throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
    return found;
  };

function refusal(run: () => void): HermesError {
  try {
    run();
  } catch (error) {
    if (isHermesError(error)) return error;
    throw error;
  }
  throw new Error('expected a refusal');
}

async function asyncRefusal(run: () => Promise<unknown>): Promise<HermesError> {
  try {
    await run();
  } catch (error) {
    if (isHermesError(error)) return error;
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('checkUrl', () => {
  const guard = createSsrfGuard({ allowPrivate: [] });

  it.each([
    ['file:///etc/passwd', 'only http and https'],
    ['ftp://example.com/x', 'only http and https'],
    ['gopher://127.0.0.1:6379/_PING', 'only http and https'],
    ['http://user:secret@example.com/', 'embedded credentials'],
    ['http://metadata.google.internal/computeMetadata/v1/', 'cloud metadata'],
    ['http://169.254.169.254/latest/meta-data/', 'cloud metadata'],
    ['http://[fd00:ec2::254]/', 'cloud metadata'],
    ['http://100.100.100.200/', 'cloud metadata'],
    ['http://127.0.0.1/', 'loopback'],
    ['http://2130706433/', 'loopback'],
    ['http://0x7f.1/', 'loopback'],
    ['http://[::1]:8080/', 'loopback'],
    ['http://[::ffff:127.0.0.1]/', 'IPv4-mapped loopback'],
    ['http://0.0.0.0/', 'unspecified'],
    ['http://[::]/', 'unspecified'],
    ['http://10.0.0.5/', 'private'],
    ['http://192.168.1.1/', 'private'],
    ['http://172.20.0.1/', 'private'],
    ['http://[fc00::5]/', 'unique-local'],
    ['http://169.254.10.10/', 'link-local'],
    ['http://[fe80::1]/', 'link-local'],
    ['http://100.64.1.1/', 'carrier-grade NAT'],
    ['http://224.0.0.251/', 'multicast'],
  ])('refuses %s', (url, why) => {
    const error = refusal(() => guard.checkUrl(new URL(url)));
    expect(error.code).toBe('ssrf_refused');
    expect(error.message).toContain(why);
  });

  it('lets public addresses and names through (names are checked at connect time)', () => {
    expect(() => guard.checkUrl(new URL('https://93.184.216.34/'))).not.toThrow();
    expect(() => guard.checkUrl(new URL('https://example.com/path?q=1'))).not.toThrow();
    expect(() => guard.checkUrl(new URL('http://localhost:3000/'))).not.toThrow();
  });

  it('opens exactly what the allowlist names, port included', () => {
    const open = createSsrfGuard({ allowPrivate: ['127.0.0.1:8080', '10.0.0.0/8'] });
    expect(() => open.checkUrl(new URL('http://127.0.0.1:8080/'))).not.toThrow();
    expect(() => open.checkUrl(new URL('http://10.20.30.40/'))).not.toThrow();
    expect(refusal(() => open.checkUrl(new URL('http://127.0.0.1:8081/'))).code).toBe('ssrf_refused');
    expect(refusal(() => open.checkUrl(new URL('http://127.0.0.1/'))).code).toBe('ssrf_refused');
  });

  it('never opens cloud metadata, even when an allowlist range covers it', () => {
    const open = createSsrfGuard({
      allowPrivate: ['169.254.0.0/16', '169.254.169.254', 'metadata.google.internal'],
    });
    expect(refusal(() => open.checkUrl(new URL('http://169.254.169.254/'))).message).toContain(
      'always blocked',
    );
    expect(refusal(() => open.checkUrl(new URL('http://metadata.google.internal/'))).code).toBe(
      'ssrf_refused',
    );
    expect(() => open.checkUrl(new URL('http://169.254.1.1/'))).not.toThrow();
  });
});

describe('resolveTarget (after DNS resolution)', () => {
  const resolveHost = table({
    'public.test': ['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946'],
    'rebind.test': ['127.0.0.1'],
    'mixed.test': ['93.184.216.34', '10.0.0.7'],
    'mapped.test': ['::ffff:192.168.0.1'],
    'meta.test': ['169.254.169.254'],
    'app.test': ['127.0.0.1'],
    'weird.test': ['not-an-ip'],
    'empty.test': [],
  });

  it('returns every checked address of a public name', async () => {
    const guard = createSsrfGuard({ allowPrivate: [], resolveHost });
    await expect(guard.resolveTarget('public.test', 443)).resolves.toEqual([
      '93.184.216.34',
      '2606:2800:220:1:248:1893:25c8:1946',
    ]);
  });

  it.each([
    ['rebind.test', 'it resolves to 127.0.0.1, which is a loopback address'],
    ['mixed.test', 'it resolves to 10.0.0.7, which is a private address'],
    ['mapped.test', 'IPv4-mapped private'],
    ['meta.test', 'cloud metadata'],
    ['weird.test', 'not an IP address'],
  ])('refuses %s', async (host, why) => {
    const guard = createSsrfGuard({ allowPrivate: [], resolveHost });
    const error = await asyncRefusal(() => guard.resolveTarget(host, 80));
    expect(error.code).toBe('ssrf_refused');
    expect(error.message).toContain(why);
  });

  it('reports names that do not resolve as fetch failures', async () => {
    const guard = createSsrfGuard({ allowPrivate: [], resolveHost });
    expect((await asyncRefusal(() => guard.resolveTarget('nowhere.test', 80))).code).toBe('fetch_failed');
    expect((await asyncRefusal(() => guard.resolveTarget('empty.test', 80))).code).toBe('fetch_failed');
  });

  it('checks address literals handed to the connector too', async () => {
    const guard = createSsrfGuard({ allowPrivate: [], resolveHost });
    expect((await asyncRefusal(() => guard.resolveTarget('[::1]', 80))).code).toBe('ssrf_refused');
    await expect(guard.resolveTarget('8.8.8.8', 53)).resolves.toEqual(['8.8.8.8']);
  });

  it('host-name entries trust the name (with its port), address entries the address', async () => {
    const byName = createSsrfGuard({ allowPrivate: ['app.test:8080'], resolveHost });
    await expect(byName.resolveTarget('app.test', 8080)).resolves.toEqual(['127.0.0.1']);
    expect((await asyncRefusal(() => byName.resolveTarget('app.test', 8081))).code).toBe('ssrf_refused');
    expect((await asyncRefusal(() => byName.resolveTarget('rebind.test', 8080))).code).toBe('ssrf_refused');

    const byAddress = createSsrfGuard({ allowPrivate: ['127.0.0.0/8'], resolveHost });
    await expect(byAddress.resolveTarget('rebind.test', 1234)).resolves.toEqual(['127.0.0.1']);
    expect((await asyncRefusal(() => byAddress.resolveTarget('mixed.test', 80))).code).toBe('ssrf_refused');

    const metaByName = createSsrfGuard({ allowPrivate: ['meta.test'], resolveHost });
    expect((await asyncRefusal(() => metaByName.resolveTarget('meta.test', 80))).message).toContain(
      'always blocked',
    );
  });

  it('uses the system resolver by default: localhost is refused after resolution', async () => {
    const guard = createSsrfGuard({ allowPrivate: [] });
    const error = await asyncRefusal(() => guard.resolveTarget('localhost', 80));
    expect(error.code).toBe('ssrf_refused');
    expect(error.message).toMatch(/loopback/);
  });
});
