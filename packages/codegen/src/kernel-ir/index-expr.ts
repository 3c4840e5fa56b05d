// Integer index expressions of kernel IR, built through simplifying constructors: constants
// fold, x*1, x+0, x/1, x%1 vanish, and with known exclusive upper bounds `x % n` → x when
// x < n, `x / n` → 0 when x < n, `(a*n + b) / n` → a and `(a*n + b) % n` → b when b < n.
// Invariant: every IndexExpr is already simplified; `print` gives C text with minimal parens.

export type IndexExpr =
  | { kind: 'const'; value: number }
  /** A named integer (loop variable, `threadIdx.x`, extent local); bound = exclusive max if known. */
  | { kind: 'sym'; name: string; bound: number | null }
  | { kind: 'add' | 'mul' | 'div' | 'mod'; a: IndexExpr; b: IndexExpr };

export function iconst(value: number): IndexExpr {
  return { kind: 'const', value };
}

export function isym(name: string, bound: number | null = null): IndexExpr {
  return { kind: 'sym', name, bound };
}

function constOf(e: IndexExpr): number | null {
  return e.kind === 'const' ? e.value : null;
}

/** Exclusive upper bound of a non-negative index expression, or null if unknown. */
export function upperBound(e: IndexExpr): number | null {
  switch (e.kind) {
    case 'const':
      return e.value + 1;
    case 'sym':
      return e.bound;
    case 'add': {
      const a = upperBound(e.a);
      const b = upperBound(e.b);
      return a === null || b === null ? null : a + b - 1;
    }
    case 'mul': {
      const a = upperBound(e.a);
      const b = upperBound(e.b);
      return a === null || b === null ? null : (a - 1) * (b - 1) + 1;
    }
    case 'div': {
      const a = upperBound(e.a);
      const n = constOf(e.b);
      return a === null || n === null || n <= 0 ? a : Math.floor((a - 1) / n) + 1;
    }
    case 'mod': {
      const a = upperBound(e.a);
      const n = constOf(e.b);
      if (n === null) return a;
      return a === null ? n : Math.min(a, n);
    }
    default: {
      const unreachable: never = e;
      throw new Error(`unknown index expression ${String(unreachable)}`);
    }
  }
}

function fitsBelow(e: IndexExpr, n: IndexExpr): boolean {
  const b = upperBound(e);
  const c = constOf(n);
  return b !== null && c !== null && b <= c;
}

export function sameIndex(a: IndexExpr, b: IndexExpr): boolean {
  return printIndex(a) === printIndex(b);
}

export function iadd(a: IndexExpr, b: IndexExpr): IndexExpr {
  const x = constOf(a);
  const y = constOf(b);
  if (x !== null && y !== null) return iconst(x + y);
  if (x === 0) return b;
  if (y === 0) return a;
  return { kind: 'add', a, b };
}

export function imul(a: IndexExpr, b: IndexExpr): IndexExpr {
  const x = constOf(a);
  const y = constOf(b);
  if (x !== null && y !== null) return iconst(x * y);
  if (x === 0 || y === 0) return iconst(0);
  if (x === 1) return b;
  if (y === 1) return a;
  return { kind: 'mul', a, b };
}

/** `(x*n + r)` split into x and r when the expression has that shape for this n. */
function splitMultiple(e: IndexExpr, n: IndexExpr): { q: IndexExpr; r: IndexExpr } | null {
  if (e.kind === 'mul' && sameIndex(e.b, n)) return { q: e.a, r: iconst(0) };
  if (e.kind === 'add' && e.a.kind === 'mul' && sameIndex(e.a.b, n)) return { q: e.a.a, r: e.b };
  return null;
}

export function idiv(a: IndexExpr, b: IndexExpr): IndexExpr {
  const x = constOf(a);
  const y = constOf(b);
  if (y === 1) return a;
  if (x !== null && y !== null && y !== 0) return iconst(Math.trunc(x / y));
  if (x === 0) return a;
  if (fitsBelow(a, b)) return iconst(0);
  const s = splitMultiple(a, b);
  if (s !== null && (constOf(s.r) === 0 || fitsBelow(s.r, b))) return s.q;
  return { kind: 'div', a, b };
}

export function imod(a: IndexExpr, b: IndexExpr): IndexExpr {
  const x = constOf(a);
  const y = constOf(b);
  if (y === 1) return iconst(0);
  if (x !== null && y !== null && y !== 0) return iconst(x % y);
  if (x === 0) return a;
  if (fitsBelow(a, b)) return a;
  const s = splitMultiple(a, b);
  if (s !== null && (constOf(s.r) === 0 || fitsBelow(s.r, b))) return s.r;
  return { kind: 'mod', a, b };
}

export function iceilDiv(a: IndexExpr, b: IndexExpr): IndexExpr {
  const x = constOf(a);
  const y = constOf(b);
  if (x !== null && y !== null && y !== 0) return iconst(Math.ceil(x / y));
  if (y === 1) return a;
  return idiv(iadd(a, iadd(b, iconst(-1))), b);
}

const PRECEDENCE: Record<'add' | 'mul' | 'div' | 'mod', number> = { add: 1, mul: 2, div: 2, mod: 2 };
const OPERATOR: Record<'add' | 'mul' | 'div' | 'mod', string> = { add: '+', mul: '*', div: '/', mod: '%' };

/** C text of an index expression. */
export function printIndex(e: IndexExpr, parent = 0, rightOperand = false): string {
  switch (e.kind) {
    case 'const':
      return e.value < 0 ? `(${e.value})` : String(e.value);
    case 'sym':
      return e.name;
    default: {
      const p = PRECEDENCE[e.kind];
      const text = `${printIndex(e.a, p, false)} ${OPERATOR[e.kind]} ${printIndex(e.b, p, true)}`;
      // Left-associative: a right operand of equal precedence needs parentheses (a - (b + c), a / (b * c)).
      const needs = p < parent || (p === parent && rightOperand);
      return needs ? `(${text})` : text;
    }
  }
}

/** `e` with each symbol `by` maps to an expression replaced by it (constants folded on the way up). */
export function substituteSymbols(e: IndexExpr, by: (name: string) => IndexExpr | null): IndexExpr {
  switch (e.kind) {
    case 'const':
      return e;
    case 'sym':
      return by(e.name) ?? e;
    case 'add':
      return iadd(substituteSymbols(e.a, by), substituteSymbols(e.b, by));
    case 'mul':
      return imul(substituteSymbols(e.a, by), substituteSymbols(e.b, by));
    case 'div':
      return idiv(substituteSymbols(e.a, by), substituteSymbols(e.b, by));
    case 'mod':
      return imod(substituteSymbols(e.a, by), substituteSymbols(e.b, by));
    default: {
      const unreachable: never = e;
      throw new Error(`unknown index expression ${String(unreachable)}`);
    }
  }
}

/** The names of the symbols `e` mentions. */
export function symbolsOf(e: IndexExpr, into: Set<string> = new Set()): Set<string> {
  if (e.kind === 'sym') into.add(e.name);
  else if (e.kind !== 'const') {
    symbolsOf(e.a, into);
    symbolsOf(e.b, into);
  }
  return into;
}
