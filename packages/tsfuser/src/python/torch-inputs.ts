// Evaluates the `inputs = [...]` list of a repro script into InputSpecs (materialized later with
// a seeded PRNG). Supported, with PyTorch's shapes, strides, dtypes and keyword names:
//   scalars      python numbers, True/False, float("inf") / float("-inf") / float("nan")
//   factories    torch.randn, rand, randint, ones, zeros, full, arange, empty, empty_strided,
//                torch.testing.make_tensor (low, high, noncontiguous, memory_format); sizes as
//                varargs, a tuple/list or size=; dtype=, device= (ignored: inputs live where the
//                backend puts them), requires_grad=, layout=, pin_memory=, generator= accepted
//   methods      .as_strided(size, stride[, storage_offset]), .t(), .transpose(a, b), .permute,
//                .expand, .unsqueeze, .contiguous([memory_format]), .to(dtype / device),
//                .half() .float() .double() .bfloat16() .int() .long() .bool(), .cuda(), .cpu(),
//                .requires_grad_(), .detach()
//   indexing     x[i], x[a:b:c], x[..., None] and tuples of these
// Every view is checked here with tensor-views.ts (PyTorch's errors: dims out of range, as_strided
// outside its storage, negative sizes); anything else is one DefinitionImportError naming the
// construct at its line and column. Sizes are not checked against the allocation limits here: a
// script whose inputs are too large still imports (its definition is usable), and `tsfuser run`
// refuses the inputs with the input index before it allocates.

import type { DataType } from '@tsfuser/fusion-ir';
import type { InputSpec, TensorFactory, TensorInputSpec, TensorViewOp } from '../io/input-spec.js';
import { applyViewOp, baseLayout, spanOf, ViewError, type StridedLayout } from '../io/tensor-views.js';
import { sourceName } from './straight-line.js';
import type { Expr, Keyword } from './ast.js';
import type { Position } from './tokens.js';
import { fail } from './definition-interpreter.js';

const TORCH_DTYPES: Readonly<Record<string, DataType>> = {
  float32: 'Float', float: 'Float', float16: 'Half', half: 'Half', bfloat16: 'BFloat16', float64: 'Double', double: 'Double',
  int32: 'Int32', int: 'Int32', int64: 'Int', long: 'Int', bool: 'Bool',
};

const METHOD_DTYPES: Readonly<Record<string, DataType>> = { float: 'Float', half: 'Half', bfloat16: 'BFloat16', double: 'Double', int: 'Int32', long: 'Int', bool: 'Bool' };

const NO_OP_METHODS = new Set(['cuda', 'cpu', 'requires_grad_', 'detach']);

/** Keywords of the factories that change nothing tsfuser models. */
const IGNORED_KEYWORDS = new Set(['device', 'requires_grad', 'layout', 'pin_memory', 'generator', 'non_blocking', 'exclude_zero']);

type Lookup = (name: string) => Expr | undefined;

interface TensorValue {
  spec: TensorInputSpec;
  layout: StridedLayout;
}

function resolve(e: Expr, lookup: Lookup): Expr {
  let cur = e;
  for (let hops = 0; cur.kind === 'name' && hops < 64; hops += 1) {
    const bound = lookup(cur.id);
    if (bound === undefined) return cur;
    cur = bound;
  }
  return cur;
}

function numberValue(e: Expr, lookup: Lookup): { value: number; isFloat: boolean } | null {
  const r = resolve(e, lookup);
  if (r.kind === 'number') return { value: r.value, isFloat: r.isFloat };
  if (r.kind === 'unary') {
    const inner = numberValue(r.operand, lookup);
    return inner === null ? null : { value: r.op === '-' ? -inner.value : inner.value, isFloat: inner.isFloat };
  }
  if (r.kind === 'call' && r.func.kind === 'name' && r.func.id === 'float' && r.args.length === 1 && r.args[0]?.kind === 'string') {
    const text = r.args[0].value.trim().toLowerCase();
    const special: Readonly<Record<string, number>> = { inf: Infinity, '+inf': Infinity, '-inf': -Infinity, nan: NaN, infinity: Infinity, '-infinity': -Infinity };
    const v = special[text] ?? (/^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/.test(text) ? Number(text) : undefined);
    return v === undefined ? null : { value: v, isFloat: true };
  }
  return null;
}

function number(e: Expr, lookup: Lookup, what: string): number {
  const n = numberValue(e, lookup);
  if (n === null) return fail(`${what}: expected a number`, e.pos);
  return n.value;
}

function integer(e: Expr, lookup: Lookup, what: string): number {
  const n = numberValue(e, lookup);
  if (n === null || n.isFloat || !Number.isSafeInteger(n.value)) return fail(`${what}: expected an integer`, e.pos);
  return n.value;
}

function isNone(e: Expr): boolean {
  return e.kind === 'name' && e.id === 'None';
}

function intList(e: Expr, lookup: Lookup, what: string): number[] {
  const r = resolve(e, lookup);
  if (r.kind === 'list' || r.kind === 'tuple') return r.elements.map((x) => integer(x, lookup, what));
  if (r.kind === 'call' && r.func.kind === 'attribute' && r.func.attr === 'Size' && r.args[0] !== undefined) return intList(r.args[0], lookup, what);
  return fail(`${what}: expected a tuple or list of integers`, e.pos);
}

function dotted(e: Expr): string | null {
  if (e.kind === 'name') return e.id;
  if (e.kind === 'attribute') {
    const base = dotted(e.object);
    return base === null ? null : `${base}.${e.attr}`;
  }
  return null;
}

function torchDtype(e: Expr, lookup: Lookup): DataType {
  const name = dotted(resolve(e, lookup));
  const short = name?.startsWith('torch.') === true ? name.slice(6) : null;
  const dtype = short === null ? undefined : TORCH_DTYPES[short];
  if (dtype === undefined) {
    const why = short === 'uint8' ? ' (fusion-ir has no UInt8 dtype)' : '';
    return fail(`unsupported dtype ${name ?? 'expression'}${why} (supported: ${Object.keys(TORCH_DTYPES).map((k) => `torch.${k}`).join(', ')})`, e.pos);
  }
  return dtype;
}

function keyword(keywords: readonly Keyword[], name: string): Keyword | undefined {
  return keywords.find((k) => k.name === name);
}

/** Sizes given as varargs (`randn(2, 3)`), one tuple/list (`randn((2, 3))`) or `size=`. */
function sizesOf(args: readonly Expr[], keywords: readonly Keyword[], lookup: Lookup, what: string, pos: Position): number[] {
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

function checkKeywords(keywords: readonly Keyword[], allowed: readonly string[], what: string): void {
  for (const k of keywords) {
    if (!allowed.includes(k.name) && !IGNORED_KEYWORDS.has(k.name)) fail(`${what}: unsupported keyword '${k.name}'`, k.pos);
  }
}

function newTensor(spec: TensorInputSpec, what: string, pos: Position): TensorValue {
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
function withOp(t: TensorValue, op: TensorViewOp, what: string, pos: Position): TensorValue {
  let next: ReturnType<typeof applyViewOp>;
  try {
    next = applyViewOp(t.layout, op);
  } catch (e) {
    if (e instanceof ViewError) return fail(`${what}: ${e.message}`, pos);
    throw e;
  }
  const untouched = t.spec.asStrided === undefined && (t.spec.views ?? []).length === 0;
  if (op.kind === 'contiguous' && !next.copies) return t;
  if (op.kind === 'to' && op.dtype === t.layout.dtype) return t;
  // The first dtype change of a factory's contiguous tensor is the factory's dtype (same strides, same values).
  if (op.kind === 'to' && untouched) return { spec: { ...t.spec, dtype: op.dtype }, layout: { ...t.layout, dtype: op.dtype } };
  if (op.kind === 'asStrided' && untouched && op.offset === null) return { spec: { ...t.spec, asStrided: { size: op.size, stride: op.stride } }, layout: next.layout };
  return { spec: { ...t.spec, views: [...(t.spec.views ?? []), op] }, layout: next.layout };
}

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

function memoryFormat(t: TensorValue, keywords: readonly Keyword[], lookup: Lookup, what: string): TensorValue {
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

function factoryCall(e: Expr & { kind: 'call' }, fname: string, lookup: Lookup): TensorValue | null {
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
    default:
      return null;
  }
}

function dimsOf(args: readonly Expr[], lookup: Lookup, what: string): number[] {
  const first = args[0];
  if (args.length === 1 && first !== undefined && ['list', 'tuple'].includes(resolve(first, lookup).kind)) return intList(first, lookup, what);
  return args.map((a) => integer(a, lookup, what));
}

function method(base: TensorValue, e: Expr & { kind: 'call' }, name: string, lookup: Lookup): TensorValue {
  const what = `.${name}()`;
  const arg = (i: number, kw: string): Expr | undefined => e.args[i] ?? keyword(e.keywords, kw)?.value;
  if (NO_OP_METHODS.has(name)) return base;
  const dtype = METHOD_DTYPES[name];
  if (dtype !== undefined) return withOp(base, { kind: 'to', dtype }, what, e.pos);
  switch (name) {
    case 'as_strided': {
      const size = arg(0, 'size');
      const stride = arg(1, 'stride');
      if (size === undefined || stride === undefined) return fail('.as_strided(size, stride) needs two tuples', e.pos);
      const offsetExpr = arg(2, 'storage_offset');
      const offset = offsetExpr === undefined || isNone(offsetExpr) ? null : integer(offsetExpr, lookup, '.as_strided storage_offset');
      return withOp(base, { kind: 'asStrided', size: intList(size, lookup, what), stride: intList(stride, lookup, what), offset }, '.as_strided()', e.pos);
    }
    case 't':
      if (base.layout.sizes.length > 2) return fail(`.t() expects a tensor with <= 2 dimensions, got ${base.layout.sizes.length}`, e.pos);
      return base.layout.sizes.length < 2 ? base : withOp(base, { kind: 'transpose', dim0: 0, dim1: 1 }, what, e.pos);
    case 'transpose':
    case 'swapaxes':
    case 'swapdims': {
      const a = arg(0, 'dim0');
      const b = arg(1, 'dim1');
      if (a === undefined || b === undefined) return fail(`${what} needs two dims`, e.pos);
      return withOp(base, { kind: 'transpose', dim0: integer(a, lookup, what), dim1: integer(b, lookup, what) }, what, e.pos);
    }
    case 'permute':
      return withOp(base, { kind: 'permute', dims: dimsOf(e.args, lookup, what) }, what, e.pos);
    case 'expand':
      return withOp(base, { kind: 'expand', sizes: dimsOf(e.args, lookup, what) }, what, e.pos);
    case 'unsqueeze': {
      const d = arg(0, 'dim');
      if (d === undefined) return fail('.unsqueeze() needs a dim', e.pos);
      return withOp(base, { kind: 'unsqueeze', dim: integer(d, lookup, what) }, what, e.pos);
    }
    case 'contiguous': {
      const formatted = memoryFormat(base, e.keywords, lookup, what);
      return formatted === base ? withOp(base, { kind: 'contiguous' }, what, e.pos) : formatted;
    }
    case 'to': {
      let t = base;
      for (const a of [...e.args, ...e.keywords.filter((k) => k.name === 'dtype').map((k) => k.value)]) {
        const r = resolve(a, lookup);
        if (r.kind === 'string' || (r.kind === 'call' && dotted(r.func) === 'torch.device')) continue;
        t = withOp(t, { kind: 'to', dtype: torchDtype(a, lookup) }, what, a.pos);
      }
      for (const k of e.keywords) if (!['dtype', 'device', 'non_blocking', 'copy', 'memory_format'].includes(k.name)) fail(`.to(): unsupported keyword '${k.name}'`, k.pos);
      return memoryFormat(t, e.keywords, lookup, what);
    }
    default:
      return fail(`unsupported tensor method '.${name}()' in an inputs list`, e.pos);
  }
}

/** `x[...]`: integers select, slices narrow, None adds a dim, one Ellipsis stands for the dims not named. */
function index(base: TensorValue, e: Expr & { kind: 'subscript' }, lookup: Lookup): TensorValue {
  const items = e.index.kind === 'tuple' ? e.index.elements : [e.index];
  const isEllipsis = (x: Expr): boolean => x.kind === 'name' && x.id === 'Ellipsis';
  const isSlice = (x: Expr): x is Expr & { kind: 'call' } => x.kind === 'call' && x.func.kind === 'name' && x.func.id === 'slice';
  const consuming = items.filter((x) => !isNone(x) && !isEllipsis(x)).length;
  const rank = base.layout.sizes.length;
  if (items.filter(isEllipsis).length > 1) return fail('an index can only have a single ellipsis (...)', e.pos);
  if (consuming > rank) return fail(`too many indices for a tensor of dimension ${rank}`, e.pos);
  let t = base;
  let dim = 0;
  for (const item of items) {
    if (isEllipsis(item)) {
      dim += rank - consuming;
    } else if (isNone(item)) {
      t = withOp(t, { kind: 'unsqueeze', dim }, 'indexing with None', item.pos);
      dim += 1;
    } else if (isSlice(item)) {
      const bound = (x: Expr | undefined): number | null => (x === undefined || isNone(x) ? null : integer(x, lookup, 'slice bound'));
      const step = bound(item.args[2]) ?? 1;
      t = withOp(t, { kind: 'slice', dim, start: bound(item.args[0]), stop: bound(item.args[1]), step }, 'slice', item.pos);
      dim += 1;
    } else if (numberValue(item, lookup) !== null) {
      t = withOp(t, { kind: 'select', dim, index: integer(item, lookup, 'index') }, 'index', item.pos);
    } else {
      return fail('unsupported index (supported: integers, slices, None and ...)', item.pos);
    }
  }
  return t;
}

function evalTensor(e: Expr, lookup: Lookup): TensorValue {
  const r = resolve(e, lookup);
  if (r.kind === 'name') return fail(`name '${sourceName(r.id)}' is not defined`, r.pos);
  if (r.kind === 'subscript') return index(evalTensor(r.object, lookup), r, lookup);
  if (r.kind === 'call') {
    const fname = dotted(r.func);
    const made = fname === null ? null : factoryCall(r, fname, lookup);
    if (made !== null) return made;
    if (r.func.kind === 'attribute' && (fname === null || !fname.startsWith('torch.'))) return method(evalTensor(r.func.object, lookup), r, r.func.attr, lookup);
    return fail(
      `unsupported input expression '${fname ?? 'call'}' (supported: torch.randn, rand, randint, ones, zeros, full, arange, empty, empty_strided, torch.testing.make_tensor, python scalars)`,
      r.pos,
    );
  }
  return fail(`unsupported input expression (a ${r.kind})`, r.pos);
}

/** One element of an inputs list. `lookup` resolves names bound at the script's top level. */
export function evalInput(e: Expr, lookup: Lookup): InputSpec {
  const r = resolve(e, lookup);
  if (r.kind === 'name' && (r.id === 'True' || r.id === 'False')) return { kind: 'scalar', value: r.id === 'True', isFloat: false };
  const n = numberValue(r, lookup);
  if (n !== null) return { kind: 'scalar', value: n.value, isFloat: n.isFloat };
  return evalTensor(r, lookup).spec;
}

export function evalInputList(e: Expr, lookup: Lookup): InputSpec[] {
  const r = resolve(e, lookup);
  if (r.kind !== 'list' && r.kind !== 'tuple') return fail('inputs must be a list', e.pos);
  return r.elements.map((x) => evalInput(x, lookup));
}
