/**
 * Constant folding of shell arithmetic (`$((-1))`, `$((~0))`, `$[0-1]`), so a number spelled as
 * arithmetic reads as the number. Anything naming a variable is left alone (not understood).
 */

const ARITHMETIC = /^[\s0-9+\-*/%()~!<>=&|^x#a-fA-F]*$/;

/**
 * Value of a constant integer expression (`-1`, `0-1`, `~0`, `2**3`, `0x10`), as bash computes it
 * in 64-bit signed arithmetic; undefined when it names a variable or is not understood.
 */
export function evaluateArithmetic(expression: string): string | undefined {
  if (expression.length > 256 || !ARITHMETIC.test(expression)) return undefined;
  const tokens = expression.match(
    /0[xX][0-9a-fA-F]+|[0-9]+#[0-9a-zA-Z]+|[0-9]+|\*\*|<<|>>|<=|>=|==|!=|&&|\|\||\S/g,
  );
  if (tokens === null) return undefined;
  let at = 0;
  const peek = (): string | undefined => tokens[at];
  const BINARY: readonly (readonly string[])[] = [
    ['||'],
    ['&&'],
    ['|'],
    ['^'],
    ['&'],
    ['==', '!='],
    ['<', '>', '<=', '>='],
    ['<<', '>>'],
    ['+', '-'],
    ['*', '/', '%'],
  ];
  const apply = (op: string, a: bigint, b: bigint): bigint | undefined => {
    switch (op) {
      case '||':
        return a !== 0n || b !== 0n ? 1n : 0n;
      case '&&':
        return a !== 0n && b !== 0n ? 1n : 0n;
      case '|':
        return a | b;
      case '^':
        return a ^ b;
      case '&':
        return a & b;
      case '==':
        return a === b ? 1n : 0n;
      case '!=':
        return a !== b ? 1n : 0n;
      case '<':
        return a < b ? 1n : 0n;
      case '>':
        return a > b ? 1n : 0n;
      case '<=':
        return a <= b ? 1n : 0n;
      case '>=':
        return a >= b ? 1n : 0n;
      case '<<':
        return b < 0n || b > 63n ? undefined : a << b;
      case '>>':
        return b < 0n || b > 63n ? undefined : a >> b;
      case '+':
        return a + b;
      case '-':
        return a - b;
      case '*':
        return a * b;
      case '/':
        return b === 0n ? undefined : a / b;
      case '%':
        return b === 0n ? undefined : a % b;
      default:
        return undefined;
    }
  };
  const wrap = (v: bigint): bigint => BigInt.asIntN(64, v);
  const unary = (depth: number): bigint | undefined => {
    if (depth > 64) return undefined;
    const t = peek();
    if (t === '-' || t === '+' || t === '~' || t === '!') {
      at += 1;
      const v = unary(depth + 1);
      if (v === undefined) return undefined;
      if (t === '-') return wrap(-v);
      if (t === '~') return wrap(~v);
      if (t === '!') return v === 0n ? 1n : 0n;
      return v;
    }
    return power(depth);
  };
  const power = (depth: number): bigint | undefined => {
    const base = primary(depth);
    if (base === undefined || peek() !== '**') return base;
    at += 1;
    const exp = unary(depth + 1);
    if (exp === undefined || exp < 0n || exp > 64n) return undefined;
    return wrap(base ** exp);
  };
  const primary = (depth: number): bigint | undefined => {
    const t = peek();
    if (t === undefined) return undefined;
    at += 1;
    if (t === '(') {
      const v = binary(0, depth + 1);
      if (peek() !== ')') return undefined;
      at += 1;
      return v;
    }
    return literal(t);
  };
  const binary = (level: number, depth: number): bigint | undefined => {
    if (depth > 64) return undefined;
    if (level >= BINARY.length) return unary(depth);
    let left = binary(level + 1, depth);
    const ops = BINARY[level] as readonly string[];
    while (left !== undefined) {
      const op = peek();
      if (op === undefined || !ops.includes(op)) break;
      at += 1;
      const right = binary(level + 1, depth + 1);
      if (right === undefined) return undefined;
      const value = apply(op, left, right);
      left = value === undefined ? undefined : wrap(value);
    }
    return left;
  };
  const value = binary(0, 0);
  return value === undefined || at !== tokens.length ? undefined : value.toString();
}

function literal(token: string): bigint | undefined {
  try {
    if (/^0[xX][0-9a-fA-F]+$/.test(token)) return BigInt.asIntN(64, BigInt(token));
    const based = /^([0-9]+)#([0-9a-zA-Z]+)$/.exec(token);
    if (based !== null) {
      const radix = Number(based[1]);
      if (radix < 2 || radix > 36) return undefined;
      let v = 0n;
      for (const c of (based[2] as string).toLowerCase()) {
        const d = Number.parseInt(c, 36);
        if (d >= radix) return undefined;
        v = v * BigInt(radix) + BigInt(d);
      }
      return BigInt.asIntN(64, v);
    }
    if (/^0[0-7]+$/.test(token)) return BigInt.asIntN(64, BigInt(`0o${token.slice(1)}`));
    if (/^[0-9]+$/.test(token)) return BigInt.asIntN(64, BigInt(token));
  } catch {
    return undefined;
  }
  return undefined;
}
