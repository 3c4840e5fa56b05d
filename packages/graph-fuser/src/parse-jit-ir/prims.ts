// Lowerings of the prim nodes a fusion group contains: constants (scalars, lists, strings, None,
// devices, boxed 0-dim scalar tensors as fusion scalar constants), list construction/unpacking,
// profiling nodes (prim::profile passes its value through; prim::profile_ivalue gives the
// profiled constant), prim::NumToTensor and the size arithmetic of traced and scripted graphs
// (aten::Int, aten::__getitem__ of a list, aten::len), which produce scalars or constants. They
// have no single schema, so they are a table of their own. Invariant: none of these makes a
// tensor — a 0-dim tensor constant or NumToTensor result is a scalar (a wrapped number, as the
// tracer's Python scalars are), never a materialised FullOp.

import type { Node, Value } from '@tsfuser/jit-ir';
import { cast, type Fusion } from '@tsfuser/fusion-ir';
import { dataTypeOfScalarType } from './dtypes.js';
import { nodeError } from './errors.js';
import { scalarVal, staticValue, type JitVal } from './values.js';

export interface PrimLoweringInput {
  node: Node;
  fusion: Fusion;
  lookup: (v: Value) => JitVal;
}

export interface PrimEntry {
  /** Why the node cannot be lowered, or null. */
  readonly check: (node: Node) => string | null;
  readonly lower: (p: PrimLoweringInput) => readonly JitVal[];
}

/** A boxed scalar tensor constant (`Double() = prim::Constant[value={0.125}]`) as a scalar constant. */
function lowerTensorConstant(p: PrimLoweringInput): JitVal {
  const a = p.node.attribute('value');
  let value: number;
  let floating: boolean;
  if (a?.kind === 't' && a.value.kind === 'scalar') {
    value = a.value.value;
    floating = a.value.floating;
  } else if (a?.kind === 'i' || a?.kind === 'f') {
    value = Number(a.value);
    floating = a.kind === 'f';
  } else {
    return { kind: 'unavailable', reason: 'only boxed scalar tensor constants ({2}) can be used in a fusion, not opaque ones' };
  }
  const type = p.node.output().type;
  if (type.kind === 'Tensor' && type.scalarType !== null) {
    const d = dataTypeOfScalarType(type.scalarType);
    if (d === null) return { kind: 'unavailable', reason: `tensor constant of dtype ${type.scalarType}` };
    if (d === 'Bool') return { kind: 'bool', value: value !== 0 };
    floating = d === 'Float' || d === 'Double' || d === 'Half' || d === 'BFloat16';
  }
  if (type.kind === 'Tensor' && type.sizes !== null && type.sizes.length > 0) {
    return { kind: 'unavailable', reason: 'only 0-dim tensor constants can be used in a fusion' };
  }
  return floating ? { kind: 'float', value } : { kind: 'int', value: Math.trunc(value) };
}

function lowerConstant(p: PrimLoweringInput): JitVal[] {
  const v = staticValue(p.node.output());
  return [v ?? lowerTensorConstant(p)];
}

function lowerListUnpack(p: PrimLoweringInput): JitVal[] {
  const list = p.lookup(p.node.input());
  if (list.kind !== 'list' || list.items.length !== p.node.outputs.length) {
    throw nodeError(p.node, `expected a list of ${p.node.outputs.length} values`);
  }
  return [...list.items];
}

/** prim::NumToTensor: the number stays a scalar (a 0-dim tensor is a wrapped number). */
function lowerNumToTensor(p: PrimLoweringInput): JitVal[] {
  const v = p.lookup(p.node.input());
  switch (v.kind) {
    case 'int':
    case 'float':
    case 'bool':
      return [v];
    case 'scalar':
      return [v.scalar.dtype === 'Index' ? scalarVal(cast(v.scalar, 'Int')) : v];
    default:
      throw nodeError(p.node, `expected a number, got ${v.kind}`);
  }
}

/** aten::Int / aten::Float of a number or of a NumToTensor scalar: the number, converted. */
function lowerNumberCast(p: PrimLoweringInput, to: 'Int' | 'Double'): JitVal[] {
  const v = p.lookup(p.node.input());
  switch (v.kind) {
    case 'int':
    case 'float':
    case 'bool':
      return to === 'Int' ? [{ kind: 'int', value: typeof v.value === 'bigint' ? v.value : Math.trunc(Number(v.value)) }] : [{ kind: 'float', value: Number(v.value) }];
    case 'scalar':
      return [v.scalar.dtype === to ? v : scalarVal(cast(v.scalar, to))];
    default:
      throw nodeError(p.node, `expected a number or a 0-dim tensor holding one, got ${v.kind}`);
  }
}

/** aten::__getitem__(list, constant index). */
function lowerGetItem(p: PrimLoweringInput): JitVal[] {
  const list = p.lookup(p.node.input(0));
  const index = p.lookup(p.node.input(1));
  if (list.kind !== 'list') throw nodeError(p.node, `expected a list, got ${list.kind}`);
  if (index.kind !== 'int') throw nodeError(p.node, 'the index must be a compile-time constant');
  const i = Number(index.value);
  const item = list.items[i < 0 ? i + list.items.length : i];
  if (item === undefined) throw nodeError(p.node, `index ${i} is out of range for a list of ${list.items.length}`);
  return [item];
}

/** aten::len(list): the list's length, a constant. */
function lowerLen(p: PrimLoweringInput): JitVal[] {
  const list = p.lookup(p.node.input());
  if (list.kind !== 'list') throw nodeError(p.node, `expected a list, got ${list.kind}`);
  return [{ kind: 'int', value: list.items.length }];
}

/** Size arithmetic on numbers and lists, never on tensors other than 0-dim ones. */
function checkNumberOp(n: Node): string | null {
  const t = n.input(0).type;
  if (t.kind === 'Tensor' && t.sizes !== null && t.sizes.length > 0) return `${n.kind} of a tensor of rank ${t.sizes.length}`;
  return null;
}

function checkGetItem(n: Node): string | null {
  if (n.inputs.length !== 2 || n.input(0).type.kind !== 'List') return 'aten::__getitem__ is lowered only for lists';
  return staticValue(n.input(1))?.kind === 'int' ? null : 'aten::__getitem__ needs a compile-time constant index';
}

const always = (): null => null;

export const PRIM_OPS: Readonly<Record<string, PrimEntry>> = {
  'prim::Constant': { check: always, lower: lowerConstant },
  'prim::ListConstruct': {
    check: always,
    lower: (p) => [{ kind: 'list', items: p.node.inputs.map(p.lookup) }],
  },
  'prim::ListUnpack': { check: always, lower: lowerListUnpack },
  'prim::profile': {
    check: (n) => (n.inputs.length === n.outputs.length ? null : 'prim::profile with different input and output counts'),
    lower: (p) => p.node.inputs.map(p.lookup),
  },
  'prim::profile_ivalue': {
    check: (n) => (n.inputs.length === 1 && n.outputs.length === 1 ? null : 'prim::profile_ivalue needs one input and one output'),
    lower: (p) => [staticValue(p.node.output()) ?? p.lookup(p.node.input())],
  },
  'prim::NumToTensor': { check: always, lower: lowerNumToTensor },
  'aten::Int': { check: checkNumberOp, lower: (p) => lowerNumberCast(p, 'Int') },
  'aten::Float': { check: checkNumberOp, lower: (p) => lowerNumberCast(p, 'Double') },
  'aten::__getitem__': { check: checkGetItem, lower: lowerGetItem },
  'aten::len': { check: (n) => (n.input(0).type.kind === 'List' ? null : 'aten::len is lowered only for lists'), lower: lowerLen },
};
