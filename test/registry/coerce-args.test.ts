import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { coerceArgs, coerceBoolean, coerceNumber, coerceValue } from '../../src/registry/coerce-args.js';
import { defineTool } from '../../src/registry/define-tool.js';

describe('coerceNumber', () => {
  it.each([
    ['42', false, 42],
    ['-7', false, -7],
    ['0', false, 0],
    ['3.14', false, 3.14],
    ['3.0', false, 3],
    ['3.14', true, '3.14'],
    ['hello', false, 'hello'],
    ['', false, ''],
    ['1e5', false, 100000],
    ['inf', false, 'inf'],
    ['-inf', false, '-inf'],
    ['nan', false, 'nan'],
    ['Infinity', false, 'Infinity'],
    ['-2.5', false, -2.5],
    [' 12 ', true, 12],
  ])('%j (integer only: %s) → %j', (input, integerOnly, expected) => {
    expect(coerceNumber(input, integerOnly)).toStrictEqual(expected);
  });
});

describe('coerceBoolean', () => {
  it.each([
    ['true', true],
    ['True', true],
    ['  true  ', true],
    ['false', false],
    ['False', false],
    ['yes', 'yes'],
    ['1', '1'],
    ['0', '0'],
    ['', ''],
  ])('%j → %j', (input, expected) => {
    expect(coerceBoolean(input)).toStrictEqual(expected);
  });
});

describe('coerceValue with schema nodes', () => {
  it.each([
    ['42', { type: ['integer', 'string'] }, 42],
    ['hello', { type: ['integer', 'boolean'] }, 'hello'],
    ['["a","b"]', { type: 'array' }, ['a', 'b']],
    ['{"k":"v"}', { type: 'array' }, ['{"k":"v"}']],
    ['["a"]', { type: 'object' }, '["a"]'],
    ['{"k":"v"}', { type: 'object' }, { k: 'v' }],
    ['null', { anyOf: [{ type: 'object' }, { type: 'null' }] }, null],
    ['null', { anyOf: [{ type: 'array' }, { type: 'null' }] }, null],
    ['NULL', { type: ['string', 'null'] }, null],
    ['null', { type: 'string' }, 'null'],
    ['7', { anyOf: [{ type: 'integer' }, { type: 'string' }] }, 7],
    ['x', { anyOf: [{ type: 'integer' }, { type: 'boolean' }] }, 'x'],
    ['5', { type: 'array', items: { type: 'integer' } }, [5]],
    ['["1","2"]', { type: 'array', items: { type: 'integer' } }, [1, 2]],
  ])('%j against %j → %j', (input, schema, expected) => {
    expect(coerceValue(input, schema)).toStrictEqual(expected);
  });
});

describe('coerceArgs at tool level', () => {
  const tool = defineTool({
    name: 'coerce_probe',
    toolset: 'test',
    description: 'probe',
    parameters: z.object({
      limit: z.number().int().optional(),
      offset: z.number().int().optional(),
      temperature: z.number().optional(),
      merge: z.boolean().optional(),
      full: z.boolean().optional(),
      path: z.string().optional(),
      urls: z.array(z.string()).optional(),
      ids: z.array(z.number()).optional(),
      items: z.array(z.unknown()).nullable().optional(),
      options: z
        .object({ depth: z.number().int(), tags: z.array(z.string()) })
        .nullable()
        .optional(),
    }),
    handler: () => 'ok',
  });
  const schema = tool.jsonSchema;

  it.each([
    [{ limit: '10' }, { limit: 10 }],
    [{ merge: 'true' }, { merge: true }],
    [{ temperature: '0.7' }, { temperature: 0.7 }],
    [{}, {}],
    [{ items: 'null' }, { items: null }],
    [{ options: 'null' }, { options: null }],
    [{ items: 'not-json' }, { items: ['not-json'] }],
    [{ urls: 'https://a.com' }, { urls: ['https://a.com'] }],
    [{ ids: 5 }, { ids: [5] }],
    [{ items: { a: 1 } }, { items: [{ a: 1 }] }],
    [{ items: null }, { items: null }],
    [
      { limit: '10', extra: '42' },
      { limit: 10, extra: '42' },
    ],
    [
      { offset: '5', limit: '20', full: 'false', path: '12' },
      { offset: 5, limit: 20, full: false, path: '12' },
    ],
    [{ limit: 'many' }, { limit: 'many' }],
    [{ limit: '2.5' }, { limit: '2.5' }],
    [{ options: '{"depth":"3","tags":"x"}' }, { options: { depth: 3, tags: ['x'] } }],
    [{ options: { depth: '2', tags: '["a","b"]' } }, { options: { depth: 2, tags: ['a', 'b'] } }],
  ])('%j → %j', (input, expected) => {
    expect(coerceArgs(input, schema)).toStrictEqual(expected);
  });

  it('leaves non-objects alone', () => {
    expect(coerceArgs(null, schema)).toBeNull();
    expect(coerceArgs(undefined, schema)).toBeUndefined();
    expect(coerceArgs([1], schema)).toStrictEqual([1]);
  });

  it('leaves everything alone when the schema has no properties', () => {
    expect(coerceArgs({ limit: '10' }, { type: 'object' })).toStrictEqual({ limit: '10' });
  });
});
