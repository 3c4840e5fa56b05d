// The tensor constructors of the inputs line, with PyTorch's shapes, strides, dtypes and keyword
// names: torch.randn, rand, randint, ones, zeros, full, arange, empty, empty_strided,
// torch.testing.make_tensor, and (torch-input-data.ts) torch.tensor and
// torch.from_numpy(numpy.load(path)). Sizes as varargs, a tuple/list or size=; dtype=, device=
// (ignored: inputs live where the backend puts them), requires_grad=, layout=, pin_memory=,
// generator= accepted. Invariant: each returns the TensorValue PyTorch's constructor would give
// (shape, strides, dtype), or one DefinitionImportError at the call.

import type { DataType } from '@tsfuser/fusion-ir';
import type { TensorFactory, TensorInputSpec } from '../io/input-spec.js';
import { spanOf } from '../io/tensor-views.js';
import type { Expr, Keyword } from './ast.js';
import type { Position } from './tokens.js';
import { fail } from './definition-interpreter.js';
import { fromNumpy, tensorLiteral } from './torch-input-data.js';
import { checkKeywords, dotted, intList, integer, isNone, keyword, newTensor, number, numberValue, resolve, sizesOf, torchDtype, withOp, type Lookup, type TensorValue } from './torch-input-exprs.js';

function factoryDtype(keywords: readonly Keyword[], lookup: Lookup, fallback: DataType): DataType {
  const kw = keyword(keywords, 'dtype');
  return kw === undefined || isNone(kw.value) ? fallback : torchDtype(kw.value, lookup);
}

function full(e: Expr & { kind: 'call' }, lookup: Lookup): TensorValue {
  const sizeKw = keyword(e.keywords, 'size');
  const shape = sizeKw !== undefined ? intList(sizeKw.value, lookup, 'torch.full') : e.args[0] !== undefined ? intList(e.args[0], lookup, 'torch.full') : fail('torch.full: missing the size tuple', e.pos);
  const fillExpr = e.args[sizeKw === undefined ? 1 : 0] ?? keyword(e.keywords, 'fill_value')?.value;
  if (fillExpr === undefined) return fail('torch.full: missing fill_value', e.pos);
  checkKeywords(e.keywords, ['size', 'fill_value', 'dtype'], 'torch.full');
  const r = resolve(fillExpr, lookup);
  let fill: number | boolean;
  let inferred: DataType;
  if (r.kind === 'name' && (r.id === 'True' || r.id === 'False')) {
    fill = r.id === 'True';
    inferred = 'Bool';
  } else {
    const n = numberValue(r, lookup);
    if (n === null) return fail('torch.full: fill_value must be a number or a bool', fillExpr.pos);
    fill = n.value;
    inferred = n.isFloat ? 'Float' : 'Int';
  }
  const dtype = factoryDtype(e.keywords, lookup, inferred);
  if (typeof fill === 'number') checkFill(fill, dtype, fillExpr.pos);
  return newTensor({ kind: 'tensor', factory: 'full', shape, dtype, fill }, 'torch.full', e.pos);
}

/** The largest finite value of each floating dtype, and c10's name of it in overflow messages. */
const FLOAT_LIMITS: Partial<Record<DataType, { max: number; name: string }>> = {
  Float: { max: 3.4028234663852886e38, name: 'float' },
  Half: { max: 65504, name: 'c10::Half' },
  BFloat16: { max: 3.3895313892515355e38, name: 'c10::BFloat16' },
  Float8_e4m3fn: { max: 448, name: 'c10::Float8_e4m3fn' },
  Float8_e5m2: { max: 57344, name: 'c10::Float8_e5m2' },
};

/** The range of each integral dtype ([low, high)), and c10's name of it. */
const INT_LIMITS: Partial<Record<DataType, { low: number; high: number; name: string }>> = {
  Int32: { low: -(2 ** 31), high: 2 ** 31, name: 'int' },
  Int: { low: -(2 ** 63), high: 2 ** 63, name: 'int64_t' },
  UInt64: { low: 0, high: 2 ** 64, name: 'uint64_t' },
};

/**
 * c10's checked conversion of torch.full's fill value to the tensor's dtype: a finite value past
 * a floating dtype's range, and nan, ±inf or an out-of-range value for an integral dtype, raise
 * "value cannot be converted to type … without overflow" (bool takes anything).
 */
function checkFill(fill: number, dtype: DataType, pos: Position): void {
  const f = FLOAT_LIMITS[dtype];
  if (f !== undefined && Number.isFinite(fill) && Math.abs(fill) > f.max) {
    fail(`torch.full: value cannot be converted to type ${f.name} without overflow (fill_value ${fill})`, pos);
  }
  const i = INT_LIMITS[dtype];
  if (i !== undefined && (!Number.isFinite(fill) || Math.trunc(fill) < i.low || Math.trunc(fill) >= i.high)) {
    fail(`torch.full: value cannot be converted to type ${i.name} without overflow (fill_value ${fill})`, pos);
  }
}

function randint(e: Expr & { kind: 'call' }, lookup: Lookup): TensorValue {
  checkKeywords(e.keywords, ['low', 'high', 'size', 'dtype'], 'torch.randint');
  const pos = [...e.args];
  const sizeKw = keyword(e.keywords, 'size');
  const sizeExpr = sizeKw?.value ?? pos.pop();
  if (sizeExpr === undefined) return fail('torch.randint: missing the size tuple', e.pos);
  const highExpr = keyword(e.keywords, 'high')?.value ?? pos.pop();
  if (highExpr === undefined) return fail('torch.randint: missing high', e.pos);
  const lowExpr = keyword(e.keywords, 'low')?.value ?? pos.pop();
  if (pos.length > 0) return fail('torch.randint: too many positional arguments', (pos[0] as Expr).pos);
  const low = lowExpr === undefined ? 0 : integer(lowExpr, lookup, 'torch.randint low');
  const high = integer(highExpr, lookup, 'torch.randint high');
  if (high <= low) return fail(`torch.randint: high (${high}) must be greater than low (${low})`, highExpr.pos);
  const shape = intList(sizeExpr, lookup, 'torch.randint');
  return newTensor({ kind: 'tensor', factory: 'randint', shape, dtype: factoryDtype(e.keywords, lookup, 'Int'), low, high }, 'torch.randint', e.pos);
}

function arange(e: Expr & { kind: 'call' }, lookup: Lookup): TensorValue {
  checkKeywords(e.keywords, ['start', 'end', 'step', 'dtype'], 'torch.arange');
  const values = e.args.map((a) => numberValue(a, lookup) ?? fail('torch.arange: expected a number', a.pos));
  const kw = (name: string): { value: number; isFloat: boolean } | undefined => {
    const k = keyword(e.keywords, name);
    return k === undefined ? undefined : (numberValue(k.value, lookup) ?? fail(`torch.arange: ${name} must be a number`, k.pos));
  };
  if (values.length > 3) return fail('torch.arange: at most start, end and step', e.pos);
  const [a, b, c] = values;
  const start = kw('start') ?? (b === undefined ? { value: 0, isFloat: false } : a);
  const end = kw('end') ?? (b === undefined ? a : b);
  const step = kw('step') ?? c ?? { value: 1, isFloat: false };
  if (start === undefined || end === undefined) return fail('torch.arange: missing end', e.pos);
  if (step.value === 0 || !Number.isFinite(step.value) || !Number.isFinite(start.value) || !Number.isFinite(end.value)) {
    return fail('torch.arange: start, end and step must be finite and step nonzero', e.pos);
  }
  if ((end.value - start.value) * step.value < 0) return fail(`torch.arange: the bounds ${start.value}, ${end.value} are inconsistent with step ${step.value}`, e.pos);
  const length = Math.ceil((end.value - start.value) / step.value);
  const inferred: DataType = start.isFloat || end.isFloat || step.isFloat ? 'Float' : 'Int';
  const spec: TensorInputSpec = { kind: 'tensor', factory: 'arange', shape: [length], dtype: factoryDtype(e.keywords, lookup, inferred), start: start.value, step: step.value };
  return newTensor(spec, 'torch.arange', e.pos);
}

function emptyStrided(e: Expr & { kind: 'call' }, lookup: Lookup): TensorValue {
  checkKeywords(e.keywords, ['size', 'stride', 'dtype'], 'torch.empty_strided');
  const sizeExpr = e.args[0] ?? keyword(e.keywords, 'size')?.value;
  const strideExpr = e.args[1] ?? keyword(e.keywords, 'stride')?.value;
  if (sizeExpr === undefined || strideExpr === undefined) return fail('torch.empty_strided: needs size and stride', e.pos);
  const size = intList(sizeExpr, lookup, 'torch.empty_strided');
  const stride = intList(strideExpr, lookup, 'torch.empty_strided');
  if (size.length !== stride.length) return fail(`torch.empty_strided: ${size.length} sizes but ${stride.length} strides`, e.pos);
  if (size.some((s) => s < 0) || stride.some((s) => s < 0)) return fail('torch.empty_strided: sizes and strides must be non-negative', e.pos);
  const base = newTensor({ kind: 'tensor', factory: 'zeros', shape: [spanOf(size, stride)], dtype: factoryDtype(e.keywords, lookup, 'Float') }, 'torch.empty_strided', e.pos);
  return withOp(base, { kind: 'asStrided', size, stride, offset: null }, 'torch.empty_strided', e.pos);
}

function channelsLast(t: TensorValue, what: string, pos: Position): TensorValue {
  if (t.layout.sizes.length !== 4) return fail(`${what}: torch.channels_last needs a rank-4 tensor, got rank ${t.layout.sizes.length}`, pos);
  const nhwc = withOp(t, { kind: 'permute', dims: [0, 2, 3, 1] }, what, pos);
  return withOp(withOp(nhwc, { kind: 'contiguous' }, what, pos), { kind: 'permute', dims: [0, 3, 1, 2] }, what, pos);
}

export function memoryFormat(t: TensorValue, keywords: readonly Keyword[], lookup: Lookup, what: string): TensorValue {
  const kw = keyword(keywords, 'memory_format');
  if (kw === undefined) return t;
  const name = dotted(resolve(kw.value, lookup));
  if (name === 'torch.channels_last') return channelsLast(t, what, kw.pos);
  if (name === 'torch.contiguous_format' || name === 'torch.preserve_format') return t;
  return fail(`${what}: unsupported memory_format ${name ?? 'expression'} (supported: torch.contiguous_format, torch.channels_last)`, kw.pos);
}

function makeTensor(e: Expr & { kind: 'call' }, lookup: Lookup): TensorValue {
  const what = 'torch.testing.make_tensor';
  checkKeywords(e.keywords, ['size', 'shape', 'dtype', 'low', 'high', 'noncontiguous', 'memory_format'], what);
  let args = [...e.args];
  // make_tensor(shape, dtype, device) as older scripts write it: a trailing positional dtype.
  const last = args[args.length - 1];
  let dtype: DataType | undefined;
  if (last !== undefined && dotted(resolve(last, lookup))?.startsWith('torch.') === true) {
    dtype = torchDtype(last, lookup);
    args = args.slice(0, -1);
  }
  const kwDtype = keyword(e.keywords, 'dtype');
  if (kwDtype !== undefined) dtype = torchDtype(kwDtype.value, lookup);
  if (dtype === undefined) return fail(`${what}: missing dtype=`, e.pos);
  const shape = sizesOf(args, e.keywords, lookup, what, e.pos);
  const bound = (name: string): number | undefined => {
    const k = keyword(e.keywords, name);
    return k === undefined || isNone(k.value) ? undefined : number(k.value, lookup, `${what} ${name}`);
  };
  const spec: TensorInputSpec = { kind: 'tensor', factory: 'make_tensor', shape, dtype };
  const low = bound('low');
  const high = bound('high');
  if (low !== undefined) spec.low = low;
  if (high !== undefined) spec.high = high;
  const nonContiguous = keyword(e.keywords, 'noncontiguous');
  const numel = shape.reduce((a, b) => a * b, 1);
  let t: TensorValue;
  if (nonContiguous !== undefined && resolve(nonContiguous.value, lookup).kind === 'name' && dotted(resolve(nonContiguous.value, lookup)) === 'True' && numel > 1) {
    // As PyTorch: the last dim doubled, then every other element (stride 2 in the last dim).
    const wide = [...shape];
    wide[wide.length - 1] = (wide[wide.length - 1] as number) * 2;
    t = withOp(newTensor({ ...spec, shape: wide }, what, e.pos), { kind: 'slice', dim: -1, start: null, stop: null, step: 2 }, what, e.pos);
  } else {
    t = newTensor(spec, what, e.pos);
  }
  return memoryFormat(t, e.keywords, lookup, what);
}

const SIMPLE_FACTORIES: Readonly<Record<string, TensorFactory>> = {
  'torch.randn': 'randn',
  'torch.rand': 'rand',
  'torch.ones': 'ones',
  'torch.zeros': 'zeros',
  // Values of empty tensors are unspecified: zeros.
  'torch.empty': 'zeros',
};

export function factoryCall(e: Expr & { kind: 'call' }, fname: string, lookup: Lookup, scriptDirectory: string | null): TensorValue | null {
  const simple = SIMPLE_FACTORIES[fname];
  if (simple !== undefined) {
    checkKeywords(e.keywords, ['size', 'dtype', 'memory_format'], fname);
    const shape = sizesOf(e.args, e.keywords, lookup, fname, e.pos);
    return memoryFormat(newTensor({ kind: 'tensor', factory: simple, shape, dtype: factoryDtype(e.keywords, lookup, 'Float') }, fname, e.pos), e.keywords, lookup, fname);
  }
  switch (fname) {
    case 'torch.full':
      return full(e, lookup);
    case 'torch.randint':
      return randint(e, lookup);
    case 'torch.arange':
      return arange(e, lookup);
    case 'torch.empty_strided':
      return emptyStrided(e, lookup);
    case 'torch.testing.make_tensor':
    case 'make_tensor':
      return makeTensor(e, lookup);
    case 'torch.tensor':
      return tensorLiteral(e, lookup);
    case 'torch.from_numpy':
      return fromNumpy(e, lookup, scriptDirectory);
    default:
      return null;
  }
}
