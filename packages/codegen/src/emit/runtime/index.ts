// The runtime helper library prepended to every kernel, in dependency order.
import { ARRAY_RUNTIME } from './array.js';
import { BLOCK_ALLREDUCE_RUNTIME } from './block-allreduce.js';
import { BLOCK_ALLREDUCE_ONE_BARRIER_RUNTIME } from './block-allreduce-one-barrier.js';
import { BLOCK_REDUCE_RUNTIME } from './block-reduce.js';
import { BULK_COPY_RUNTIME } from './bulk-copy.js';
import { FP16_RUNTIME } from './fp16.js';
import { FP8_RUNTIME } from './fp8.js';
import { UINT64_RUNTIME } from './uint64.js';
import { GRID_OUTER_REDUCE_RUNTIME } from './grid-outer-reduce.js';
import { GRID_REDUCE_RUNTIME } from './grid-reduce.js';
import { MATH_RUNTIME } from './math.js';
import { COMPLEX_RUNTIME } from './complex.js';
import { PHILOX_RUNTIME } from './philox.js';
import { GREEDY_RUNTIME } from '../greedy/runtime.js';
import { SCATTER_RUNTIME } from '../greedy/scatter-runtime.js';
import { REDUCTION_PRIMITIVES_RUNTIME } from './reduction-primitives.js';
import { REDUCE_LANES_RUNTIME } from './reduce-lanes.js';
import { TENSOR_RUNTIME } from './tensor.js';
import { WELFORD_RUNTIME } from './welford.js';
import { FAST_DIVISION_RUNTIME } from './fast-division.js';

/**
 * `bulkCopies`: the cp.async.bulk helpers too (sm_90+ PTX, so only for kernels that use them);
 * `rng`: the Philox helpers (only for kernels that draw random numbers); `scanSort`: the greedy
 * scan, sort and scatter helpers (emit/greedy/runtime.ts, scatter-runtime.ts); `complex`: the complex
 * types and math (only for kernels with ComplexFloat / ComplexDouble values); `fastDivision`: the
 * NvfDivisor helpers (only for kernels with fast divisions).
 */
export function runtimeLibrary(
  indexType: 'Int32' | 'Int',
  options: { bulkCopies?: boolean; rng?: boolean; scanSort?: boolean; complex?: boolean; fastDivision?: boolean } = {},
): string {
  const header = `// tsfuser runtime helpers\ntypedef ${indexType === 'Int32' ? 'int' : 'long long'} nvfuser_index_t;\n`;
  const math = options.complex === true ? [MATH_RUNTIME, COMPLEX_RUNTIME] : [MATH_RUNTIME];
  const parts = [header, FP16_RUNTIME, FP8_RUNTIME, TENSOR_RUNTIME, ARRAY_RUNTIME, ...math, UINT64_RUNTIME, REDUCTION_PRIMITIVES_RUNTIME, BLOCK_REDUCE_RUNTIME, BLOCK_ALLREDUCE_RUNTIME, BLOCK_ALLREDUCE_ONE_BARRIER_RUNTIME, GRID_REDUCE_RUNTIME, REDUCE_LANES_RUNTIME, GRID_OUTER_REDUCE_RUNTIME, WELFORD_RUNTIME];
  return [...parts, ...(options.rng === true ? [PHILOX_RUNTIME] : []), ...(options.scanSort === true ? [GREEDY_RUNTIME, SCATTER_RUNTIME] : []), ...(options.bulkCopies === true ? [BULK_COPY_RUNTIME] : []), ...(options.fastDivision === true ? [FAST_DIVISION_RUNTIME] : [])].join('\n');
}

export { PHILOX_CORE, PHILOX_RUNTIME } from './philox.js';
export { FAST_DIVISION_RUNTIME } from './fast-division.js';
export { COMPLEX_CORE, COMPLEX_RUNTIME } from './complex.js';
export { ARRAY_RUNTIME, BULK_COPY_RUNTIME, FP8_RUNTIME, UINT64_RUNTIME, BLOCK_ALLREDUCE_ONE_BARRIER_RUNTIME, BLOCK_ALLREDUCE_RUNTIME, BLOCK_REDUCE_RUNTIME, FP16_RUNTIME, GRID_OUTER_REDUCE_RUNTIME, GRID_REDUCE_RUNTIME, MATH_RUNTIME, REDUCE_LANES_RUNTIME, REDUCTION_PRIMITIVES_RUNTIME, TENSOR_RUNTIME, WELFORD_RUNTIME };
