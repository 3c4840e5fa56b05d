// The dense copy of a GEMM operand cuBLASLt cannot read in place: the copy fusion broadcasts a
// strided source to the GEMM's batch (right-aligned, size-1 dims expanded) and writes it dense —
// checked on the reference evaluator element by element against the broadcast written out by
// hand — and the pointwise scheduler (the copy's only scheduler) accepts it as one kernel.
import { evaluate, HostTensor } from '@tsfuser/fusion-ir';
import { bindExtents, makeRuntimeInfo } from '@tsfuser/scheduler';
import { outputLayout } from '../src/executor/output-allocation.js';
import { describe, expect, it } from 'vitest';
import { denseCopyFusion, denseCopyRegistry } from '../src/executor/dense-copy.js';

describe('dense copies of GEMM operands', () => {
  it('broadcasts [2, 1, 3, 4] (strided) to [2, 5, 3, 4] and writes it dense', () => {
    const f = denseCopyFusion('Float', [2, 1, 3, 4], [2, 5, 3, 4]);
    // source element [b, 0, i, j] at 100·b + 9·i + 2·j of a padded storage
    const storage = HostTensor.fromValues('Float', [220], Array.from({ length: 220 }, (_, i) => i));
    const source = new HostTensor('Float', [2, 1, 3, 4], [100, 0, 9, 2], storage.data);
    const [out] = evaluate(f, [source]) as HostTensor[];
    expect(out?.sizes).toEqual([2, 5, 3, 4]);
    const want: number[] = [];
    for (let b = 0; b < 2; b += 1) for (let r = 0; r < 5; r += 1) for (let i = 0; i < 3; i += 1) for (let j = 0; j < 4; j += 1) want.push(100 * b + 9 * i + 2 * j);
    expect(out?.toNumbers()).toEqual(want);
    const info = makeRuntimeInfo(f, [{ sizes: [2, 1, 3, 4], strides: [100, 0, 9, 2] }]);
    expect(denseCopyRegistry().pick(f, info).scheduler.type).toBe('pointwise');
    // Allocated dense: no expanded (stride-0) dim in the output, which the GEMM would refuse
    // (H200 runtime-gemm-fusions, 4-D·3-D matmuls: "the copy of operand B is not dense").
    const output = f.outputs[0];
    if (output === undefined || output.kind !== 'tensorView') throw new Error('the copy has a tensor output');
    expect(outputLayout(output, bindExtents(f, info)).strides).toEqual([60, 12, 4, 1]);
  });

  it('adds missing leading batch dims', () => {
    const f = denseCopyFusion('Float', [3, 2], [4, 3, 2]);
    const src = HostTensor.fromValues('Float', [3, 2], [1, 2, 3, 4, 5, 6]);
    const [out] = evaluate(f, [src]) as HostTensor[];
    expect(out?.toNumbers()).toEqual([1, 2, 3, 4, 5, 6, 1, 2, 3, 4, 5, 6, 1, 2, 3, 4, 5, 6, 1, 2, 3, 4, 5, 6]);
  });
});
