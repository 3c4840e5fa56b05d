// The reference backend: runs a Fusion with fusion-ir's CPU evaluator (float64/int64 math,
// rounded to each op's dtype). Device inputs are copied to the host first; outputs are host
// tensors, scalar outputs 0-dim tensors of the output's dtype. Before it evaluates, the inputs'
// working set and every tensor's size are checked against the allocation limits
// (reference-limits.ts).

import { HostTensor, evaluate, type EvalValue, type Fusion } from '@tsfuser/fusion-ir';
import { Tensor } from '@tsfuser/device';
import { DEFAULT_ALLOCATION_LIMITS, type AllocationLimits } from '../io/allocation-limits.js';
import type { Backend, ExecuteInput } from './backend.js';
import { checkReferenceTensorSizes, checkReferenceWorkingSet } from './reference-limits.js';

function toEvalValue(input: ExecuteInput): EvalValue {
  if (input instanceof Tensor) return input.toHost();
  return input;
}

export function evaluateOnHost(fusion: Fusion, inputs: readonly ExecuteInput[], limits: AllocationLimits = DEFAULT_ALLOCATION_LIMITS): Tensor[] {
  checkReferenceWorkingSet(inputs, limits);
  checkReferenceTensorSizes(fusion, inputs, limits);
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
