/**
 * Constant folding of shell arithmetic (`$((-1))`, `$((~0))`, `$[0-1]`), so a number spelled as
 * arithmetic reads as the number. Anything naming a variable is left alone (not understood).
 */

const MAX_EXPRESSION = 256;
const MAX_DEPTH = 32;

/** Binary operators by precedence (higher binds tighter), as bash orders them. */
const PRECEDENCE: ReadonlyMap<string, number> = new Map([
  ['||', 1],
  ['&&', 2],
  ['|', 3],
  ['^', 4],
  ['&', 5],
  ['==', 6],
  ['!=', 6],
  ['<', 7],
  ['>', 7],
  ['<=', 7],
  ['>=', 7],
  ['<<', 8],
  ['>>', 8],
  ['+', 9],
  ['-', 9],
  ['*', 10],
  ['/', 10],
  ['%', 10],
]);

const TWO_CHAR = new Set(['**', '<<', '>>', '<=', '>=', '==', '!=', '&&', '||']);

function tokenize(expression: string): string[] | undefined {
  const tokens: string[] = [];
  let i = 0;
  while (i < expression.length) {
    const c = expression[i] as string;
    if (c === ' ' || c === '\t' || c === '\n') {
      i += 1;
      continue;
    }
    if (c >= '0' && c <= '9') {
      let j = i + 1;
      while (j < expression.length && /[0-9a-zA-Z#]/.test(expression[j] as string)) j += 1;
      tokens.push(expression.slice(i, j));
      i = j;
      continue;
    }
    const two = expression.slice(i, i + 2);
    if (TWO_CHAR.has(two)) {
      tokens.push(two);
      i += 2;
      continue;
    }
    if (!'+-*/%()~!<>&|^'.includes(c)) return undefined;
    tokens.push(c);
    i += 1;
  }
  return tokens;
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

function apply(op: string, a: bigint, b: bigint): bigint | undefined {
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
}

/** Precedence-climbing evaluator over a token list. */
class Evaluator {
  private at = 0;

  constructor(private readonly tokens: readonly string[]) {}

  done(): boolean {
    return this.at === this.tokens.length;
  }

  binary(min: number, depth: number): bigint | undefined {
    if (depth > MAX_DEPTH) return undefined;
    let left = this.unary(depth + 1);
    while (left !== undefined) {
      const op = this.tokens[this.at];
      const precedence = op === undefined ? undefined : PRECEDENCE.get(op);
      if (op === undefined || precedence === undefined || precedence < min) break;
      this.at += 1;
      const right = this.binary(precedence + 1, depth + 1);
      if (right === undefined) return undefined;
      const value = apply(op, left, right);
      left = value === undefined ? undefined : BigInt.asIntN(64, value);
    }
    return left;
  }

  private unary(depth: number): bigint | undefined {
    if (depth > MAX_DEPTH) return undefined;
    const t = this.tokens[this.at];
    if (t === '-' || t === '+' || t === '~' || t === '!') {
      this.at += 1;
      const v = this.unary(depth + 1);
      if (v === undefined) return undefined;
      if (t === '-') return BigInt.asIntN(64, -v);
      if (t === '~') return BigInt.asIntN(64, ~v);
      if (t === '!') return v === 0n ? 1n : 0n;
      return v;
    }
    const base = this.primary(depth + 1);
    if (base === undefined || this.tokens[this.at] !== '**') return base;
    this.at += 1;
    const exponent = this.unary(depth + 1);
    if (exponent === undefined || exponent < 0n || exponent > 64n) return undefined;
    return BigInt.asIntN(64, base ** exponent);
  }

  private primary(depth: number): bigint | undefined {
    const t = this.tokens[this.at];
    if (t === undefined) return undefined;
    this.at += 1;
    if (t === '(') {
      const v = this.binary(1, depth + 1);
      if (this.tokens[this.at] !== ')') return undefined;
      this.at += 1;
      return v;
    }
    return literal(t);
  }
}

/**
 * Value of a constant integer expression (`-1`, `0-1`, `~0`, `2**3`, `0x10`), as bash computes
 * it in 64-bit signed arithmetic; undefined when it names a variable or is not understood.
 */
export function evaluateArithmetic(expression: string): string | undefined {
  if (expression.length > MAX_EXPRESSION) return undefined;
  const plain = /^\s*(-?)\s*([1-9][0-9]{0,14}|0)\s*$/.exec(expression);
  if (plain !== null) return String(Number(`${plain[1]}${plain[2]}`));
  const tokens = tokenize(expression);
  if (tokens === undefined || tokens.length === 0) return undefined;
  const evaluator = new Evaluator(tokens);
  const value = evaluator.binary(1, 0);
  return value === undefined || !evaluator.done() ? undefined : value.toString();
}
