// Checks execute() inputs against the definition's declared inputs before any backend runs:
// that they are an array (InputListError otherwise), count, tensor vs scalar, dtype, rank,
// broadcast dims of size 1, constant sizes, expanded dims (stride 0), that the strides honour the
// declared contiguity — as in nvFuser given per allocation position (stride order) — and scalar
// values against their dtype (scalar-check.ts). The first mismatch is one InputMismatchError
// naming the input index, its name (T0, S2) and what differs. The tensor checks read only dtype,
// sizes and strides (TensorLayout), so the CLI runs them on planned inputs before it allocates any.
// A Tensor's dtype, sizes and strides never change, so a tensor that passed for a descriptor
// passes again: execute() remembers the last one per descriptor and checks only new tensors
// (a cached call on the same inputs pays one identity compare per input, issue 38).

import type { DataType } from '@tsfuser/fusion-ir';
import { Tensor } from '@tsfuser/device';
import type { InputDescriptor } from '../definition/fusion-definition.js';
import { allocationOrder, expandedDims } from '../definition/tensor-spec.js';
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

export { allocationOrder } from '../definition/tensor-spec.js';

/** What the layout checks read of a spec, derived once per spec (specs are not changed after definition). */
interface SpecFacts {
  expanded: boolean[];
  order: number[];
}

const specFacts = new WeakMap<object, SpecFacts>();

function factsOf(spec: (InputDescriptor & { kind: 'tensor' })['spec']): SpecFacts {
  let facts = specFacts.get(spec);
  if (facts === undefined) {
    facts = { expanded: expandedDims(spec), order: allocationOrder(spec) };
    specFacts.set(spec, facts);
  }
  return facts;
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
  const { expanded, order } = factsOf(spec);
  // No elements: no stride matters (PyTorch calls every empty tensor contiguous), the expanded
  // dims' stride 0 included — nvFuser's test_pad_expanded_empty feeds (2, 0, 3) with strides 0.
  const empty = t.sizes.some((size) => size === 0);
  for (let dim = 0; dim < spec.shape.length; dim += 1) {
    const s = spec.shape[dim] as number;
    const size = t.sizes[dim] as number;
    if (s === 1 && size !== 1) fail(`dim ${dim} is a broadcast dim and must have size 1, got size ${size}`);
    if (s >= 0 && s !== 1 && size !== s) fail(`dim ${dim} must have size ${s}, got size ${size}`);
    if (!empty && expanded[dim] === true && size > 1 && t.strides[dim] !== 0) {
      fail(`dim ${dim} is declared expanded (contiguity None), so its stride must be 0, got ${t.strides[dim]} (strides [${t.strides.join(', ')}])`);
    }
  }
  if (empty) return;
  let expected = 1;
  for (let pos = order.length - 1; pos >= 0; pos -= 1) {
    const dim = order[pos] as number;
    const size = t.sizes[dim] as number;
    const stride = t.strides[dim] as number;
    const contiguous = spec.contiguity[pos] ?? null;
    // Broadcast, expanded and size-0/1 dims place no constraint on their stride (as PyTorch).
    if (contiguous === null || size <= 1) continue;
    if (contiguous && stride !== expected) {
      fail(
        `dim ${dim} is declared contiguous (contiguity[${pos}]), so its stride must be ${expected}, got ${stride} (strides [${t.strides.join(', ')}]` +
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
  for (let i = 0; i < descriptors.length; i += 1) {
    const d = descriptors[i] as InputDescriptor;
    const v = list[i];
    if (d.kind === 'tensor') {
      if (!(v instanceof Tensor)) throw new InputMismatchError(i, `${d.name} expects a ${d.spec.dtype} tensor, got ${describeValue(v)}`);
      if (lastPassed.get(d)?.deref() === v) continue;
      checkTensorLayout(i, d, v);
      lastPassed.set(d, new WeakRef(v));
      continue;
    }
    if (v instanceof Tensor) throw new InputMismatchError(i, `${d.name} expects a ${d.dtype} scalar, got ${describeValue(v)}`);
    checkScalarInput(i, d, v);
  }
}

/**
 * The last tensor that passed checkTensorLayout for each descriptor (see the header), held
 * weakly: the memo must not keep a caller's (device) tensor alive after its last use.
 */
const lastPassed = new WeakMap<InputDescriptor, WeakRef<Tensor>>();
