import type { z } from 'zod';
import { HermesError } from '../../errors/hermes-error.js';

/** Row shapes are checked with zod: a row that does not fit means a damaged or foreign file. */
export function parseRow<T>(schema: z.ZodType<T>, row: unknown, what: string): T {
  const parsed = schema.safeParse(row);
  if (!parsed.success) {
    throw new HermesError('store_failed', `unexpected ${what} row in the state database`, {
      cause: parsed.error,
    });
  }
  return parsed.data;
}

export function parseRows<T>(schema: z.ZodType<T>, rows: readonly unknown[], what: string): T[] {
  return rows.map((row) => parseRow(schema, row, what));
}

/** Parses a JSON text column against a schema. */
export function parseJsonColumn<T>(schema: z.ZodType<T>, text: string, what: string): T {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new HermesError('store_failed', `damaged ${what} JSON in the state database`, { cause: error });
  }
  return parseRow(schema, value, what);
}

export function orUndefined<T>(value: T | null): T | undefined {
  return value === null ? undefined : value;
}

export function orNull<T>(value: T | undefined): T | null {
  return value === undefined ? null : value;
}

/**
 * SQL condition (with the named parameters `prefix` and `prefixColon`) matching a session key
 * column against a prefix on `:` boundaries; see `prefixParams`.
 */
export function keyPrefixCondition(column: string): string {
  return `(@prefix IS NULL OR ${column} = @prefix OR substr(${column}, 1, length(@prefixColon)) = @prefixColon)`;
}

export function prefixParams(prefix: string | undefined): {
  prefix: string | null;
  prefixColon: string | null;
} {
  if (prefix === undefined || prefix === '') return { prefix: null, prefixColon: null };
  return { prefix, prefixColon: prefix.endsWith(':') ? prefix : `${prefix}:` };
}

/** Clamps a caller-supplied limit into [1, max]. */
export function clampLimit(limit: number | undefined, fallback: number, max: number): number {
  if (limit === undefined || !Number.isFinite(limit)) return fallback;
  return Math.min(max, Math.max(1, Math.trunc(limit)));
}
