// The inputs-line expressions that compute rather than view: a comparison of a tensor with a
// Python scalar (`torch.rand(4, 5) > 0.3`, `0.5 <= x`), arithmetic with one (`x * 0.1 + 1`), torch.topk (`torch.topk(x, k)[1]`,
// `.indices`, `.values`, `x.topk(k, dim=0)[0]`), `.reshape(...)`/`.view(...)` sizes with one -1,
// and `.type(...)` (a dtype or a legacy tensor-type string such as 'torch.cuda.HalfTensor').
// Invariant: the op recorded is what PyTorch computes — a comparison promotes both sides to
// torch.result_type(tensor, scalar) first (a Half tensor compares with the scalar rounded to Half;
// an integer tensor against a float scalar compares in Float), topk's indices are Int (int64).

import { isComplexType, isFloatingType, type DataType } from '@tsfuser/fusion-ir';
import type { ArithOp, CompareOp } from '../io/input-spec.js';
import type { Expr } from './ast.js';
import { fail } from './definition-interpreter.js';
import { torchDtype as lookupTorchDtype } from './torch-dtypes.js';
import { integer, intList, keyword, numberValue, resolve, torchDtype, withOp, type Lookup, type TensorValue } from './torch-input-exprs.js';

const COMPARE_OPS: ReadonlySet<string> = new Set(['<', '<=', '>', '>=', '==', '!=']);

/** `a < b` read as `b > a`: the tensor goes on the left. */
const FLIPPED: Readonly<Record<CompareOp, CompareOp>> = { '<': '>', '<=': '>=', '>': '<', '>=': '<=', '==': '==', '!=': '!=' };

export function isCompareOp(op: string): op is CompareOp {
  return COMPARE_OPS.has(op);
}

/** A Python scalar operand: a bool or a number (null when `e` is not one). */
function scalarOperand(e: Expr, lookup: Lookup): { value: number | boolean; kind: 'bool' | 'int' | 'float' } | null {
  const r = resolve(e, lookup);
  if (r.kind === 'name' && (r.id === 'True' || r.id === 'False')) return { value: r.id === 'True', kind: 'bool' };
  const n = numberValue(r, lookup);
  return n === null ? null : { value: n.value, kind: n.isFloat ? 'float' : 'int' };
}

/** torch.result_type(tensor, scalar): a scalar only raises the category (bool < int < float). */
function resultType(tensor: DataType, scalar: 'bool' | 'int' | 'float'): DataType {
  if (isFloatingType(tensor) || isComplexType(tensor)) return tensor;
  if (tensor === 'Bool') return scalar === 'bool' ? 'Bool' : scalar === 'int' ? 'Int' : 'Float';
  return scalar === 'float' ? 'Float' : tensor;
}

/**
 * `left <op> right` with one side a tensor (evaluated by `tensorOf`) and the other a scalar, or
 * null when neither side is a scalar (left for the caller to refuse).
 */
export function comparison(e: Expr & { kind: 'binary' }, lookup: Lookup, tensorOf: (x: Expr) => TensorValue): TensorValue {
  const op = e.op as CompareOp;
  const rightScalar = scalarOperand(e.right, lookup);
  const leftScalar = scalarOperand(e.left, lookup);
  if (rightScalar === null && leftScalar === null) return fail(`'${e.op}' between two tensors is not evaluated in an inputs list (compare a tensor with a Python number)`, e.pos);
  if (rightScalar !== null && leftScalar !== null) return fail(`'${e.op}' between two Python numbers is a bool, not a tensor input`, e.pos);
  const tensor = tensorOf(rightScalar !== null ? e.left : e.right);
  const scalar = (rightScalar ?? leftScalar) as NonNullable<typeof rightScalar>;
  const tensorOp = rightScalar !== null ? op : FLIPPED[op];
  const dtype = tensor.layout.dtype;
  if (isComplexType(dtype) && tensorOp !== '==' && tensorOp !== '!=') return fail(`'${e.op}' is not implemented for complex tensors (PyTorch: only == and != compare complex numbers)`, e.pos);
  const computeDtype = resultType(dtype, scalar.kind);
  return withOp(tensor, { kind: 'compare', op: tensorOp, scalar: scalar.value, computeDtype }, `'${e.op}'`, e.pos);
}

const ARITH_OPS: ReadonlySet<string> = new Set(['+', '-', '*', '/']);

export function isArithOp(op: string): op is ArithOp {
  return ARITH_OPS.has(op);
}

/**
 * `x + 0.5`, `2 * x`, `x / 3`, `1 - x`: a tensor (evaluated by `tensorOf`) and a Python scalar,
 * with PyTorch's result dtype (torch.result_type; `/` of an integer or Bool tensor gives Float)
 * and opmath (Half / BFloat16 computed in Float).
 */
export function arithmetic(e: Expr & { kind: 'binary' }, lookup: Lookup, tensorOf: (x: Expr) => TensorValue): TensorValue {
  const op = e.op as ArithOp;
  const rightScalar = scalarOperand(e.right, lookup);
  const leftScalar = scalarOperand(e.left, lookup);
  if (rightScalar === null && leftScalar === null) return fail(`'${e.op}' between two tensors is not evaluated in an inputs list (combine a tensor with a Python number)`, e.pos);
  if (rightScalar !== null && leftScalar !== null) return fail(`'${e.op}' between two Python numbers is a number, not a tensor input`, e.pos);
  if (op === '/' && leftScalar !== null) return fail(`a Python number divided by a tensor is not evaluated in an inputs list (PyTorch computes it through a reciprocal whose rounding is not reproduced; write the division in the definition)`, e.pos);
  const tensor = tensorOf(rightScalar !== null ? e.left : e.right);
  const scalar = (rightScalar ?? leftScalar) as NonNullable<typeof rightScalar>;
  const source = tensor.layout.dtype;
  if (isComplexType(source)) return fail(`'${e.op}' with a complex tensor is not evaluated in an inputs list`, e.pos);
  if (source === 'Bool' && scalar.kind === 'bool' && op === '-') {
    return fail('Subtraction, the `-` operator, with a bool tensor is not supported. If you are trying to invert a mask, use the `~` or `logical_not()` operator instead.', e.pos);
  }
  const promoted = resultType(source, scalar.kind);
  if (promoted === 'Bool' && op !== '/') return fail(`'${e.op}' of a Bool tensor with a bool (a logical operation in PyTorch) is not evaluated in an inputs list`, e.pos);
  const dtype = op === '/' && !isFloatingType(promoted) ? 'Float' : promoted;
  const computeDtype = dtype === 'Half' || dtype === 'BFloat16' ? 'Float' : dtype;
  return withOp(tensor, { kind: 'arith', op, scalar: scalar.value, scalarOnLeft: leftScalar !== null, dtype, computeDtype }, `'${e.op}'`, e.pos);
}

/** `.reshape(2, -1)` / `.view((2, -1))`: the sizes with the one -1 inferred, PyTorch's errors otherwise. */
export function reshapeSizes(args: readonly Expr[], t: TensorValue, lookup: Lookup, what: string, pos: Expr['pos']): number[] {
  const first = args[0];
  const sizes = args.length === 1 && first !== undefined && ['list', 'tuple'].includes(resolve(first, lookup).kind) ? intList(first, lookup, what) : args.map((a) => integer(a, lookup, what));
  const numel = t.layout.sizes.reduce((a, b) => a * b, 1);
  const inferred = sizes.filter((s) => s === -1).length;
  if (inferred > 1) return fail(`${what}: only one dimension can be inferred`, pos);
  sizes.forEach((s, d) => {
    if (s < -1) fail(`${what}: invalid shape dimension ${s} at dim ${d}`, pos);
  });
  const known = sizes.filter((s) => s !== -1).reduce((a, b) => a * b, 1);
  if (inferred === 1) {
    if (known === 0 || numel % known !== 0) return fail(`${what}: shape '[${sizes.join(', ')}]' is invalid for input of size ${numel}`, pos);
    return sizes.map((s) => (s === -1 ? numel / known : s));
  }
  if (known !== numel) return fail(`${what}: shape '[${sizes.join(', ')}]' is invalid for input of size ${numel}`, pos);
  return sizes;
}

/** The legacy tensor-type names `.type()` accepts ('torch.FloatTensor', 'torch.cuda.HalfTensor' …). */
const TENSOR_TYPE_NAMES: Readonly<Record<string, string>> = {
  FloatTensor: 'float32',
  DoubleTensor: 'float64',
  HalfTensor: 'float16',
  BFloat16Tensor: 'bfloat16',
  IntTensor: 'int32',
  LongTensor: 'int64',
  BoolTensor: 'bool',
  ByteTensor: 'uint8',
  CharTensor: 'int8',
  ShortTensor: 'int16',
};

/** `.type(torch.float16)`, `.type('torch.HalfTensor')`, `.type('torch.cuda.HalfTensor')`, `.type(dtype=…)`. */
export function typeMethodDtype(e: Expr & { kind: 'call' }, lookup: Lookup): DataType {
  const arg = e.args[0] ?? keyword(e.keywords, 'dtype')?.value;
  if (arg === undefined) return fail('.type() without a dtype returns the type name (a string), not a tensor', e.pos);
  const r = resolve(arg, lookup);
  if (r.kind !== 'string') return torchDtype(arg, lookup);
  const m = /^torch\.(?:cuda\.)?(\w+)$/.exec(r.value);
  const dtypeName = m === null ? undefined : TENSOR_TYPE_NAMES[m[1] as string];
  if (dtypeName === undefined) return fail(`.type('${r.value}'): invalid type (expected e.g. 'torch.FloatTensor' or 'torch.cuda.HalfTensor')`, r.pos);
  const found = lookupTorchDtype(dtypeName);
  return found.kind === 'dtype' ? found.dtype : fail(`.type('${r.value}'): ${found.message}`, r.pos);
}

/** The call `torch.topk(x, …)` or `x.topk(…)` inside `e`, or null. */
export function topkCall(e: Expr): (Expr & { kind: 'call' }) | null {
  if (e.kind !== 'call' || e.func.kind !== 'attribute' || e.func.attr !== 'topk') return null;
  return e;
}

/** `torch.topk(x, k, dim=-1, largest=True, sorted=True)` picked by `output`. */
export function topk(call: Expr & { kind: 'call' }, output: 'values' | 'indices', lookup: Lookup, tensorOf: (x: Expr) => TensorValue): TensorValue {
  const isFunction = call.func.kind === 'attribute' && call.func.object.kind === 'name' && call.func.object.id === 'torch';
  const args = [...call.args];
  const inputExpr = isFunction ? (args.shift() ?? keyword(call.keywords, 'input')?.value) : call.func.kind === 'attribute' ? call.func.object : undefined;
  if (inputExpr === undefined) return fail('torch.topk: missing the input tensor', call.pos);
  for (const k of call.keywords) if (!['input', 'k', 'dim', 'largest', 'sorted'].includes(k.name)) fail(`torch.topk: unsupported keyword '${k.name}'`, k.pos);
  const get = (i: number, name: string): Expr | undefined => args[i] ?? keyword(call.keywords, name)?.value;
  const kExpr = get(0, 'k');
  if (kExpr === undefined) return fail('torch.topk: missing k', call.pos);
  const dimExpr = get(1, 'dim');
  const flag = (i: number, name: string): boolean => {
    const x = get(i, name);
    if (x === undefined) return true;
    const r = resolve(x, lookup);
    if (r.kind === 'name' && (r.id === 'True' || r.id === 'False')) return r.id === 'True';
    return fail(`torch.topk: ${name} must be True or False`, x.pos);
  };
  const largest = flag(2, 'largest');
  flag(3, 'sorted');
  const t = tensorOf(inputExpr);
  if (isComplexType(t.layout.dtype)) return fail(`torch.topk: not implemented for ${t.layout.dtype}`, call.pos);
  const op = { kind: 'topk' as const, k: integer(kExpr, lookup, 'torch.topk k'), dim: dimExpr === undefined ? -1 : integer(dimExpr, lookup, 'torch.topk dim'), largest, output };
  return withOp(t, op, 'torch.topk', call.pos);
}
