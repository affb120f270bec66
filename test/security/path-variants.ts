/**
 * Other spellings of a request path, as an attacker would try them against a check that looks
 * at the URL instead of at the route the router picked: percent-encoded letters and slashes,
 * doubled slashes, dot segments (plain and encoded), case, trailing slash, `;` and `?`/`#`
 * tails, backslashes, NUL. Every one must reach the same route (and its guard) or no route.
 */
export function pathVariants(path: string): string[] {
  const segments = path.split('/').filter((s) => s !== '');
  const join = (parts: readonly string[], sep = '/') => `/${parts.join(sep)}`;
  const hex = (c: string) => `%${c.charCodeAt(0).toString(16).padStart(2, '0')}`;
  const encodeFirst = (s: string) => `${hex(s[0] ?? '')}${s.slice(1)}`;
  const encodeLast = (s: string) => `${s.slice(0, -1)}${hex(s.at(-1) ?? '')}`;
  const encodeAll = (s: string) => [...s].map(hex).join('');
  const out = new Set<string>([
    path,
    // percent-encoded letters: /%761/models, /v%31/models, every character, upper-case hex
    join(segments.map((s, i) => (i === 0 ? encodeFirst(s) : s))),
    join(segments.map((s, i) => (i === 0 ? encodeLast(s) : s))),
    join(segments.map((s, i) => (i === segments.length - 1 ? encodeFirst(s) : s))),
    join(segments.map(encodeAll)),
    join(segments.map(encodeAll)).toUpperCase(),
    // encoded slashes, both cases
    join(segments, '%2F'),
    join(segments, '%2f'),
    `/${segments[0] ?? ''}%2F${segments.slice(1).join('/')}`,
    `%2F${segments.join('/')}`,
    // doubled slashes
    `/${path}`,
    `//${segments.join('//')}`,
    `${path}//`,
    join(segments, '//'),
    // dot segments, plain and encoded
    `/.${path}`,
    `/x/..${path}`,
    `/x/../${segments.join('/./')}`,
    `${path}/.`,
    `${path}/x/..`,
    `/%2e${path}`,
    `/x/%2e%2e${path}`,
    `/x/%2E%2E${path}`,
    `/x%2F..${path}`,
    `/x/..%2F${segments.join('/')}`,
    // case
    path.toUpperCase(),
    join(segments.map((s, i) => (i === 0 ? s.toUpperCase() : s))),
    join(segments.map((s, i) => (i === segments.length - 1 ? s.toUpperCase() : s))),
    // trailing slash and other tails
    `${path}/`,
    `${path};`,
    `${path};x=1`,
    `/${segments[0] ?? ''};${segments.length > 1 ? `/${segments.slice(1).join('/')}` : ''}`,
    `${path}?x=1`,
    `${path}#x`,
    `${path}%3F`,
    `${path}%23`,
    `${path}%00`,
    `${path}%20`,
    // backslashes (some stacks treat them as slashes)
    `\\${segments.join('\\')}`,
    `/${segments.join('\\')}`,
    `/${segments.join('%5C')}`,
  ]);
  return [...out];
}
