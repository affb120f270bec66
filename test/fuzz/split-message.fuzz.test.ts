import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { splitMessage } from '../../src/gateway/delivery/split-message.js';
import { type LengthUnit, measureLength } from '../../src/platforms/adapter.js';
import { fuzzRuns, fuzzTimeout, hostileText, startFuzzWatch } from './fuzz-kit.js';

interface SplitCase {
  readonly text: string;
  readonly maxLength: number;
  readonly unit: LengthUnit;
  readonly partIndicators: boolean;
}

/** Text built from pieces the splitter treats specially: fences, links, URLs, breaks, clusters. */
const markdownish = fc
  .array(
    fc.oneof(
      fc.constantFrom(
        '```',
        '```ts\n',
        '~~~~\n',
        '\n```\n',
        '[a link](https://example.com/a_b)',
        'https://example.com/very/long/path?x=1&y=2',
        '\n\n',
        '\n',
        ' ',
        '。',
        '👨‍👩‍👧‍👦',
        '🇫🇷',
        'é',
        'e\u0301',
        '\ud83d',
        '\ude00',
      ),
      fc.string({ maxLength: 40 }),
    ),
    { maxLength: 200 },
  )
  .map((pieces) => pieces.join(''));

/** A long model answer: up to ~100,000 characters of one repeated piece. */
const longAnswer = fc
  .tuple(
    fc.constantFrom(
      'a',
      'é',
      '😀',
      '\u0301',
      ' ',
      '\n',
      '`',
      '[',
      '<b>',
      'word ',
      '```\n',
      '[x](https://e.x/)',
    ),
    fc.integer({ min: 1_000, max: 100_000 }),
  )
  .map(([piece, chars]) => piece.repeat(Math.ceil(chars / piece.length)));

/** Tiny limits on short text; long text at the platforms' own limits (Discord 2000, Telegram 4096). */
const splitCase: fc.Arbitrary<SplitCase> = fc
  .record({
    text: fc.oneof(markdownish, hostileText, longAnswer),
    tiny: fc.integer({ min: 2, max: 64 }),
    platform: fc.constantFrom(2000, 4096),
    unit: fc.constantFrom<LengthUnit>('utf16', 'codepoints'),
    partIndicators: fc.boolean(),
  })
  .map(({ text, tiny, platform, unit, partIndicators }) => ({
    text,
    maxLength: text.length > 4_000 ? platform : tiny,
    unit,
    partIndicators,
  }));

describe('fuzz: message splitting', () => {
  it(
    'every part fits, no surrogate pair is cut, every character comes back, no stall',
    async () => {
      const watch = startFuzzWatch<SplitCase>();
      const split = (input: SplitCase) =>
        splitMessage(input.text, {
          maxLength: input.maxLength,
          unit: input.unit,
          partIndicators: input.partIndicators,
        });
      let ran = 0;
      await fc.assert(
        fc.asyncProperty(splitCase, async (input) => {
          const parts = await watch.time(input, () => split(input));
          ran += 1;
          if (ran === 20) await watch.markBaseline();
          for (const part of parts) {
            expect(measureLength(part, input.unit)).toBeLessThanOrEqual(input.maxLength);
            expect(part.length).toBeGreaterThan(0);
          }
          // A cut never separates the halves of a pair: the parts hold no more lone halves than
          // the input did (a lone half in the input stays as it was).
          const lone = parts.reduce((sum, part) => sum + loneSurrogates(part), 0);
          expect(lone).toBeLessThanOrEqual(loneSurrogates(input.text));
          if (input.text.trim() === '') expect(parts).toStrictEqual([]);
          // Without fences or indicators nothing is added: every character comes back, in order.
          if (!input.partIndicators && !/`{3,}|~{3,}/.test(input.text) && input.maxLength >= 8) {
            expect(parts.join('').replace(/\s+/g, '')).toBe(input.text.replace(/\s+/g, ''));
          }
          // The same input splits the same way (delivery receipts rely on it).
          expect(split(input)).toStrictEqual(parts);
        }),
        { numRuns: fuzzRuns() },
      );
      const report = await watch.finish(split);
      expect(report.cases).toBeGreaterThanOrEqual(fuzzRuns());
    },
    fuzzTimeout(20),
  );
});

/** How many UTF-16 code units of `text` are halves of a surrogate pair without their other half. */
function loneSurrogates(text: string): number {
  let count = 0;
  for (let i = 0; i < text.length; i += 1) {
    const unit = text.charCodeAt(i);
    if (unit >= 0xd800 && unit <= 0xdbff) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i += 1;
      else count += 1;
    } else if (unit >= 0xdc00 && unit <= 0xdfff) {
      count += 1;
    }
  }
  return count;
}
