// Graph inputs → fusion inputs. A tensor input becomes a TensorView from its tensor type (or,
// when the graph is a profiled one, the type its prim::profile use recorded): dtype and rank
// from the type; size-1 dims become broadcast dims and other sizes stay symbolic (as the legacy
// parser did, so one fusion serves every size the guard admits); contiguity and stride order
// from the strides when they are known (non-contiguous when unknown). int/float/bool inputs
// become symbolic Int/Double/Bool scalars. Other inputs (lists, strings …) can only be consumed
// through prim::profile_ivalue, which replaces them by their profiled constant: they get no
// fusion input.

import type { TensorType, Value } from '@tsfuser/jit-ir';
import { makeTensor, type Fusion, type TensorSpec, type Val } from '@tsfuser/fusion-ir';
import { dataTypeOfScalarType } from './dtypes.js';
import { JitLoweringError } from './errors.js';
import { scalarVal, tensorVal, type JitVal } from './values.js';

function inputError(v: Value, reason: string): JitLoweringError {
  return new JitLoweringError('graph', `input %${v.debugName()}: ${reason}`);
}

function hasDtypeAndRank(t: TensorType): boolean {
  return t.scalarType !== null && t.sizes !== null;
}

/** The input's own tensor type if it has dtype and rank, else the one a prim::profile use recorded. */
export function effectiveTensorType(v: Value): TensorType | null {
  if (v.type.kind === 'Tensor' && hasDtypeAndRank(v.type)) return v.type;
  for (const use of v.uses) {
    const n = use.user;
    if (n.kind !== 'prim::profile') continue;
    const a = n.attribute('profiled_type');
    if (a?.kind === 'ty' && a.value.kind === 'Tensor' && hasDtypeAndRank(a.value)) return a.value;
  }
  return null;
}

/** Symbolic shape (-1, or 1 for broadcast), contiguity and stride order of a tensor type. */
export function tensorSpecOf(t: TensorType): Omit<TensorSpec, 'dtype'> {
  const sizes = t.sizes ?? [];
  const rank = sizes.length;
  const shape = sizes.map((s) => (s === 1 ? 1 : -1));
  const strides = t.strides;
  if (strides === null || strides.length !== rank || sizes.some((s) => s === null)) {
    return { shape, contiguity: shape.map((s) => (s === 1 ? null : false)) };
  }
  const known = sizes as readonly number[];
  // Memory order, outermost first: decreasing stride, ties in logical order.
  const order = [...known.keys()].sort((a, b) => (strides[b] as number) - (strides[a] as number) || a - b);
  const contiguity = new Array<boolean | null>(rank).fill(null);
  let expected = 1;
  for (let pos = rank - 1; pos >= 0; pos -= 1) {
    const d = order[pos] as number;
    const size = known[d] as number;
    if (size === 1) continue;
    const stride = strides[d] as number;
    contiguity[d] = stride === expected;
    expected = stride * size;
  }
  const isIdentity = order.every((d, pos) => d === pos);
  if (isIdentity) return { shape, contiguity };
  const strideOrder = new Array<number>(rank);
  order.forEach((d, pos) => {
    strideOrder[d] = rank - 1 - pos;
  });
  return { shape, contiguity, strideOrder };
}

export interface LoweredInput {
  /** The fusion input, or null for inputs that only feed prim::profile_ivalue. */
  val: Val | null;
  jit: JitVal;
}

function onlyProfiled(v: Value): boolean {
  return v.uses.every((u) => u.user.kind === 'prim::profile_ivalue');
}

export function lowerGraphInput(fusion: Fusion, v: Value): LoweredInput {
  const type = v.type;
  switch (type.kind) {
    case 'Tensor': {
      const t = effectiveTensorType(v);
      if (t === null) throw inputError(v, 'a tensor input needs a dtype and rank (a complete or profiled tensor type)');
      const dtype = t.scalarType === null ? null : dataTypeOfScalarType(t.scalarType);
      if (dtype === null) throw inputError(v, `dtype ${t.scalarType ?? '?'} is not supported in fusions`);
      const tv = makeTensor(fusion, { ...tensorSpecOf(t), dtype });
      fusion.addInput(tv);
      return { val: tv, jit: tensorVal(tv) };
    }
    case 'Int':
    case 'Float':
    case 'Bool': {
      const s = fusion.newSymbolicScalar(type.kind === 'Int' ? 'Int' : type.kind === 'Float' ? 'Double' : 'Bool');
      fusion.addInput(s);
      return { val: s, jit: scalarVal(s) };
    }
    default: {
      if (!onlyProfiled(v)) throw inputError(v, `inputs of type ${type.kind} can only be used through prim::profile_ivalue`);
      return { val: null, jit: { kind: 'unavailable', reason: `graph input of type ${type.kind}` } };
    }
  }
}
