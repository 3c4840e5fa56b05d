// The pieces the inputs-line evaluator (torch-inputs.ts) is made of: resolving names through the
// straight-line bindings, reading Python numbers, int lists, dotted names, torch dtypes and
// keywords, and the TensorValue (an InputSpec with its planned layout) that every constructor and
// method returns. Invariant: a TensorValue's layout is always the layout tensor-views.ts computes
// for its spec, so a view PyTorch would refuse is refused here, at the expression that makes it.

import type { DataType } from '@tsfuser/fusion-ir';
import type { TensorInputSpec, TensorViewOp } from '../io/input-spec.js';
import { applyViewOp, baseLayout, ViewError, type StridedLayout } from '../io/tensor-views.js';
import type { Expr, Keyword } from './ast.js';
import type { Position } from './tokens.js';
import { fail } from './definition-interpreter.js';
import { torchDtype as lookupTorchDtype } from './torch-dtypes.js';
import { sourceName } from './straight-line.js';

/** Keywords of the factories that change nothing tsfuser models. */
const IGNORED_KEYWORDS = new Set(['device', 'requires_grad', 'layout', 'pin_memory', 'generator', 'non_blocking', 'exclude_zero']);

export type Lookup = (name: string) => Expr | undefined;

export interface TensorValue {
  spec: TensorInputSpec;
  layout: StridedLayout;
}

export function resolve(e: Expr, lookup: Lookup): Expr {
  let cur = e;
  for (let hops = 0; cur.kind === 'name' && hops < 64; hops += 1) {
    const bound = lookup(cur.id);
    if (bound === undefined) return cur;
    cur = bound;
  }
  return cur;
}

export function numberValue(e: Expr, lookup: Lookup): PyNumber | null {
  const r = resolve(e, lookup);
  if (r.kind === 'number') return { value: r.value, isFloat: r.isFloat };
  if (r.kind === 'unary') {
    const inner = numberValue(r.operand, lookup);
    return inner === null ? null : { value: r.op === '-' ? -inner.value : inner.value, isFloat: inner.isFloat };
  }
  if (r.kind === 'binary' && ARITHMETIC_OPS.has(r.op)) {
    const left = numberValue(r.left, lookup);
    const right = numberValue(r.right, lookup);
    return left === null || right === null ? null : arithmetic(r.op, left, right, r.pos);
  }
  if (r.kind === 'call' && r.func.kind === 'name' && r.func.id === 'float' && r.args.length === 1 && r.args[0]?.kind === 'string') {
    const text = r.args[0].value.trim().toLowerCase();
    const special: Readonly<Record<string, number>> = { inf: Infinity, '+inf': Infinity, '-inf': -Infinity, nan: NaN, infinity: Infinity, '-infinity': -Infinity };
    const v = special[text] ?? (/^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/.test(text) ? Number(text) : undefined);
    return v === undefined ? null : { value: v, isFloat: true };
  }
  return null;
}

const ARITHMETIC_OPS: ReadonlySet<string> = new Set(['+', '-', '*', '/', '//', '%', '**']);

/** `exact`: an int result past 2^53, kept for the message that refuses it. */
type PyNumber = { value: number; isFloat: boolean; exact?: bigint };

/**
 * Python's arithmetic on two numbers of the inputs line (`2**52`, `n * 4`, `10 // 3`): ints
 * stay ints (exact through BigInt; `/` and a negative power give a float), `//` and `%` floor
 * as Python's do, and a zero divisor is Python's ZeroDivisionError.
 */
function arithmetic(op: string, a: PyNumber, b: PyNumber, pos: Position): PyNumber {
  const isFloat = a.isFloat || b.isFloat || op === '/' || (op === '**' && b.value < 0);
  if ((op === '/' || op === '//' || op === '%') && b.value === 0) {
    return fail(`ZeroDivisionError: ${isFloat ? 'float ' : 'integer '}${op === '%' ? 'modulo' : 'division'} by zero`, pos);
  }
  if (!isFloat && Number.isSafeInteger(a.value) && Number.isSafeInteger(b.value)) {
    const x = BigInt(a.value);
    const y = BigInt(b.value);
    const floorDiv = (): bigint => {
      const q = x / y;
      return (x % y !== 0n) && ((x < 0n) !== (y < 0n)) ? q - 1n : q;
    };
    const exact: Readonly<Record<string, () => bigint>> = {
      '+': () => x + y,
      '-': () => x - y,
      '*': () => x * y,
      '//': floorDiv,
      '%': () => x - floorDiv() * y,
      // Past 2^64 the value is far beyond any size; Number keeps its magnitude for the message.
      '**': () => (y > 64n ? BigInt(Number.MAX_SAFE_INTEGER) * 2n ** 64n : x ** y),
    };
    const f = exact[op];
    if (f !== undefined) {
      const v = f();
      return { value: Number(v), isFloat: false, exact: v };
    }
  }
  const v = op === '+' ? a.value + b.value : op === '-' ? a.value - b.value : op === '*' ? a.value * b.value : op === '/' ? a.value / b.value : op === '**' ? a.value ** b.value : op === '//' ? Math.floor(a.value / b.value) : a.value - Math.floor(a.value / b.value) * b.value;
  return { value: v, isFloat };
}

/** A name with no binding where a number is needed is Python's NameError, not a type error. */
function failIfUndefinedName(e: Expr, lookup: Lookup): void {
  const r = resolve(e, lookup);
  if (r.kind === 'name' && r.id !== 'None' && r.id !== 'True' && r.id !== 'False') fail(`name '${sourceName(r.id)}' is not defined`, r.pos);
}

export function number(e: Expr, lookup: Lookup, what: string): number {
  const n = numberValue(e, lookup);
  if (n === null) {
    failIfUndefinedName(e, lookup);
    return fail(`${what}: expected a number`, e.pos);
  }
  return n.value;
}

export function integer(e: Expr, lookup: Lookup, what: string): number {
  const n = numberValue(e, lookup);
  if (n === null) failIfUndefinedName(e, lookup);
  if (n !== null && !n.isFloat && !Number.isSafeInteger(n.value)) {
    return fail(`${what}: ${(n.exact ?? BigInt(n.value)).toString()} is too large (sizes and integers of the inputs line must be below 2^53)`, e.pos);
  }
  if (n === null || n.isFloat || !Number.isSafeInteger(n.value)) return fail(`${what}: expected an integer`, e.pos);
  return n.value;
}

export function isNone(e: Expr): boolean {
  return e.kind === 'name' && e.id === 'None';
}

export function intList(e: Expr, lookup: Lookup, what: string): number[] {
  const r = resolve(e, lookup);
  if (r.kind === 'list' || r.kind === 'tuple') return r.elements.map((x) => integer(x, lookup, what));
  if (r.kind === 'call' && r.func.kind === 'attribute' && r.func.attr === 'Size' && r.args[0] !== undefined) return intList(r.args[0], lookup, what);
  return fail(`${what}: expected a tuple or list of integers`, e.pos);
}

export function dotted(e: Expr): string | null {
  if (e.kind === 'name') return e.id;
  if (e.kind === 'attribute') {
    const base = dotted(e.object);
    return base === null ? null : `${base}.${e.attr}`;
  }
  return null;
}

export function torchDtype(e: Expr, lookup: Lookup): DataType {
  const name = dotted(resolve(e, lookup));
  if (name === null || !name.startsWith('torch.')) return fail(`expected a dtype such as torch.float32, got ${name ?? 'an expression'}`, e.pos);
  const found = lookupTorchDtype(name.slice(6));
  return found.kind === 'dtype' ? found.dtype : fail(found.message, e.pos);
}

export function keyword(keywords: readonly Keyword[], name: string): Keyword | undefined {
  return keywords.find((k) => k.name === name);
}

/** Sizes given as varargs (`randn(2, 3)`), one tuple/list (`randn((2, 3))`) or `size=`. */
export function sizesOf(args: readonly Expr[], keywords: readonly Keyword[], lookup: Lookup, what: string, pos: Position): number[] {
  const kw = keyword(keywords, 'size') ?? keyword(keywords, 'shape');
  if (kw !== undefined) {
    if (args.length > 0) return fail(`${what}: sizes given both positionally and as ${kw.name}=`, kw.pos);
    return intList(kw.value, lookup, what);
  }
  const first = args[0];
  if (first === undefined) return fail(`${what}: missing the sizes`, pos);
  const r = resolve(first, lookup);
  if (args.length === 1 && (r.kind === 'list' || r.kind === 'tuple' || r.kind === 'call')) return intList(first, lookup, what);
  return args.map((a) => integer(a, lookup, what));
}

export function checkKeywords(keywords: readonly Keyword[], allowed: readonly string[], what: string): void {
  for (const k of keywords) {
    if (!allowed.includes(k.name) && !IGNORED_KEYWORDS.has(k.name)) fail(`${what}: unsupported keyword '${k.name}'`, k.pos);
  }
}

export function newTensor(spec: TensorInputSpec, what: string, pos: Position): TensorValue {
  spec.shape.forEach((s, d) => {
    if (s < 0) fail(`${what}: size ${s} of dim ${d} is negative (PyTorch: "Trying to create tensor with negative dimension")`, pos);
  });
  try {
    return { spec, layout: baseLayout(spec.dtype, spec.shape) };
  } catch (e) {
    // A size past 2^53 (torch.arange(0., 1e10, 1e-10) has 1e20 elements): PyTorch refuses it too.
    if (e instanceof ViewError) return fail(`${what}: ${e.message}`, pos);
    throw e;
  }
}

/** Applies `op` (checked as PyTorch checks it) and records it in the spec. */
export function withOp(t: TensorValue, op: TensorViewOp, what: string, pos: Position): TensorValue {
  let next: ReturnType<typeof applyViewOp>;
  try {
    next = applyViewOp(t.layout, op);
  } catch (e) {
    if (e instanceof ViewError) return fail(`${what}: ${e.message}`, pos);
    throw e;
  }
  // Data-carrying factories keep their dtype: a later .to() converts their values.
  const untouched = t.spec.asStrided === undefined && (t.spec.views ?? []).length === 0 && t.spec.factory !== 'tensor' && t.spec.factory !== 'from_numpy';
  if (op.kind === 'contiguous' && !next.copies) return t;
  if (op.kind === 'to' && op.dtype === t.layout.dtype) return t;
  // The first dtype change of a factory's contiguous tensor is the factory's dtype (same strides, same values).
  if (op.kind === 'to' && untouched) return { spec: { ...t.spec, dtype: op.dtype }, layout: { ...t.layout, dtype: op.dtype } };
  if (op.kind === 'asStrided' && untouched && op.offset === null) return { spec: { ...t.spec, asStrided: { size: op.size, stride: op.stride } }, layout: next.layout };
  return { spec: { ...t.spec, views: [...(t.spec.views ?? []), op] }, layout: next.layout };
}
