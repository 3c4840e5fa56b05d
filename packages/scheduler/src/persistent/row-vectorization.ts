// The vector width of a row schedule's contiguous accesses, shared by the inner persistent and
// inner-outer persistent heuristics (each picks its own row inputs and outputs): the widest
// vector (≤ maxVectorBytes of the widest row tensor) that divides the row length, every outer
// stride of each row input (size-1 dims aside) and its pointer alignment; a row input of another
// rank, read through reshapes (`reshaped`), must also hold all `numel` elements of the row tensor
// (a reshape keeps the row-major order, so its linear index is the row tensor's) and have an
// innermost extent the vector divides, so no vector crosses its innermost dim; so must the
// innermost extent of each output written through reshapes (`reshapedOutputInner`). Invariant: a chosen
// factor > 1 makes every vectorized access of the listed inputs and outputs aligned and in
// bounds.

import { dataTypeSize, type Fusion, type TensorView } from '@tsfuser/fusion-ir';
import type { RuntimeInfo } from '../runtime-info.js';

export interface VectorChoice {
  factor: number;
  /** Fusion input positions read with the vector. */
  inputs: number[];
  /** Fusion output positions written with the vector. */
  outputs: number[];
}

/** Scalar accesses (a fresh object: params keep its arrays). */
function scalar(): VectorChoice {
  return { factor: 1, inputs: [], outputs: [] };
}

/**
 * The vector for rows of `rowLength` elements read from `rowInputs` (those used, with a
 * contiguous innermost dim) and written to `rowOutputs` (those that are not also inputs).
 */
export function rowVectorChoice(
  fusion: Fusion,
  runtimeInfo: RuntimeInfo,
  rowInputs: ReadonlySet<TensorView>,
  rowOutputs: ReadonlySet<TensorView>,
  rowLength: number,
  maxVectorBytes: number,
  reshaped: { tvs: ReadonlySet<TensorView>; numel: number } | null = null,
  reshapedOutputInner: readonly number[] = [],
): VectorChoice {
  const cands: { position: number; size: number; sizes: readonly number[]; strides: readonly number[]; alignment: number; inner: number | null }[] = [];
  fusion.inputs.forEach((v, i) => {
    const info = runtimeInfo.inputs[i];
    if (v.kind !== 'tensorView' || !rowInputs.has(v) || info === undefined || info.kind !== 'tensor') return;
    if (info.strides[info.strides.length - 1] !== 1 || v.uses.length === 0) return;
    const viaReshape = reshaped !== null && reshaped.tvs.has(v);
    if (viaReshape && info.sizes.reduce((a, b) => a * b, 1) !== reshaped.numel) return;
    const inner = viaReshape ? (info.sizes[info.sizes.length - 1] ?? 1) : null;
    cands.push({ position: i, size: dataTypeSize(v.dtype), sizes: info.sizes, strides: info.strides, alignment: info.alignment, inner });
  });
  const outputs = fusion.outputs.flatMap((v, i) => (v.kind === 'tensorView' && rowOutputs.has(v) && !fusion.inputs.includes(v) ? [i] : []));
  if (cands.length === 0 || rowLength === 0) return scalar();
  const widest = Math.max(...cands.map((c) => c.size), ...outputs.map((i) => dataTypeSize((fusion.outputs[i] as TensorView).dtype)));
  let factor = Math.max(1, Math.floor(maxVectorBytes / widest));
  const ok = (v: number): boolean =>
    rowLength % v === 0 &&
    reshapedOutputInner.every((n) => n % v === 0) &&
    cands.every((c) => (c.inner === null || c.inner % v === 0) && c.alignment % (v * c.size) === 0 && c.strides.every((s, d) => d === c.strides.length - 1 || (c.sizes[d] ?? 1) <= 1 || s % v === 0));
  while (factor > 1 && !ok(factor)) factor /= 2;
  return factor > 1 ? { factor, inputs: cands.map((c) => c.position), outputs } : scalar();
}
