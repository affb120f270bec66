/**
 * Whether a parsed JSON value nests deeper than `maxDepth` (a scalar has depth 0, `[]` and `{}`
 * depth 1). Walks with an explicit stack, so a hostile document cannot overflow ours; stops at
 * the first branch past the limit.
 */
export function jsonDepthExceeds(value: unknown, maxDepth: number): boolean {
  const stack: { node: unknown; depth: number }[] = [{ node: value, depth: 0 }];
  while (stack.length > 0) {
    const { node, depth } = stack.pop() as { node: unknown; depth: number };
    if (typeof node !== 'object' || node === null) continue;
    if (depth + 1 > maxDepth) return true;
    const children = Array.isArray(node) ? node : Object.values(node);
    for (const child of children) {
      if (typeof child === 'object' && child !== null) stack.push({ node: child, depth: depth + 1 });
    }
  }
  return false;
}
