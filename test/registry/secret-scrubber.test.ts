import { execFileSync } from 'node:child_process';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AhoCorasick } from '../../src/lib/aho-corasick.js';
import { base64Core, secretForms } from '../../src/registry/secret-forms.js';
import { SecretScrubber } from '../../src/registry/secret-scrubber.js';
import { dumpLeaks, secretLeaks } from '../helpers/secret-leaks.js';

const DB_PASSWORD = 'Sup3r-S3cret/Pw+x=';
const TOKEN = 'tok_9fQ2mZx81LkPw0aa';
const ENV_FILE = `# service settings\nDATABASE_URL=postgres://app:${DB_PASSWORD}@db.internal:5432/app\nMY_SERVICE_TOKEN=${TOKEN}\nLOG_LEVEL=info\n`;

/** Runs a real program on `input` (the encoders people pipe secrets through). */
function run(file: string, args: readonly string[], input: string): string {
  return execFileSync(file, [...args], { input, encoding: 'utf8' });
}

const scrubber = new SecretScrubber([
  `postgres://app:${DB_PASSWORD}@db.internal:5432/app`,
  DB_PASSWORD,
  TOKEN,
]);

/** Every way the secret can be read back from `text`, raw, encoded or from a dump. */
function leaks(text: string, secret: string): string[] {
  return [...secretLeaks(text, secret), ...dumpLeaks(text, secret)];
}

function expectNoLeak(text: string): void {
  const scrubbed = scrubber.scrub(text);
  expect(leaks(scrubbed, DB_PASSWORD)).toEqual([]);
  expect(leaks(scrubbed, TOKEN)).toEqual([]);
}

describe('AhoCorasick', () => {
  it('finds overlapping and nested patterns as merged ranges', () => {
    const matcher = new AhoCorasick(['he', 'she', 'hers', 'his']);
    expect(matcher.ranges('ushers and his')).toEqual([
      [1, 6],
      [11, 14],
    ]);
    expect(new AhoCorasick(['bcd', 'abcdef']).ranges('xabcdefx')).toEqual([[1, 7]]);
    expect(new AhoCorasick([]).ranges('anything')).toEqual([]);
  });
});

describe('secretForms', () => {
  it('the base64 cores appear in the encoding of any text holding the value, at any offset', () => {
    const value = Buffer.from('0123456789abcdef');
    for (const prefix of ['', 'x', 'xy', 'xyz']) {
      const encoded = Buffer.concat([Buffer.from(prefix), value, Buffer.from('tail')]).toString('base64');
      const offset = (prefix.length % 3) as 0 | 1 | 2;
      expect(encoded).toContain(base64Core(value, offset));
    }
  });

  it('has no encoded forms for a short value', () => {
    expect(secretForms('abcd')).toEqual(['abcd']);
  });
});

describe('SecretScrubber', () => {
  it('blanks the raw value and leaves other text alone', () => {
    expect(scrubber.scrub(`token is ${TOKEN}.`)).toBe('token is [redacted].');
    expect(scrubber.scrub('nothing secret here\n  at all')).toBe('nothing secret here\n  at all');
  });

  it.each([
    ['cat', 'cat', []],
    ['base64 (wrapped at 76)', 'base64', []],
    ['base64 -w0', 'base64', ['-w0']],
    ['base64 -w 13 (odd wrap)', 'base64', ['-w', '13']],
    ['xxd -p', 'xxd', ['-p']],
    ['xxd -p -u', 'xxd', ['-p', '-u']],
    ['xxd (offsets and an ASCII column)', 'xxd', []],
    ['hexdump -C', 'hexdump', ['-C']],
    ['od -A n -t x1', 'od', ['-A', 'n', '-t', 'x1']],
    ['od -t x1 (with offsets)', 'od', ['-t', 'x1']],
    ['od -c', 'od', ['-c']],
  ])('no secret of the file survives %s', (_label, file, args) => {
    const printed = run(file, args as string[], ENV_FILE);
    expect(leaks(printed, DB_PASSWORD).length).toBeGreaterThan(0);
    expectNoLeak(printed);
  });

  it('catches base64 of the file prefixed by 0, 1 or 2 bytes, standard and URL-safe', () => {
    for (const prefix of ['', 'a', 'ab']) {
      const encoded = Buffer.from(prefix + ENV_FILE).toString('base64');
      expectNoLeak(encoded);
      expectNoLeak(encoded.replace(/\+/g, '-').replace(/\//g, '_'));
    }
  });

  it('catches URL-encoded forms (upper and lower hex, + for spaces)', () => {
    expectNoLeak(`q=${encodeURIComponent(ENV_FILE)}`);
    expectNoLeak(encodeURIComponent(ENV_FILE).replace(/%[0-9A-F]{2}/g, (e) => e.toLowerCase()));
    expectNoLeak(run('jq', ['-sRr', '@uri'], ENV_FILE));
  });

  it('catches a value written inside JSON text (escaped newlines and quotes)', () => {
    expectNoLeak(
      JSON.stringify({ output: Buffer.from(ENV_FILE).toString('base64').replace(/.{76}/g, '$&\n') }),
    );
    const quoted = new SecretScrubber(['pa"ss\\word-1']);
    expect(quoted.scrub(JSON.stringify({ v: 'pa"ss\\word-1' }))).toBe('{"v":"[redacted]"}');
  });

  it('ignores values under 4 characters and matches 4–5 character values only as written', () => {
    const short = new SecretScrubber(['ab', 'abcd']);
    expect(short.scrub('ab abcd')).toBe('ab [redacted]');
    expect(short.scrub(Buffer.from('abcd').toString('hex'))).toBe('61626364');
  });

  it('scrubs strings and keys deep in a value, keeps the rest', () => {
    expect(scrubber.scrubDeep({ a: [TOKEN, 1, null], [TOKEN]: { ok: true } })).toEqual({
      a: ['[redacted]', 1, null],
      '[redacted]': { ok: true },
    });
  });

  it('property: base64 of any text holding a secret, wrapped at 76, never gives it back', () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 6, maxLength: 40, unit: fc.constantFrom(...'abcXYZ0189+/=-_.:@!~ ') }),
        fc.string({ maxLength: 60 }),
        fc.string({ maxLength: 60 }),
        (secret, before, after) => {
          fc.pre(secret.trim().length >= 6);
          const wrapped = Buffer.from(before + secret + after)
            .toString('base64')
            .replace(/.{76}/g, '$&\n');
          const out = new SecretScrubber([secret]).scrub(wrapped);
          expect(secretLeaks(out, secret).filter((leak) => leak === 'base64')).toEqual([]);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('property: text that does not hold a secret is returned unchanged', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 400 }), (text) => {
        const secret = 'Z9#unlikely-secret-value#Q';
        fc.pre(!text.includes('Z9'));
        expect(new SecretScrubber([secret]).scrub(text)).toBe(text);
      }),
      { numRuns: 300 },
    );
  });
});
