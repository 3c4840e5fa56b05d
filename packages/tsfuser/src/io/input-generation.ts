// Makes fusion inputs: from InputSpecs (a script's `inputs` list) or from the definition's
// declared inputs. Generated shapes: each symbolic dim gets a size, right-aligned across inputs
// so that tensors which broadcast against each other agree (default sizes …, 4, 5, 6, 8 from the
// outermost to the innermost dim; `--shape` replaces that list); broadcast dims are 1; strides
// follow the declared stride order. Values come from the seeded PRNG (normal floats, small ints,
// random bools); a symbolic scalar input gets a value in [0.5, 1.5) (ints: 2). Random values do
// not reproduce PyTorch's generator; shapes, strides, dtypes and the values of the deterministic
// factories (ones, zeros, full, arange) do.
//
// Every tensor's storage is reserved in an AllocationBudget (allocation-limits.ts) before any of
// them is allocated: a shape past the limits is one AllocationLimitError naming the input.

import { Complex, HostTensor, allocateStorage, contiguousStrides, isComplexType, isFloatingType, type DataType, type ElementValue } from '@tsfuser/fusion-ir';
import { Tensor } from '@tsfuser/device';
import type { InputDescriptor } from '../definition/fusion-definition.js';
import { expandedDims, type NormalizedTensorSpec } from '../definition/tensor-spec.js';
import { InputMismatchError } from '../errors.js';
import type { ExecuteInput } from '../execute/backend.js';
import { allocationOrder } from '../execute/input-check.js';
import { AllocationBudget, checkTensorElements, exactElementCount } from './allocation-limits.js';
import { viewOps, type InputSpec, type TensorInputSpec, type TensorViewOp } from './input-spec.js';
import { NpyError } from './npy-header.js';
import { NpyFileError, readNpyFile } from './npy-file.js';
import { arithWithScalar, compareWithScalar, topkValues } from './value-ops.js';
import { Random } from './random.js';
import { applyViewOp, baseLayout, planLayout, spanOf, ViewError, type StridedLayout } from './tensor-views.js';

export const DEFAULT_SIZES: readonly number[] = [2, 3, 4, 5, 6, 8];

/** Value of element `i` of a factory's (contiguous) tensor. */
function factoryValue(spec: TensorInputSpec, dtype: DataType, rng: Random, i: number): ElementValue {
  switch (spec.factory) {
    case 'ones':
      return dtype === 'Bool' ? true : 1;
    case 'zeros':
      return dtype === 'Bool' ? false : 0;
    case 'full':
      return spec.fill ?? 0;
    case 'arange':
      return (spec.start ?? 0) + i * (spec.step ?? 1);
    case 'rand':
      if (isComplexType(dtype)) return new Complex(rng.uniform(), rng.uniform());
      return isFloatingType(dtype) ? rng.uniform() : rng.int(0, 2);
    case 'randint':
      if (dtype === 'Bool') return rng.uniform() < 0.5;
      return rng.int(spec.low ?? 0, spec.high ?? 2);
    case 'make_tensor': {
      if (dtype === 'Bool') return rng.uniform() < 0.5;
      const low = spec.low ?? -9;
      const high = spec.high ?? 9;
      return isFloatingType(dtype) ? low + (high - low) * rng.uniform() : rng.int(Math.ceil(low), Math.floor(high) + 1);
    }
    case 'randn':
      if (dtype === 'Bool') return rng.uniform() < 0.5;
      // torch.randn of a complex dtype: real and imaginary parts each of variance 1/2.
      if (isComplexType(dtype)) return new Complex(rng.normal() * Math.SQRT1_2, rng.normal() * Math.SQRT1_2);
      return isFloatingType(dtype) ? rng.normal() : rng.int(-5, 6);
    case 'tensor':
      return spec.data?.[i] ?? 0;
    case 'from_numpy':
      // Read whole in factoryTensor; never asked per element.
      return 0;
    default: {
      const unreachable: never = spec.factory;
      throw new Error(`unknown factory ${String(unreachable)}`);
    }
  }
}

/** A value converted as PyTorch converts it into `dtype` (truncation toward zero for ints). */
function normalizeValue(dtype: DataType, v: ElementValue): ElementValue {
  if (isFloatingType(dtype) || isComplexType(dtype) || typeof v !== 'number') return v;
  if (dtype === 'Bool') return v !== 0;
  return Number.isFinite(v) ? Math.trunc(v) : 0;
}

/** Storage of `elements` elements of `dtype`, element i set to value(i). */
function filledStorage(dtype: DataType, elements: number, value: (i: number) => ElementValue): HostTensor {
  const flat = new HostTensor(dtype, [elements], [1], allocateStorage(dtype, elements));
  for (let i = 0; i < elements; i += 1) flat.setFlat(i, normalizeValue(dtype, value(i)));
  return flat;
}

/** `src`'s elements copied into new storage of `layout` (same sizes; dtype and strides of the layout). */
function copyInto(src: HostTensor, layout: StridedLayout): HostTensor {
  const out = new HostTensor(layout.dtype, [...layout.sizes], [...layout.strides], allocateStorage(layout.dtype, layout.storageElements));
  for (let i = 0; i < src.numel; i += 1) out.setFlat(i, normalizeValue(layout.dtype, src.get(i)));
  return out;
}

/**
 * The factory's contiguous tensor: torch.tensor's values, a .npy file's data (a Fortran-order
 * array's storage is its transpose's C order, so the reversed shape), or the factory's values.
 */
function factoryTensor(spec: TensorInputSpec, rng: Random, inputIndex: number): HostTensor {
  const base = baseLayout(spec.dtype, spec.shape);
  if (spec.factory === 'tensor' && spec.data !== undefined) {
    const data = spec.data;
    return new HostTensor(spec.dtype, [...base.sizes], [...base.strides], filledStorage(spec.dtype, base.storageElements, (i) => data[i] ?? 0).data);
  }
  if (spec.factory === 'from_numpy' && spec.npy !== undefined) {
    let read: HostTensor;
    try {
      read = readNpyFile(spec.npy.path, spec.dtype);
    } catch (e) {
      if (e instanceof NpyError || e instanceof NpyFileError) throw new InputMismatchError(inputIndex, `torch.from_numpy(numpy.load(${JSON.stringify(spec.npy.path)})): ${e.message}`);
      throw e;
    }
    if (read.dtype !== spec.dtype || read.numel !== base.storageElements) {
      throw new InputMismatchError(inputIndex, `${spec.npy.path} changed since the script was imported (now ${read.dtype} of shape [${read.sizes.join(', ')}])`);
    }
    if (!spec.npy.fortranOrder) return read;
    const rank = read.sizes.length;
    const transposed = new HostTensor(read.dtype, [...read.sizes].reverse(), [...read.strides].reverse(), read.data, read.offset);
    return rank < 2 ? read : transposed.contiguous();
  }
  const storage = filledStorage(spec.dtype, base.storageElements, (i) => factoryValue(spec, spec.dtype, rng, i));
  return new HostTensor(spec.dtype, [...base.sizes], [...base.strides], storage.data);
}

/** The tensor `op` makes of `host` (laid out as `layout`, which tensor-views.ts planned). */
function applyOp(host: HostTensor, op: TensorViewOp, layout: StridedLayout, copies: boolean): HostTensor {
  if (op.kind === 'compare') return compareWithScalar(host, op, layout);
  if (op.kind === 'arith') return arithWithScalar(host, op, layout);
  if (op.kind === 'topk') return topkValues(host, op, layout);
  if (!copies) return new HostTensor(layout.dtype, [...layout.sizes], [...layout.strides], host.data, layout.offset);
  // A reshape's copy keeps the row-major order of the elements under the new sizes.
  const source = op.kind === 'reshape' ? new HostTensor(host.dtype, [...layout.sizes], contiguousStrides(layout.sizes), host.contiguous().data) : host;
  return copyInto(source, layout);
}

/** Builds a tensor spec whose storages were already reserved. */
function buildTensor(spec: TensorInputSpec, rng: Random, inputIndex: number): HostTensor {
  let host = factoryTensor(spec, rng, inputIndex);
  let layout = baseLayout(spec.dtype, spec.shape);
  for (const op of viewOps(spec)) {
    const next = applyViewOp(layout, op);
    layout = next.layout;
    host = applyOp(host, op, layout, next.copies);
  }
  return host;
}

/** The final layout of a tensor spec and the storages building it allocates (allocates nothing). */
export interface TensorPlan {
  readonly what: string;
  readonly layout: StridedLayout;
  readonly storages: readonly { elements: number; dtype: DataType }[];
}

/** Plans a tensor spec: its view ops checked as PyTorch checks them (InputMismatchError naming `inputIndex`). */
export function planTensorSpec(spec: TensorInputSpec, inputIndex: number): TensorPlan {
  const what = `torch.${spec.factory}(${spec.shape.join(', ')})`;
  exactElementCount(spec.shape, what, inputIndex);
  try {
    return { what, ...planLayout(baseLayout(spec.dtype, spec.shape), viewOps(spec)) };
  } catch (e) {
    if (e instanceof ViewError) throw new InputMismatchError(inputIndex, `${what}: ${e.message}`);
    throw e;
  }
}

/** Reserves a plan's storages in `budget` (AllocationLimitError naming `inputIndex` when one does not fit). */
export function reserveTensorPlan(plan: TensorPlan, inputIndex: number, budget: AllocationBudget): void {
  for (const s of plan.storages) budget.reserve(s.dtype, [s.elements], plan.what, inputIndex);
  // The view's logical elements count too: an expanded or strided view is what the fusion reads.
  const viewed = exactElementCount(plan.layout.sizes, plan.what, inputIndex);
  checkTensorElements(viewed, plan.layout.dtype, `${plan.what} (as viewed, sizes [${plan.layout.sizes.join(', ')}])`, inputIndex, budget.limits);
}

/** A tensor for one `inputs` entry (storage reserved in `budget` first: default limits). */
export function materializeInput(spec: InputSpec, rng: Random, budget: AllocationBudget = new AllocationBudget(), inputIndex = 0): ExecuteInput {
  if (spec.kind === 'scalar') return spec.value;
  reserveTensorPlan(planTensorSpec(spec, inputIndex), inputIndex, budget);
  return Tensor.fromHost(buildTensor(spec, rng, inputIndex));
}

/** Builds specs already planned and reserved (planTensorSpec, reserveTensorPlan) in order. */
export function buildInputs(specs: readonly InputSpec[], rng: Random): ExecuteInput[] {
  return specs.map((spec, i): ExecuteInput => (spec.kind === 'scalar' ? spec.value : Tensor.fromHost(buildTensor(spec, rng, i))));
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

/** Inputs generated from the definition's declared inputs; all sizes are checked against `budget` first. */
export function generateInputs(
  descriptors: readonly InputDescriptor[],
  rng: Random,
  sizes: readonly number[] = DEFAULT_SIZES,
  budget: AllocationBudget = new AllocationBudget(),
): ExecuteInput[] {
  const layouts = descriptors.map((d, i) => {
    if (d.kind === 'scalar') return null;
    const shape = shapeFor(d.spec, sizes);
    const strides = stridesFor(d.spec, shape);
    budget.reserve(d.spec.dtype, shape, `${d.name} of sizes [${shape.join(', ')}]`, i, spanOf(shape, strides));
    return { shape, strides };
  });
  return descriptors.map((d, i): ExecuteInput => {
    if (d.kind === 'scalar') {
      if (d.dtype === 'Bool') return true;
      if (isFloatingType(d.dtype)) return 0.5 + rng.uniform();
      return 2;
    }
    // Reserved above for every tensor input.
    const layout = layouts[i] as { shape: number[]; strides: number[] };
    const dtype = d.spec.dtype;
    const spec: TensorInputSpec = { kind: 'tensor', factory: 'randn', shape: layout.shape, dtype };
    const storage = filledStorage(dtype, spanOf(layout.shape, layout.strides), (e) => factoryValue(spec, dtype, rng, e));
    return Tensor.fromHost(new HostTensor(dtype, layout.shape, layout.strides, storage.data));
  });
}
