// Inner-outer persistent kernels with several rows per block (bdimy > 1, nvFuser's multiple
// reductions per block), fast tier: the kernel's structure — the outer partials combined
// across threadIdx.y by a BlockReduce that no `if` encloses, the work-buffer store by
// threadIdx.y 0 only, the rows split [blockIdx.x, serial, threadIdx.y] with a predicate where
// bdimy does not divide the block's rows — and a few small cases simulated against the
// reference evaluator, compared norm-wise. Random shapes and nvcc: inner-outer-rows-block-random.test.ts.
import { describe, expect, it } from 'vitest';
import { buildLayerNormBackward } from '@tsfuser/test-support';
import type { Stmt } from '../src/index.js';
import { lowerCase, walk } from './inner-outer-lowering.js';
import { buildRmsNormBackward, layerNormCase, simulateNormwise } from './inner-outer-rows-block-cases.js';

function blockReducesOverY(stmts: readonly Stmt[]): { insideIf: boolean }[] {
  const found: { insideIf: boolean }[] = [];
  walk(stmts, false, (s, insideIf) => {
    if (s.kind === 'BlockReduce' && s.reduceDims.join() === 'TIDy') found.push({ insideIf });
  });
  return found;
}

describe('inner-outer persistent codegen: several rows per block (bdimy > 1)', () => {
  it('bf16 layer_norm backward 1024×768 takes 4 rows per block by default; the outer partials meet across threadIdx.y before the grid step', () => {
    const { kernel, compiled } = lowerCase(buildLayerNormBackward('BFloat16', 1024, 768));
    expect(compiled.launch.block).toEqual([96, 4, 1]);
    // One block reduction across threadIdx.y per outer reduction (grad_weight, grad_bias), never under an `if`.
    const acrossY = blockReducesOverY(kernel.body);
    expect(acrossY.length).toBe(2);
    expect(acrossY.every((r) => !r.insideIf)).toBe(true);
    const cuda = compiled.dumps.cuda;
    expect(cuda).toContain('blockReduce<false, true>(');
    // Only threadIdx.y 0 stores the block's partial.
    const stores = cuda.split('\n').filter((l) => l.includes('_outer_work[static_cast<nvfuser_index_t>(blockIdx.x)'));
    expect(stores.length).toBe(2);
    expect(cuda).toMatch(/threadIdx\.y < 1/);
    expect(compiled.dumps.schedulerParams).toContain('Iteration Domain: blockIdx.x / threadIdx.y / multiple reductions per block / ');
  });

  it('the single-row path is kept for large rows (bf16 16384×4096: bdimy 1, no block reduction across threadIdx.y)', () => {
    const { kernel, compiled } = lowerCase(buildLayerNormBackward('BFloat16', 16384, 4096));
    expect(compiled.launch.block[1]).toBe(1);
    expect(blockReducesOverY(kernel.body).length).toBe(0);
  });

  it('rows that bdimy does not divide: the chunk split is predicated, and the kernel simulates like the fusion', () => {
    // 301 rows over 101 blocks of 3 rows each (the last block has 1 row: the rows' split by
    // gdimx is predicated); 540 rows over 132 blocks (one per SM) of ⌈540/132⌉ = 5 rows taken
    // 4 at a time (5 % 4 ≠ 0: the second step of the row loop has 3 idle threadIdx.y rows, which
    // must not take the next block's rows). Larger: inner-outer-rows-block-random.test.ts.
    const c = layerNormCase(buildLayerNormBackward('BFloat16', 301, 16));
    expect(simulateNormwise(c, { bdimy: 3 })).toEqual([2, 3, 1]);
    const d = layerNormCase(buildLayerNormBackward('BFloat16', 540, 8));
    const { compiled } = lowerCase(d, { bdimy: 4, blocksPerSm: 1 });
    expect(compiled.dumps.schedulerParams).toContain('Divisible splits: [true, true, false, false]');
    expect(compiled.launch.grid[0]).toBe(132);
    simulateNormwise(d, { bdimy: 4, blocksPerSm: 1 });
  });

  it('rms_norm backward (one inner and one outer reduction) in Float and Half, several rows per block', () => {
    expect(simulateNormwise(buildRmsNormBackward('Float', 200, 130), { bdimy: 2 })[1]).toBe(2);
    expect(simulateNormwise(buildRmsNormBackward('Half', 97, 40), { bdimy: 8 })[1]).toBe(8);
  });

  it('refuses a bdimy that does not fit a block, and bdimy > 1 with the register prefetch', () => {
    const c = buildLayerNormBackward('BFloat16', 64, 770);
    expect(() => lowerCase(c, { bdimy: 4 })).toThrow(/bdimy 4 is not a row count per block from 1 to 2/);
    expect(() => lowerCase(c, { bdimy: 2, prefetchNextRow: true })).toThrow(/prefetchNextRow needs one row per block/);
  });
});
