// The complex fixtures of test-support compiled to kernels (for the nvcc test): each case's fusion
// with the runtime info of its seeded inputs, through the schedulers the fusion picks.
import { complexCases, runtimeInfoOf } from '@tsfuser/test-support';
import { compileFusion, type CompiledKernel } from '../src/index.js';

export function complexKernels(): CompiledKernel[] {
  return complexCases('small').map((c, i) => compileFusion(c.fusion, runtimeInfoOf(c.fusion, c.inputs(17 + i)), { fusionId: 9000 + i }));
}
