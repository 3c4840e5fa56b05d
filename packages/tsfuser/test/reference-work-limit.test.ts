// The reference backend refuses at once, with the size, an evaluation it cannot finish in
// reasonable time or memory: a broadcast of an 80 KB input (20,000 floats) to 20,000 × 20,000
// took 14 s and 3.2 GB. The work limit (elements computed, all tensors together) defaults to
// 2^28 and is set with TSFUSER_MAX_REFERENCE_ELEMENTS; under it the values are computed.

import { describe, expect, it } from 'vitest';
import { HostTensor } from '@tsfuser/fusion-ir';
import { AllocationLimitError, FusionCache, FusionDefinition, Tensor } from '../src/index.js';
import { limitsFromEnv } from '../src/io/allocation-limits.js';

function outerSum(n: number): FusionDefinition {
  return FusionDefinition.build((fd) => {
    const x = fd.defineTensor(1);
    const rows = fd.ops.broadcastInDim(x, [n, n], [1]);
    const cols = fd.ops.broadcastInDim(x, [n, n], [0]);
    fd.addOutput(fd.ops.add(rows, cols));
  }, { cache: new FusionCache() });
}

function ramp(n: number): Tensor {
  return Tensor.fromHost(HostTensor.fromValues('Float', [n], Array.from({ length: n }, (_, i) => i)));
}

describe('the reference backend work limit', () => {
  it('refuses a 4e8-element evaluation of an 80 KB input at once, naming the sizes', async () => {
    const started = performance.now();
    const run = outerSum(20000).execute([ramp(20000)], { backend: 'reference' });
    await expect(run).rejects.toThrow(AllocationLimitError);
    await expect(outerSum(20000).execute([ramp(20000)], { backend: 'reference' })).rejects.toThrow(
      /the reference backend: the fusion computes 1200040000 elements in all \(the largest, T\d+ of sizes \[20000, 20000\], has 400000000\), more than the evaluator's limit of 268435456 \(TSFUSER_MAX_REFERENCE_ELEMENTS raises it\)/,
    );
    expect(performance.now() - started).toBeLessThan(5000);
  });

  it('computes under the limit, and TSFUSER_MAX_REFERENCE_ELEMENTS moves it', async () => {
    const [out] = await outerSum(3).execute([ramp(3)], { backend: 'reference' });
    expect(out?.toArray()).toEqual([0, 1, 2, 1, 2, 3, 2, 3, 4]);
    const limits = limitsFromEnv({ TSFUSER_MAX_REFERENCE_ELEMENTS: '20' });
    await expect(outerSum(3).execute([ramp(3)], { backend: 'reference', limits })).rejects.toThrow(/computes 33 elements in all .* limit of 20/);
    expect(() => limitsFromEnv({ TSFUSER_MAX_REFERENCE_ELEMENTS: '1e9' })).toThrow(/TSFUSER_MAX_REFERENCE_ELEMENTS must be a positive integer/);
  });
});
