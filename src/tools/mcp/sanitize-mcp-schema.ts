/**
 * An MCP tool's `inputSchema` made fit for a model's function definition: an object schema whose
 * local `$ref`s are inlined (depth-limited), without keywords function-calling APIs and local
 * model grammars reject (`$schema`, `$id`, `$defs`, `definitions`, `$comment`, unknown `format`s),
 * with `required` naming only existing properties and texts kept short. Whatever cannot be made
 * sense of becomes an open object rather than an error, so one odd tool never hides a server.
 */

const MAX_DEPTH = 12;
const MAX_DESCRIPTION = 1_024;
const DROPPED = new Set([
  '$schema',
  '$id',
  '$defs',
  'definitions',
  '$comment',
  '$anchor',
  '$dynamicRef',
  'examples',
]);
const FORMATS = new Set(['date-time', 'date', 'time', 'email', 'uri', 'uuid', 'ipv4', 'ipv6', 'hostname']);

type Json = Record<string, unknown>;

function isRecord(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function sanitizeMcpSchema(input: unknown): Json {
  const root = isRecord(input) ? input : {};
  const definitions = {
    ...(isRecord(root['definitions']) ? root['definitions'] : {}),
    ...(isRecord(root['$defs']) ? root['$defs'] : {}),
  };
  const out = clean(root, definitions, 0, new Set());
  const schema: Json = isRecord(out) ? out : {};
  // Function parameters are always an object.
  if (schema['type'] !== 'object') {
    return {
      type: 'object',
      properties: {},
      ...(schema['description'] !== undefined ? { description: schema['description'] } : {}),
    };
  }
  if (!isRecord(schema['properties'])) schema['properties'] = {};
  return schema;
}

function resolveRef(ref: string, definitions: Json): unknown {
  const match = /^#\/(?:\$defs|definitions)\/([^/]+)$/.exec(ref);
  if (match === null) return undefined;
  return definitions[
    decodeURIComponent(match[1] ?? '')
      .replace(/~1/g, '/')
      .replace(/~0/g, '~')
  ];
}

function clean(node: unknown, definitions: Json, depth: number, refs: ReadonlySet<string>): unknown {
  if (Array.isArray(node)) return node.map((item) => clean(item, definitions, depth + 1, refs));
  if (!isRecord(node)) return node;
  if (depth > MAX_DEPTH) return {};
  if (typeof node['$ref'] === 'string') {
    const ref = node['$ref'];
    const target = refs.has(ref) ? undefined : resolveRef(ref, definitions);
    // A recursive or outside reference becomes an open schema (with the node's own description).
    if (!isRecord(target))
      return typeof node['description'] === 'string' ? { description: shorten(node['description']) } : {};
    const { $ref: _ref, ...rest } = node;
    return clean({ ...target, ...rest }, definitions, depth + 1, new Set([...refs, ref]));
  }
  const out: Json = {};
  for (const [key, value] of Object.entries(node)) {
    if (DROPPED.has(key)) continue;
    if (key === 'description' || key === 'title') {
      if (typeof value === 'string') out[key] = shorten(value);
      continue;
    }
    if (key === 'format') {
      if (typeof value === 'string' && FORMATS.has(value)) out[key] = value;
      continue;
    }
    if (key === 'properties' && isRecord(value)) {
      const properties: Json = {};
      for (const [name, child] of Object.entries(value))
        properties[name] = clean(child, definitions, depth + 1, refs);
      out[key] = properties;
      continue;
    }
    out[key] = clean(value, definitions, depth + 1, refs);
  }
  if (Array.isArray(out['required'])) {
    const properties = isRecord(out['properties']) ? out['properties'] : {};
    const required = out['required'].filter(
      (name): name is string => typeof name === 'string' && name in properties,
    );
    if (required.length > 0) out['required'] = [...new Set(required)];
    else delete out['required'];
  }
  if (out['type'] === 'object' && out['properties'] === undefined && depth === 0) out['properties'] = {};
  return out;
}

function shorten(text: string): string {
  return text.length > MAX_DESCRIPTION ? `${text.slice(0, MAX_DESCRIPTION - 1)}…` : text;
}
