// Checks a device tensor against the fusion input it binds to before any kernel reads it:
// broadcast dims have size 1, and every dim declared contiguous has the dense stride in the
// input's allocation order (a kernel indexes such dims with computed strides, so a lying
// layout would read the wrong elements rather than fail). Size-0/1 dims constrain nothing, as
// in PyTorch. One ExecutorInputError naming the input and dim.

import type { TensorView } from '@tsfuser/fusion-ir';
import { ExecutorInputError } from '../errors.js';

export function validateInputLayout(index: number, tv: TensorView, sizes: readonly number[], strides: readonly number[]): void {
  const logical = tv.domain.logicalNoReductions();
  const where = `input ${index} (T${tv.name})`;
  logical.forEach((id, d) => {
    if (id.isBroadcast() && id.expandedExtent === null && sizes[d] !== 1) {
      throw new ExecutorInputError(`${where}: dim ${d} is a broadcast dim and must have size 1, got ${sizes[d]}`);
    }
  });
  const allocation = tv.domain.allocation?.filter((id) => !id.isReduction()) ?? logical;
  let expected = 1;
  for (let k = allocation.length - 1; k >= 0; k -= 1) {
    const d = logical.indexOf(allocation[k] as (typeof logical)[number]);
    if (d < 0) return; // allocation domain not a permutation of logical: nothing to check against
    const size = sizes[d] as number;
    const stride = strides[d] as number;
    const contiguous = tv.domain.contiguity[d];
    if (contiguous === null || contiguous === undefined || size <= 1) continue;
    if (contiguous && stride !== expected) {
      throw new ExecutorInputError(
        `${where}: dim ${d} is declared contiguous, so its stride must be ${expected}, got ${stride} (sizes [${sizes.join(', ')}], strides [${strides.join(', ')}]); declare it non-contiguous or pass a contiguous tensor`,
      );
    }
    expected = stride * size;
  }
}
