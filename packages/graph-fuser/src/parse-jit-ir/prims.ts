// Lowerings of the prim nodes a fusion group contains: constants (scalars, lists, strings, None,
// devices, boxed scalar tensors as 0-dim tensors), list construction/unpacking, profiling nodes
// (prim::profile passes its value through; prim::profile_ivalue gives the profiled constant) and
// prim::NumToTensor. They have no schema, so they are a table of their own.

import type { Node, Value } from '@tsfuser/jit-ir';
import { full, type DataType, type Fusion } from '@tsfuser/fusion-ir';
import { dataTypeOfScalarType } from './dtypes.js';
import { nodeError } from './errors.js';
import { staticValue, tensorVal, type JitVal } from './values.js';

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

/** A boxed scalar tensor constant (`Long() = prim::Constant[value={1}]`) as a 0-dim tensor. */
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
  let dtype: DataType = floating ? 'Double' : 'Int';
  if (type.kind === 'Tensor' && type.scalarType !== null) {
    const d = dataTypeOfScalarType(type.scalarType);
    if (d === null) return { kind: 'unavailable', reason: `tensor constant of dtype ${type.scalarType}` };
    dtype = d;
  }
  if (type.kind === 'Tensor' && type.sizes !== null && type.sizes.length > 0) {
    return { kind: 'unavailable', reason: 'only 0-dim tensor constants can be used in a fusion' };
  }
  return tensorVal(full(p.fusion, [], value, dtype));
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

function lowerNumToTensor(p: PrimLoweringInput): JitVal[] {
  const v = p.lookup(p.node.input());
  switch (v.kind) {
    case 'int':
      return [tensorVal(full(p.fusion, [], v.value, 'Int'))];
    case 'float':
      return [tensorVal(full(p.fusion, [], v.value, 'Double'))];
    case 'bool':
      return [tensorVal(full(p.fusion, [], v.value, 'Bool'))];
    case 'scalar':
      return [tensorVal(full(p.fusion, [], v.scalar, v.scalar.dtype === 'Index' ? 'Int' : v.scalar.dtype))];
    default:
      throw nodeError(p.node, 'expected a number');
  }
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
};
