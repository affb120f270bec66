/**
 * Repairs the argument mistakes models commonly make, before zod validation: numbers and
 * booleans sent as strings, a bare value where an array is expected, arrays/objects sent as JSON
 * strings, the string "null" for a nullable field. Driven by the tool's JSON Schema; a value
 * that cannot be repaired is left alone so validation reports it.
 */
type Schema = Record<string, unknown>;

const NUMERIC = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:e[+-]?\d+)?$/i;

/** Coerces a whole argument object against the tool's parameter schema. */
export function coerceArgs(args: unknown, schema: Schema): unknown {
  if (!isPlainObject(args)) return args;
  const properties = schema['properties'];
  if (!isPlainObject(properties)) return args;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(args)) {
    const propertySchema = properties[key];
    out[key] = isPlainObject(propertySchema) ? coerceValue(value, propertySchema) : value;
  }
  return out;
}

/** Coerces one value against one schema node. Exported for the rule-by-rule tests. */
export function coerceValue(value: unknown, schema: Schema): unknown {
  if (value === null || value === undefined) return value;
  const branches = unionBranches(schema);
  if (branches !== undefined) {
    if (typeof value === 'string' && isNullable(schema) && isNullString(value)) return null;
    for (const branch of branches) {
      if (typesOf(branch).includes('null')) continue;
      const coerced = coerceValue(value, branch);
      if (coerced !== value) return coerced;
    }
    return value;
  }
  const types = typesOf(schema);
  if (types.includes('array') && !Array.isArray(value)) {
    if (typeof value === 'string') {
      if (isNullable(schema) && isNullString(value)) return null;
      const parsed = parseJson(value);
      if (Array.isArray(parsed)) return coerceItems(parsed, schema);
      if (types.length > 1) {
        const other = coerceString(
          value,
          types.filter((t) => t !== 'array'),
          schema,
        );
        if (other !== value) return other;
      }
    }
    return coerceItems([value], schema);
  }
  if (Array.isArray(value)) return coerceItems(value, schema);
  if (isPlainObject(value))
    return types.includes('object') || types.length === 0 ? coerceArgs(value, schema) : value;
  if (typeof value === 'string') return coerceString(value, types, schema);
  return value;
}

function coerceString(value: string, types: readonly string[], schema: Schema): unknown {
  if (types.length === 0 && !isNullable(schema)) return value;
  if (isNullable(schema) && isNullString(value)) return null;
  for (const type of types) {
    switch (type) {
      case 'integer':
      case 'number': {
        const n = coerceNumber(value, type === 'integer');
        if (n !== value) return n;
        break;
      }
      case 'boolean': {
        const b = coerceBoolean(value);
        if (b !== value) return b;
        break;
      }
      case 'array': {
        const parsed = parseJson(value);
        if (Array.isArray(parsed)) return coerceItems(parsed, schema);
        break;
      }
      case 'object': {
        const parsed = parseJson(value);
        if (isPlainObject(parsed)) return coerceArgs(parsed, schema);
        break;
      }
      case 'null':
        if (isNullString(value)) return null;
        break;
      case 'string':
        return value;
    }
  }
  return value;
}

/** "42"→42, "3.0"→3, "1e5"→100000, "3.14"→3.14 (kept a string when an integer is required). */
export function coerceNumber(value: string, integerOnly: boolean): number | string {
  const trimmed = value.trim();
  if (!NUMERIC.test(trimmed)) return value;
  const n = Number(trimmed);
  if (!Number.isFinite(n)) return value;
  if (Number.isInteger(n)) return n;
  return integerOnly ? value : n;
}

/** Only "true"/"false" (any case, trimmed); "yes", "1", "0" stay strings. */
export function coerceBoolean(value: string): boolean | string {
  const lowered = value.trim().toLowerCase();
  if (lowered === 'true') return true;
  if (lowered === 'false') return false;
  return value;
}

function coerceItems(items: unknown[], schema: Schema): unknown[] {
  const itemSchema = schema['items'];
  if (!isPlainObject(itemSchema)) return items;
  return items.map((item) => coerceValue(item, itemSchema));
}

function unionBranches(schema: Schema): Schema[] | undefined {
  for (const key of ['anyOf', 'oneOf'] as const) {
    const list = schema[key];
    if (Array.isArray(list)) return list.filter(isPlainObject);
  }
  const all = schema['allOf'];
  if (Array.isArray(all) && all.length === 1 && isPlainObject(all[0])) return [all[0]];
  return undefined;
}

function typesOf(schema: Schema): string[] {
  const type = schema['type'];
  if (typeof type === 'string') return [type];
  if (Array.isArray(type)) return type.filter((t): t is string => typeof t === 'string');
  if (Array.isArray(schema['enum'])) {
    const first = (schema['enum'] as unknown[])[0];
    if (typeof first === 'number') return ['number'];
    if (typeof first === 'boolean') return ['boolean'];
  }
  return [];
}

function isNullable(schema: Schema): boolean {
  if (schema['nullable'] === true) return true;
  if (typesOf(schema).includes('null')) return true;
  const branches = unionBranches(schema);
  return branches?.some((b) => typesOf(b).includes('null')) === true;
}

function isNullString(value: string): boolean {
  return value.trim().toLowerCase() === 'null';
}

function parseJson(value: string): unknown {
  const trimmed = value.trim();
  if (!(trimmed.startsWith('[') || trimmed.startsWith('{'))) return undefined;
  try {
    return JSON.parse(trimmed);
  } catch {
    return undefined;
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
