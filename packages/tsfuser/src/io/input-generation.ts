// Makes fusion inputs: from InputSpecs (a script's `inputs` list) or from the definition's
// declared inputs. Generated shapes: each symbolic dim gets a size, right-aligned across inputs
// so that tensors which broadcast against each other agree (default sizes …, 4, 5, 6, 8 from the
// outermost to the innermost dim; `--shape` replaces that list); broadcast dims are 1; strides
// follow the declared stride order. Values come from the seeded PRNG (normal floats, small ints,
// random bools); a symbolic scalar input gets a value in [0.5, 1.5) (ints: 2).

import { HostTensor, allocateStorage, isFloatingType, type DataType } from '@tsfuser/fusion-ir';
import { Tensor } from '@tsfuser/runtime';
import type { InputDescriptor } from '../definition/fusion-definition.js';
import { expandedDims, type NormalizedTensorSpec } from '../definition/tensor-spec.js';
import type { ExecuteInput } from '../execute/backend.js';
import { allocationOrder } from '../execute/input-check.js';
import type { InputSpec } from './input-spec.js';
import { Random } from './random.js';

export const DEFAULT_SIZES: readonly number[] = [2, 3, 4, 5, 6, 8];

function fillValue(dtype: DataType, rng: Random, factory: InputSpec & { kind: 'tensor' }): number | boolean | bigint {
  switch (factory.factory) {
    case 'ones':
      return dtype === 'Bool' ? true : 1;
    case 'zeros':
      return dtype === 'Bool' ? false : 0;
    case 'full':
      return factory.fill ?? 0;
    case 'rand':
      return isFloatingType(dtype) ? rng.uniform() : rng.int(0, 2);
    case 'make_tensor': {
      if (dtype === 'Bool') return rng.uniform() < 0.5;
      const low = factory.low ?? -9;
      const high = factory.high ?? 9;
      return isFloatingType(dtype) ? low + (high - low) * rng.uniform() : rng.int(Math.ceil(low), Math.floor(high) + 1);
    }
    case 'randn':
      if (dtype === 'Bool') return rng.uniform() < 0.5;
      return isFloatingType(dtype) ? rng.normal() : rng.int(-5, 6);
    default: {
      const unreachable: never = factory.factory;
      throw new Error(`unknown factory ${String(unreachable)}`);
    }
  }
}

function stridedHost(dtype: DataType, sizes: readonly number[], strides: readonly number[], value: () => number | boolean | bigint): HostTensor {
  const span = sizes.some((s) => s === 0) ? 0 : 1 + sizes.reduce((acc, s, d) => acc + (s - 1) * (strides[d] as number), 0);
  const host = new HostTensor(dtype, [...sizes], [...strides], allocateStorage(dtype, span));
  const flat = new HostTensor(dtype, [span], [1], host.data);
  for (let i = 0; i < span; i += 1) flat.setFlat(i, normalizeValue(dtype, value()));
  return host;
}

function normalizeValue(dtype: DataType, v: number | boolean | bigint): number | boolean | bigint {
  if ((dtype === 'Int' || dtype === 'Index') && typeof v === 'number') return BigInt(Math.trunc(v));
  return v;
}

/** A tensor for one `inputs` entry. */
export function materializeInput(spec: InputSpec, rng: Random): ExecuteInput {
  if (spec.kind === 'scalar') return spec.value;
  const contiguousStrides = (sizes: readonly number[]): number[] => {
    const s = new Array<number>(sizes.length);
    let acc = 1;
    for (let d = sizes.length - 1; d >= 0; d -= 1) {
      s[d] = acc;
      acc *= Math.max(sizes[d] as number, 1);
    }
    return s;
  };
  const sizes = spec.asStrided?.size ?? spec.shape;
  const strides = spec.asStrided?.stride ?? contiguousStrides(spec.shape);
  return Tensor.fromHost(stridedHost(spec.dtype, sizes, strides, () => fillValue(spec.dtype, rng, spec)));
}

/** Sizes for a declared tensor: `sizes` right-aligned on its symbolic dims, 1 on broadcast dims. */
export function shapeFor(spec: NormalizedTensorSpec, sizes: readonly number[]): number[] {
  const rank = spec.shape.length;
  return spec.shape.map((s, d) => {
    if (s >= 0) return s;
    const fromRight = rank - d;
    return sizes[sizes.length - fromRight] ?? 2;
  });
}

/** Strides honouring the spec's stride order (dense in allocation order; expanded dims 0). */
export function stridesFor(spec: NormalizedTensorSpec, sizes: readonly number[]): number[] {
  const strides = new Array<number>(sizes.length).fill(1);
  let acc = 1;
  const order = allocationOrder(spec);
  const expanded = expandedDims(spec);
  for (let pos = order.length - 1; pos >= 0; pos -= 1) {
    const d = order[pos] as number;
    strides[d] = expanded[d] === true ? 0 : acc;
    if (expanded[d] !== true) acc *= Math.max(sizes[d] as number, 1);
  }
  return strides;
}

/** Inputs generated from the definition's declared inputs. */
export function generateInputs(descriptors: readonly InputDescriptor[], rng: Random, sizes: readonly number[] = DEFAULT_SIZES): ExecuteInput[] {
  return descriptors.map((d): ExecuteInput => {
    if (d.kind === 'scalar') {
      if (d.dtype === 'Bool') return true;
      if (isFloatingType(d.dtype)) return 0.5 + rng.uniform();
      return 2;
    }
    const shape = shapeFor(d.spec, sizes);
    const host = stridedHost(d.spec.dtype, shape, stridesFor(d.spec, shape), () => fillValue(d.spec.dtype, rng, { kind: 'tensor', factory: 'randn', shape, dtype: d.spec.dtype }));
    return Tensor.fromHost(host);
  });
}
