// Golden dumps of reshapes on the GPU path: the GPT-NeoX attention prologue [B, S, 3·H·D] →
// [B, S, H, 3, D] as one pointwise kernel and a reshape feeding a row sum as one reduction kernel
// (`cuda_kernel`, `scheduler_params`), and the `segmented_fusion` / `fusion_ir_segments` of a
// reshape after a reduction (a boundary after the reduction). UPDATE_GOLDEN=1 rewrites them.
import { fileURLToPath } from 'node:url';
import { add, cast, checkGolden, Fusion, makeTensor, mul, reshape, size, sum } from '@tsfuser/fusion-ir';
import { defaultSchedulerRegistry, fusionIrSegmentsToString, makeRuntimeInfo, segmentedFusionToString, segmentFusion } from '@tsfuser/scheduler';
import { describe, expect, it } from 'vitest';
import { compileFusion } from '../src/index.js';

const dir = fileURLToPath(new URL('../../../test-fixtures/golden/codegen/', import.meta.url));
const update = process.env.UPDATE_GOLDEN === '1';

function golden(name: string, text: string): void {
  const r = checkGolden(text, `${dir}${name}`, update);
  expect(r.diff).toBe('');
}

describe('reshape golden dumps', () => {
  it('GPT-NeoX qkv split [8, 2048, 3·32·128] bf16 → [8, 2048, 32, 3, 128] · 0.125', () => {
    const f = new Fusion();
    const x = makeTensor(f, { shape: [-1, -1, -1], dtype: 'BFloat16' });
    f.addInput(x);
    f.addOutput(cast(mul(reshape(cast(x, 'Float'), [size(x, 0), size(x, 1), 32, 3, 128]), 0.125), 'BFloat16'));
    const k = compileFusion(f, makeRuntimeInfo(f, [{ sizes: [8, 2048, 3 * 32 * 128] }]));
    golden('reshape_gpt_neox_qkv.cuda_kernel.txt', k.dumps.cuda);
    golden('reshape_gpt_neox_qkv.scheduler_params.txt', k.dumps.schedulerParams + k.dumps.launchParams);
  });

  it('reshape feeding a row sum: one reduction kernel', () => {
    const f = new Fusion();
    const x = makeTensor(f, { shape: [-1, -1] });
    f.addInput(x);
    f.addOutput(sum(reshape(mul(x, 2), [size(x, 0), 16, -1]), [2]));
    const k = compileFusion(f, makeRuntimeInfo(f, [{ sizes: [1024, 4096] }]));
    golden('reshape_then_sum.cuda_kernel.txt', k.dumps.cuda);
    golden('reshape_then_sum.scheduler_params.txt', k.dumps.schedulerParams + k.dumps.launchParams);
  });

  it('a reshape after a row sum: one reduction kernel (the view takes the reduction loops)', () => {
    const f = new Fusion();
    const x = makeTensor(f, { shape: [-1, -1, -1] });
    f.addInput(x);
    f.addOutput(add(reshape(sum(x, [2]), [-1]), 1));
    const info = makeRuntimeInfo(f, [{ sizes: [64, 32, 512] }]);
    const sf = segmentFusion(f, info, defaultSchedulerRegistry());
    expect(sf.groups.map((g) => g.schedulerType)).toEqual(['reduction']);
    golden('sum_then_reshape.segmented_fusion.txt', segmentedFusionToString(sf));
    golden('sum_then_reshape.fusion_ir_segments.txt', fusionIrSegmentsToString(sf));
    golden('sum_then_reshape.cuda_kernel.txt', compileFusion(f, info).dumps.cuda);
  });

  it('a reshape merging the kept dims around the reduced one: a boundary naming the reshape', () => {
    const f = new Fusion();
    const x = makeTensor(f, { shape: [-1, -1, -1] });
    f.addInput(x);
    f.addOutput(add(reshape(sum(x, [1]), [-1]), 1));
    const sf = segmentFusion(f, makeRuntimeInfo(f, [{ sizes: [64, 512, 32] }]), defaultSchedulerRegistry());
    expect(sf.groups.map((g) => g.schedulerType)).toEqual(['reduction', 'pointwise']);
    golden('sum_middle_then_reshape.fusion_ir_segments.txt', fusionIrSegmentsToString(sf));
  });
});
