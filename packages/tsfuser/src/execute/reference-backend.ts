// The reference backend: runs a Fusion with fusion-ir's CPU evaluator (float64/int64 math,
// rounded to each op's dtype). Device inputs are copied to the host first; outputs are host
// tensors, scalar outputs 0-dim tensors of the output's dtype. Before it evaluates, the inputs'
// float64 working set (8 bytes per element) must fit the allocation limits' total.

import { HostTensor, evaluate, type EvalValue, type Fusion } from '@tsfuser/fusion-ir';
import { Tensor } from '@tsfuser/runtime';
import { AllocationBudget, DEFAULT_ALLOCATION_LIMITS, REFERENCE_BYTES_PER_ELEMENT, type AllocationLimits } from '../io/allocation-limits.js';
import type { Backend, ExecuteInput } from './backend.js';

function toEvalValue(input: ExecuteInput): EvalValue {
  if (input instanceof Tensor) return input.toHost();
  return input;
}

/** Refuses inputs whose float64 working copies would pass `limits` (AllocationLimitError). */
export function checkReferenceWorkingSet(inputs: readonly ExecuteInput[], limits: AllocationLimits = DEFAULT_ALLOCATION_LIMITS): void {
  const budget = new AllocationBudget(limits, REFERENCE_BYTES_PER_ELEMENT);
  inputs.forEach((v, i) => {
    if (v instanceof Tensor) budget.reserve(v.dtype, v.sizes, `the reference backend's copy of input ${i}`, i);
  });
}

export function evaluateOnHost(fusion: Fusion, inputs: readonly ExecuteInput[], limits: AllocationLimits = DEFAULT_ALLOCATION_LIMITS): Tensor[] {
  checkReferenceWorkingSet(inputs, limits);
  const outputs = evaluate(fusion, inputs.map(toEvalValue));
  return outputs.map((out, i) => {
    if (out instanceof HostTensor) return Tensor.fromHost(out);
    const val = fusion.outputs[i];
    const dtype = val !== undefined && val.kind === 'scalar' ? val.dtype : 'Double';
    return Tensor.fromHost(HostTensor.fromValues(dtype, [], [out]));
  });
}

export const referenceBackend: Backend = {
  name: 'reference',
  availability: () => ({ available: true }),
  run: (fusion, inputs, options) => Promise.resolve(evaluateOnHost(fusion, inputs, options.limits)),
};
