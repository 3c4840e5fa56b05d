// Golden dumps of the transpose scheduler: x.t().contiguous() of a [16384, 4096] f32 tensor and
// (x + 1).t() · 2 in bf16 with odd sizes (`cuda_kernel`, `kernel_ir`, `scheduler_params` +
// `launch_param`), the kernel IR right after the transpose-smem-tile pass, and the
// `segmented_fusion` of a transpose beside a reduction (the permute's kernel is a transpose
// segment). UPDATE_GOLDEN=1 rewrites them.
import { fileURLToPath } from 'node:url';
import { add, cast, checkGolden, Fusion, makeTensor, mul, permute, strideOrder, sum } from '@tsfuser/fusion-ir';
import { defaultSchedulerRegistry, makeRuntimeInfo, segmentedFusionToString, segmentFusion } from '@tsfuser/scheduler';
import { describe, expect, it } from 'vitest';
import { compileFusion } from '../src/index.js';

const dir = fileURLToPath(new URL('../../../test-fixtures/golden/codegen/', import.meta.url));
const update = process.env.UPDATE_GOLDEN === '1';

function golden(name: string, text: string): void {
  const r = checkGolden(text, `${dir}${name}`, update);
  expect(r.diff).toBe('');
}

describe('transpose golden dumps', () => {
  it('x.t().contiguous(), x [16384, 4096] f32', () => {
    const f = new Fusion();
    const x = makeTensor(f, { shape: [-1, -1], dtype: 'Float' });
    f.addInput(x);
    f.addOutput(strideOrder(permute(x, [1, 0]), [1, 0]));
    const k = compileFusion(f, makeRuntimeInfo(f, [{ sizes: [16384, 4096] }]), { kernelIrAfterPass: 'transpose-smem-tile' });
    expect(k.params.schedulerType).toBe('transpose');
    golden('transpose_f32_16384x4096.cuda_kernel.txt', k.dumps.cuda);
    golden('transpose_f32_16384x4096.kernel_ir.txt', k.dumps.kernelIr);
    golden('transpose_f32_16384x4096.scheduler_params.txt', k.dumps.schedulerParams + k.dumps.launchParams);
    expect(k.dumps.kernelIrAfterPass).toContain('BLOCK_SYNC');
  });

  it('(x + 1).t() · 2 in bf16, x [1000, 777] (tiles and vectors not dividing the sizes)', () => {
    const f = new Fusion();
    const x = makeTensor(f, { shape: [-1, -1], dtype: 'BFloat16' });
    f.addInput(x);
    f.addOutput(cast(mul(permute(add(cast(x, 'Float'), 1), [1, 0]), 2), 'BFloat16'));
    const k = compileFusion(f, makeRuntimeInfo(f, [{ sizes: [1000, 777] }]));
    expect(k.params.schedulerType).toBe('transpose');
    golden('transpose_add_mul_bf16_1000x777.cuda_kernel.txt', k.dumps.cuda);
    golden('transpose_add_mul_bf16_1000x777.scheduler_params.txt', k.dumps.schedulerParams + k.dumps.launchParams);
  });

  it('a transpose beside a row sum: a transpose segment and a reduction segment', () => {
    const f = new Fusion();
    const x = makeTensor(f, { shape: [-1, -1] });
    f.addInput(x);
    f.addOutput(strideOrder(mul(permute(x, [1, 0]), 2), [1, 0]));
    f.addOutput(sum(x, [1]));
    const sf = segmentFusion(f, makeRuntimeInfo(f, [{ sizes: [2048, 1024] }]), defaultSchedulerRegistry());
    expect(sf.groups.map((g) => g.schedulerType).sort()).toEqual(['reduction', 'transpose']);
    golden('transpose_beside_sum.segmented_fusion.txt', segmentedFusionToString(sf));
  });
});
