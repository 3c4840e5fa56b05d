// Evaluates the `inputs = [...]` list of a repro script into InputSpecs (materialized later with
// a seeded PRNG, or from the data they carry). Supported, with PyTorch's shapes, strides, dtypes
// and keyword names:
//   scalars      python numbers, True/False, float("inf") / float("-inf") / float("nan")
//   factories    torch.randn, rand, randint, ones, zeros, full, arange, empty, empty_strided,
//                torch.testing.make_tensor, torch.tensor([...]), torch.from_numpy(numpy.load(
//                'x.npy')) (torch-input-factories.ts, torch-input-data.ts); every dtype tsfuser
//                has (fp8, complex, uint64 included)
//   methods      .as_strided(size, stride[, storage_offset]), .t(), .transpose(a, b), .permute,
//                .expand, .unsqueeze, .contiguous([memory_format]), .clone([memory_format]),
//                .reshape / .view (one -1), .to(dtype / device), .type(dtype or 'torch.cuda.
//                HalfTensor'), .half() .float() .double() .bfloat16() .int() .long() .bool()
//                .cfloat() .cdouble(), .cuda(), .cpu(), .requires_grad_(), .detach()
//   computed     comparisons with a Python scalar (`torch.rand(3) > 0.3`), torch.topk(...)[0|1]
//                (and .values / .indices, x.topk(...)) (torch-input-compute.ts)
//   indexing     x[i], x[a:b:c], x[..., None] and tuples of these
// Every view is checked here with tensor-views.ts (PyTorch's errors: dims out of range, as_strided
// outside its storage, negative sizes, a view across non-contiguous dims); anything else is one
// DefinitionImportError naming the construct at its line and column. Sizes are not checked
// against the allocation limits here: a script whose inputs are too large still imports (its
// definition is usable), and `tsfuser run` refuses the inputs with the input index before it
// allocates.

import type { DataType } from '@tsfuser/fusion-ir';
import type { InputSpec } from '../io/input-spec.js';
import { sourceName } from './straight-line.js';
import type { Expr } from './ast.js';
import { fail } from './definition-interpreter.js';
import { arithmetic, comparison, isArithOp, isCompareOp, reshapeSizes, topk, topkCall, typeMethodDtype } from './torch-input-compute.js';
import { dotted, integer, intList, isNone, keyword, numberValue, resolve, torchDtype, withOp, type Lookup, type TensorValue } from './torch-input-exprs.js';
import { factoryCall, memoryFormat } from './torch-input-factories.js';

const METHOD_DTYPES: Readonly<Record<string, DataType>> = {
  float: 'Float',
  half: 'Half',
  bfloat16: 'BFloat16',
  double: 'Double',
  int: 'Int32',
  long: 'Int',
  bool: 'Bool',
  cfloat: 'ComplexFloat',
  cdouble: 'ComplexDouble',
};

const NO_OP_METHODS = new Set(['cuda', 'cpu', 'requires_grad_', 'detach']);

/** Where evaluation happens: the script's bindings and directory (for numpy.load paths). */
interface Scope {
  lookup: Lookup;
  scriptDirectory: string | null;
}

function dimsOf(args: readonly Expr[], lookup: Lookup, what: string): number[] {
  const first = args[0];
  if (args.length === 1 && first !== undefined && ['list', 'tuple'].includes(resolve(first, lookup).kind)) return intList(first, lookup, what);
  return args.map((a) => integer(a, lookup, what));
}

function method(base: TensorValue, e: Expr & { kind: 'call' }, name: string, scope: Scope): TensorValue {
  const lookup = scope.lookup;
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
    case 'clone': {
      for (const k of e.keywords) if (k.name !== 'memory_format') fail(`.clone(): unsupported keyword '${k.name}'`, k.pos);
      const format = keyword(e.keywords, 'memory_format');
      const name = format === undefined ? null : dotted(resolve(format.value, lookup));
      if (name === null || name === 'torch.preserve_format') return withOp(base, { kind: 'clone' }, what, e.pos);
      const formatted = memoryFormat(base, e.keywords, lookup, what);
      return formatted === base ? withOp(base, { kind: 'contiguous' }, what, e.pos) : formatted;
    }
    case 'reshape':
    case 'view': {
      const first = e.args[0];
      if (name === 'view' && first !== undefined && dotted(resolve(first, lookup))?.startsWith('torch.') === true) {
        return fail('.view(dtype) reinterprets the bits as another dtype: not evaluated in an inputs list (use .to(dtype))', first.pos);
      }
      const sizes = reshapeSizes(e.args, base, lookup, what, e.pos);
      return withOp(base, { kind: 'reshape', sizes, viewOnly: name === 'view' }, what, e.pos);
    }
    case 'type':
      return withOp(base, { kind: 'to', dtype: typeMethodDtype(e, lookup) }, what, e.pos);
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

/** `torch.topk(...)[0 | 1]`: the tuple's values or indices. */
function topkItem(call: Expr & { kind: 'call' }, e: Expr & { kind: 'subscript' }, scope: Scope): TensorValue {
  const n = numberValue(e.index, scope.lookup);
  const i = n === null || n.isFloat ? null : n.value;
  if (i !== 0 && i !== 1 && i !== -1 && i !== -2) return fail('torch.topk returns (values, indices): index it with 0 or 1', e.index.pos);
  return topk(call, i === 0 || i === -2 ? 'values' : 'indices', scope.lookup, (x) => evalTensor(x, scope));
}

function evalTensor(e: Expr, scope: Scope): TensorValue {
  const lookup = scope.lookup;
  const r = resolve(e, lookup);
  if (r.kind === 'name') return fail(`name '${sourceName(r.id)}' is not defined`, r.pos);
  if (r.kind === 'subscript') {
    const call = topkCall(resolve(r.object, lookup));
    if (call !== null) return topkItem(call, r, scope);
    return index(evalTensor(r.object, scope), r, lookup);
  }
  if (r.kind === 'attribute' && (r.attr === 'values' || r.attr === 'indices')) {
    const call = topkCall(resolve(r.object, lookup));
    if (call !== null) return topk(call, r.attr, lookup, (x) => evalTensor(x, scope));
  }
  if (r.kind === 'binary' && isCompareOp(r.op)) return comparison(r, lookup, (x) => evalTensor(x, scope));
  if (r.kind === 'binary' && isArithOp(r.op)) return arithmetic(r, lookup, (x) => evalTensor(x, scope));
  if (r.kind === 'call') {
    if (topkCall(r) !== null) return fail('torch.topk returns a (values, indices) tuple: index it ([0] or [1]) or take .values / .indices', r.pos);
    const fname = dotted(r.func);
    const made = fname === null ? null : factoryCall(r, fname, lookup, scope.scriptDirectory);
    if (made !== null) return made;
    if (r.func.kind === 'attribute' && (fname === null || !fname.startsWith('torch.'))) return method(evalTensor(r.func.object, scope), r, r.func.attr, scope);
    return fail(
      `unsupported input expression '${fname ?? 'call'}' (supported: torch.randn, rand, randint, ones, zeros, full, arange, empty, empty_strided, tensor, from_numpy, topk, torch.testing.make_tensor, python scalars)`,
      r.pos,
    );
  }
  return fail(`unsupported input expression (a ${r.kind})`, r.pos);
}

/** One element of an inputs list. `lookup` resolves names bound at the script's top level; numpy.load paths are relative to `scriptDirectory`. */
export function evalInput(e: Expr, lookup: Lookup, scriptDirectory: string | null = null): InputSpec {
  const r = resolve(e, lookup);
  if (r.kind === 'name' && (r.id === 'True' || r.id === 'False')) return { kind: 'scalar', value: r.id === 'True', isFloat: false };
  const n = numberValue(r, lookup);
  if (n !== null) return { kind: 'scalar', value: n.value, isFloat: n.isFloat };
  return evalTensor(r, { lookup, scriptDirectory }).spec;
}

export function evalInputList(e: Expr, lookup: Lookup, scriptDirectory: string | null = null): InputSpec[] {
  const r = resolve(e, lookup);
  if (r.kind !== 'list' && r.kind !== 'tuple') return fail('inputs must be a list', e.pos);
  return r.elements.map((x) => evalInput(x, lookup, scriptDirectory));
}
