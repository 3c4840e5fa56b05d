// Checks execute() inputs against the definition's declared inputs before any backend runs:
// that they are an array (InputListError otherwise), count, tensor vs scalar, dtype, rank,
// broadcast dims of size 1, constant sizes, that the strides honour the declared contiguity (in
// the declared stride order), and scalar values against their dtype (scalar-check.ts). The first
// mismatch is one InputMismatchError naming the input index, its name (T0, S2) and what differs.
// The tensor checks read only dtype, sizes and strides (TensorLayout), so the CLI runs them on
// planned inputs before it allocates any.

import type { DataType } from '@tsfuser/fusion-ir';
import { Tensor } from '@tsfuser/runtime';
import type { InputDescriptor } from '../definition/fusion-definition.js';
import type { NormalizedTensorSpec } from '../definition/tensor-spec.js';
import { InputListError, InputMismatchError } from '../errors.js';
import type { ExecuteInput } from './backend.js';
import { checkScalarInput, describeScalarValue } from './scalar-check.js';

/** What the tensor checks read of a tensor: a Tensor, or the layout of one not built yet. */
export interface TensorLayout {
  readonly dtype: DataType;
  readonly sizes: readonly number[];
  readonly strides: readonly number[];
}

export function describeInput(d: InputDescriptor): string {
  if (d.kind === 'scalar') return `${d.name}: ${d.dtype} scalar`;
  return `${d.name}: ${d.spec.dtype}[${d.spec.shape.join(', ')}]`;
}

function describeValue(v: unknown): string {
  if (v instanceof Tensor) return `a ${v.dtype} tensor of sizes [${v.sizes.join(', ')}]`;
  return describeScalarValue(v);
}

function isIndexLike(d: DataType): boolean {
  return d === 'Int' || d === 'Index';
}

/** Allocation order (outermost first) of a spec's dims. */
export function allocationOrder(spec: NormalizedTensorSpec): number[] {
  const dims = [...spec.shape.keys()];
  if (spec.strideOrder.length === 0) return dims;
  return dims.sort((a, b) => (spec.strideOrder[b] as number) - (spec.strideOrder[a] as number));
}

/** Throws unless a tensor of layout `t` fits tensor input `i` (dtype, rank, sizes, strides). */
export function checkTensorLayout(i: number, d: InputDescriptor & { kind: 'tensor' }, t: TensorLayout): void {
  const fail = (what: string): never => {
    throw new InputMismatchError(i, `${d.name} ${what}`);
  };
  const spec = d.spec;
  if (t.dtype !== spec.dtype && !(isIndexLike(t.dtype) && isIndexLike(spec.dtype))) {
    fail(`expects dtype ${spec.dtype}, got ${t.dtype}`);
  }
  if (t.sizes.length !== spec.shape.length) {
    fail(`expects rank ${spec.shape.length} ([${spec.shape.join(', ')}]), got rank ${t.sizes.length} (sizes [${t.sizes.join(', ')}])`);
  }
  spec.shape.forEach((s, dim) => {
    const size = t.sizes[dim] as number;
    if (s === 1 && size !== 1) fail(`dim ${dim} is a broadcast dim and must have size 1, got size ${size}`);
    if (s >= 0 && s !== 1 && size !== s) fail(`dim ${dim} must have size ${s}, got size ${size}`);
  });
  let expected = 1;
  const order = allocationOrder(spec);
  for (let pos = order.length - 1; pos >= 0; pos -= 1) {
    const dim = order[pos] as number;
    const size = t.sizes[dim] as number;
    const stride = t.strides[dim] as number;
    // Size-1 dims place no constraint on their stride (PyTorch ignores them too).
    if (spec.contiguity[dim] === null || size <= 1) continue;
    if (spec.contiguity[dim] === true && stride !== expected) {
      fail(
        `dim ${dim} is declared contiguous, so its stride must be ${expected}, got ${stride} (strides [${t.strides.join(', ')}]` +
          (spec.strideOrder.length > 0 ? `, stride order [${spec.strideOrder.join(', ')}])` : ')'),
      );
    }
    expected = stride * size;
  }
}

/** Checks `count` inputs against the descriptors' count (the index is the first missing or extra). */
export function checkInputCount(descriptors: readonly InputDescriptor[], count: number): void {
  if (count === descriptors.length) return;
  const at = Math.min(count, descriptors.length);
  const what = descriptors.length > count ? `missing (${describeInput(descriptors[at] as InputDescriptor)})` : 'is extra';
  throw new InputMismatchError(at, `${what}: the definition has ${descriptors.length} inputs (${descriptors.map(describeInput).join('; ')}) but ${count} were given`);
}

/** Checks execute()'s `inputs` (any value a caller may pass) against the definition. */
export function checkInputs(descriptors: readonly InputDescriptor[], inputs: unknown): asserts inputs is readonly ExecuteInput[] {
  if (!Array.isArray(inputs)) {
    throw new InputListError(
      `execute: inputs must be an array of ${descriptors.length} values (${descriptors.map(describeInput).join('; ')}), got ${describeValue(inputs)}`,
    );
  }
  const list = inputs as readonly unknown[];
  checkInputCount(descriptors, list.length);
  descriptors.forEach((d, i) => {
    const v = list[i];
    if (d.kind === 'tensor') {
      if (!(v instanceof Tensor)) throw new InputMismatchError(i, `${d.name} expects a ${d.spec.dtype} tensor, got ${describeValue(v)}`);
      checkTensorLayout(i, d, v);
      return;
    }
    if (v instanceof Tensor) throw new InputMismatchError(i, `${d.name} expects a ${d.dtype} scalar, got ${describeValue(v)}`);
    checkScalarInput(i, d, v);
  });
}
