// What the reference backend checks before it evaluates, so that it never starts an allocation
// past the limits (io/allocation-limits.ts): the inputs' float64 working copies (8 bytes per
// element) against the total, and the size of every tensor the fusion will make — computed from
// the inputs' sizes and scalar values alone, as the evaluator binds them — against the
// per-tensor limit. A broadcast to sizes taken from a scalar input (`broadcast_in_dim(T0,
// shape=[S1, 3])` with S1 = 2^30) is one AllocationLimitError naming the tensor and its size.
// Extents that depend on tensor values are left to the evaluator. The elements the evaluation
// computes, all tensors together, are checked against limits.maxReferenceElements (default
// REFERENCE_MAX_ELEMENTS): a broadcast of an 80 KB input to 4e8 elements is refused at once with
// the size, where it took 14 s and 3.2 GB.

import { EvalContext, FusionIrError, castTo, type Fusion } from '@tsfuser/fusion-ir';
import { Tensor } from '@tsfuser/device';
import { AllocationLimitError } from '../errors.js';
import { AllocationBudget, checkTensorElements, REFERENCE_BYTES_PER_ELEMENT, REFERENCE_MAX_ELEMENTS, type AllocationLimits } from '../io/allocation-limits.js';
import type { ExecuteInput } from './backend.js';

/** Refuses inputs whose float64 working copies would pass `limits` (AllocationLimitError naming the input). */
export function checkReferenceWorkingSet(inputs: readonly ExecuteInput[], limits: AllocationLimits): void {
  const budget = new AllocationBudget(limits, REFERENCE_BYTES_PER_ELEMENT);
  inputs.forEach((v, i) => {
    if (v instanceof Tensor) budget.reserve(v.dtype, v.sizes, `the reference backend's copy of input ${i}`, i);
  });
}

/** Binds input extents and scalar values as the evaluator does (without touching tensor data). */
function sizeContext(fusion: Fusion, inputs: readonly ExecuteInput[]): EvalContext {
  const ctx = new EvalContext(fusion);
  fusion.inputs.forEach((v, i) => {
    const x = inputs[i];
    if (x === undefined) return;
    if (v.kind === 'scalar' && !(x instanceof Tensor)) ctx.bind(v, castTo(x, v.dtype));
    if (v.kind !== 'tensorView' || !(x instanceof Tensor)) return;
    v.domain.logicalNoReductions().forEach((id, d) => {
      const extent = id.logicalExtent();
      const size = x.sizes[d];
      if (extent.value === null && size !== undefined && !ctx.has(extent)) ctx.bind(extent, BigInt(size));
    });
  });
  return ctx;
}

/** Refuses a fusion whose intermediates or outputs would pass the per-tensor limit. */
export function checkReferenceTensorSizes(fusion: Fusion, inputs: readonly ExecuteInput[], limits: AllocationLimits): void {
  const ctx = sizeContext(fusion, inputs);
  const inputTvs = new Set(fusion.inputs);
  const workLimit = BigInt(limits.maxReferenceElements ?? REFERENCE_MAX_ELEMENTS);
  let work = 0n;
  let largest: { name: string; elements: bigint } | null = null;
  for (const tv of fusion.allTvs()) {
    let sizes: number[];
    try {
      sizes = ctx.sizesOf(tv);
    } catch (e) {
      // An extent computed from tensor values (or a definition the evaluator will reject itself).
      if (e instanceof FusionIrError) continue;
      throw e;
    }
    if (sizes.some((s) => !Number.isSafeInteger(s) || s < 0)) continue;
    const elements = sizes.reduce((a, s) => a * BigInt(s), 1n);
    try {
      checkTensorElements(elements, tv.dtype, `T${tv.name} of sizes [${sizes.join(', ')}]`, null, limits);
    } catch (e) {
      if (e instanceof AllocationLimitError) throw new AllocationLimitError(null, `the reference backend: ${e.detail}`);
      throw e;
    }
    if (inputTvs.has(tv)) continue;
    work += elements;
    if (largest === null || elements > largest.elements) largest = { name: `T${tv.name} of sizes [${sizes.join(', ')}]`, elements };
  }
  if (work > workLimit && largest !== null) {
    throw new AllocationLimitError(
      null,
      `the reference backend: the fusion computes ${work} elements in all (the largest, ${largest.name}, has ${largest.elements}), more than the evaluator's limit of ${workLimit} (TSFUSER_MAX_REFERENCE_ELEMENTS raises it)`,
    );
  }
}
