// Evaluates the `inputs = [...]` list of a repro script: python scalars and torch tensor
// factories (randn, rand, ones, zeros, full, testing.make_tensor) with dtype/device keywords,
// optionally followed by .as_strided(size, stride), .cuda() or a dtype conversion method.
// The result is a list of InputSpec (materialized later with a seeded PRNG).

import type { DataType } from '@tsfuser/fusion-ir';
import type { InputSpec, TensorFactory } from '../io/input-spec.js';
import type { Expr, Keyword } from './ast.js';
import { fail } from './definition-interpreter.js';

const TORCH_DTYPES: Readonly<Record<string, DataType>> = {
  float32: 'Float', float: 'Float', float16: 'Half', half: 'Half', bfloat16: 'BFloat16', float64: 'Double', double: 'Double',
  int32: 'Int32', int: 'Int32', int64: 'Int', long: 'Int', bool: 'Bool',
};

const METHOD_DTYPES: Readonly<Record<string, DataType>> = { float: 'Float', half: 'Half', bfloat16: 'BFloat16', double: 'Double', int: 'Int32', long: 'Int', bool: 'Bool' };

type Lookup = (name: string) => Expr | undefined;

function number(e: Expr, lookup: Lookup): number {
  if (e.kind === 'number') return e.value;
  if (e.kind === 'unary' && e.operand.kind === 'number') return e.op === '-' ? -e.operand.value : e.operand.value;
  if (e.kind === 'name') {
    const bound = lookup(e.id);
    if (bound !== undefined) return number(bound, lookup);
  }
  return fail('expected a number', e.pos);
}

function intList(e: Expr, lookup: Lookup): number[] {
  if (e.kind === 'list' || e.kind === 'tuple') return e.elements.map((x) => Math.trunc(number(x, lookup)));
  return fail('expected a tuple or list of sizes', e.pos);
}

function dotted(e: Expr): string | null {
  if (e.kind === 'name') return e.id;
  if (e.kind === 'attribute') {
    const base = dotted(e.object);
    return base === null ? null : `${base}.${e.attr}`;
  }
  return null;
}

function torchDtype(e: Expr): DataType {
  const name = dotted(e);
  const short = name?.startsWith('torch.') === true ? name.slice(6) : null;
  const dtype = short === null ? undefined : TORCH_DTYPES[short];
  if (dtype === undefined) return fail(`unsupported dtype ${name ?? 'expression'} (supported: ${Object.keys(TORCH_DTYPES).map((k) => `torch.${k}`).join(', ')})`, e.pos);
  return dtype;
}

function keyword(keywords: readonly Keyword[], name: string): Keyword | undefined {
  return keywords.find((k) => k.name === name);
}

const IGNORED_KEYWORDS = new Set(['device', 'requires_grad', 'layout', 'pin_memory', 'memory_format', 'generator', 'non_blocking']);

function factory(e: Expr & { kind: 'call' }, name: TensorFactory, lookup: Lookup): InputSpec {
  let args = e.args;
  const shapeFirst = args[0];
  let shape: number[];
  if (shapeFirst !== undefined && (shapeFirst.kind === 'list' || shapeFirst.kind === 'tuple')) {
    shape = intList(shapeFirst, lookup);
    args = args.slice(1);
  } else if (name === 'full' || name === 'make_tensor') {
    const size = keyword(e.keywords, 'size') ?? keyword(e.keywords, 'shape');
    if (shapeFirst === undefined && size === undefined) return fail(`torch.${name}: missing the size tuple`, e.pos);
    shape = size !== undefined ? intList(size.value, lookup) : intList(shapeFirst as Expr, lookup);
    if (size === undefined) args = args.slice(1);
  } else {
    shape = args.map((a) => Math.trunc(number(a, lookup)));
    args = [];
  }
  const spec: InputSpec & { kind: 'tensor' } = { kind: 'tensor', factory: name, shape, dtype: 'Float' };
  if (name === 'full') {
    const fill = args[0] ?? keyword(e.keywords, 'fill_value')?.value;
    if (fill === undefined) return fail('torch.full: missing fill_value', e.pos);
    spec.fill = fill.kind === 'name' && (fill.id === 'True' || fill.id === 'False') ? fill.id === 'True' : number(fill, lookup);
    if (typeof spec.fill === 'boolean') spec.dtype = 'Bool';
    else if (fill.kind === 'number' && !fill.isFloat) spec.dtype = 'Int';
    args = args.slice(1);
  }
  if (name === 'make_tensor' && args[0] !== undefined) {
    // make_tensor(shape, dtype, device, ...)
    spec.dtype = torchDtype(args[0]);
    args = [];
  }
  if (args.length > 0) return fail(`torch.${name}: unexpected positional argument`, (args[0] as Expr).pos);
  for (const k of e.keywords) {
    if (k.name === 'dtype') spec.dtype = torchDtype(k.value);
    else if (k.name === 'low' && name === 'make_tensor') spec.low = isNone(k.value) ? undefined : number(k.value, lookup);
    else if (k.name === 'high' && name === 'make_tensor') spec.high = isNone(k.value) ? undefined : number(k.value, lookup);
    else if (k.name === 'size' || k.name === 'shape' || k.name === 'fill_value') continue;
    else if (!IGNORED_KEYWORDS.has(k.name)) fail(`torch.${name}: unsupported keyword '${k.name}'`, k.pos);
  }
  return spec;
}

function isNone(e: Expr): boolean {
  return e.kind === 'name' && e.id === 'None';
}

const FACTORIES: Readonly<Record<string, TensorFactory>> = {
  'torch.randn': 'randn',
  'torch.rand': 'rand',
  'torch.ones': 'ones',
  'torch.zeros': 'zeros',
  'torch.full': 'full',
  'torch.empty': 'zeros',
  'torch.testing.make_tensor': 'make_tensor',
  make_tensor: 'make_tensor',
};

/** One element of an inputs list. `lookup` resolves names bound at the script's top level. */
export function evalInput(e: Expr, lookup: Lookup): InputSpec {
  if (e.kind === 'number') return { kind: 'scalar', value: e.value, isFloat: e.isFloat };
  if (e.kind === 'unary' && e.operand.kind === 'number') {
    return { kind: 'scalar', value: e.op === '-' ? -e.operand.value : e.operand.value, isFloat: e.operand.isFloat };
  }
  if (e.kind === 'name') {
    if (e.id === 'True' || e.id === 'False') return { kind: 'scalar', value: e.id === 'True', isFloat: false };
    const bound = lookup(e.id);
    if (bound === undefined) return fail(`name '${e.id}' is not defined`, e.pos);
    return evalInput(bound, lookup);
  }
  if (e.kind === 'call') {
    const fname = dotted(e.func);
    const f = fname === null ? undefined : FACTORIES[fname];
    if (f !== undefined) return factory(e, f, lookup);
    if (e.func.kind === 'attribute') {
      const method = e.func.attr;
      const base = evalInput(e.func.object, lookup);
      if (base.kind !== 'tensor') return fail(`.${method}() needs a tensor`, e.pos);
      if (method === 'as_strided') {
        const [size, stride] = e.args;
        if (size === undefined || stride === undefined) return fail('as_strided(size, stride) needs two tuples', e.pos);
        return { ...base, asStrided: { size: intList(size, lookup), stride: intList(stride, lookup) } };
      }
      if (method === 'cuda' || method === 'contiguous' || method === 'cpu') return base;
      const dtype = METHOD_DTYPES[method];
      if (dtype !== undefined) return { ...base, dtype };
      if (method === 'to') {
        const arg = e.args[0] ?? keyword(e.keywords, 'dtype')?.value;
        if (arg !== undefined && arg.kind === 'attribute') return { ...base, dtype: torchDtype(arg) };
        return base;
      }
      return fail(`unsupported tensor method '.${method}()'`, e.pos);
    }
    return fail(`unsupported input expression '${fname ?? 'call'}' (supported: torch.randn, torch.rand, torch.ones, torch.zeros, torch.full, torch.testing.make_tensor, python scalars)`, e.pos);
  }
  return fail('unsupported input expression', e.pos);
}

export function evalInputList(e: Expr, lookup: Lookup): InputSpec[] {
  if (e.kind !== 'list' && e.kind !== 'tuple') return fail('inputs must be a list', e.pos);
  return e.elements.map((x) => evalInput(x, lookup));
}
