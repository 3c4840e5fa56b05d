// Rows per block of the inner-outer persistent scheduler (bdimy; nvFuser's multiple reductions
// per block): the rule (rows-per-block.ts) on its own, the choice per size and dtype for
// layer_norm backward — several rows per block where one row fills at most 256 threads (bf16
// hidden ≤ 2048, Float ≤ 1024), one row per block above, and fewer rows per block when the SMs
// would not each get a block — the scheduler_params dump in nvFuser's words, the divisibility
// of the chunk split, and that a multi-row schedule evaluates like the fusion.
import { describe, expect, it } from 'vitest';
import { evaluate, HostTensor, type DataType } from '@tsfuser/fusion-ir';
import { chooseRowsPerBlock, computeInnerOuterPersistentHeuristics, heuristicParamsToString, makeRuntimeInfo, scheduleInnerOuterPersistent } from '../src/index.js';
import { layerNormBackwardFusion, layerNormBackwardSizes } from './layer-norm-backward-fixture.js';

function heuristics(dtype: DataType, rows: number, hidden: number, overrides = {}) {
  const fusion = layerNormBackwardFusion(dtype, hidden);
  const sizes = layerNormBackwardSizes(rows, hidden);
  const info = makeRuntimeInfo(fusion, sizes.map((s) => ({ sizes: s })));
  return { fusion, sizes, params: computeInnerOuterPersistentHeuristics(fusion, info, overrides) };
}

const base = { rows: 16384, smCount: 132, targetBlockThreads: 512, maxThreadsPerBlock: 1024, prefetchNextRow: false, bulkLoadRowsAsked: false };

describe('inner-outer persistent: rows per block (chooseRowsPerBlock)', () => {
  it('fills the target block with rows of at most 256 threads, in powers of two', () => {
    expect(chooseRowsPerBlock({ ...base, bdimx: 96 })).toBe(4);
    expect(chooseRowsPerBlock({ ...base, bdimx: 128 })).toBe(4);
    expect(chooseRowsPerBlock({ ...base, bdimx: 256 })).toBe(2);
    expect(chooseRowsPerBlock({ ...base, bdimx: 32 })).toBe(16);
    expect(chooseRowsPerBlock({ ...base, bdimx: 288 })).toBe(1);
    expect(chooseRowsPerBlock({ ...base, bdimx: 512 })).toBe(1);
  });

  it('halves bdimy while the SMs could not each take a block of bdimy rows', () => {
    expect(chooseRowsPerBlock({ ...base, bdimx: 96, rows: 528 })).toBe(4);
    expect(chooseRowsPerBlock({ ...base, bdimx: 96, rows: 527 })).toBe(2);
    expect(chooseRowsPerBlock({ ...base, bdimx: 96, rows: 263 })).toBe(1);
    expect(chooseRowsPerBlock({ ...base, bdimx: 96, rows: 527, smCount: 66 })).toBe(4);
  });

  it('one row per block with the register prefetch or asked-for bulk row copies; a forced bdimy is checked, not adjusted', () => {
    expect(chooseRowsPerBlock({ ...base, bdimx: 96, prefetchNextRow: true })).toBe(1);
    expect(chooseRowsPerBlock({ ...base, bdimx: 96, bulkLoadRowsAsked: true })).toBe(1);
    expect(chooseRowsPerBlock({ ...base, bdimx: 96, forced: 3 })).toBe(3);
    expect(() => chooseRowsPerBlock({ ...base, bdimx: 96, forced: 11 })).toThrow(/bdimy 11 is not a row count per block from 1 to 10 \(bdimx 96\)/);
    expect(() => chooseRowsPerBlock({ ...base, bdimx: 96, forced: 0 })).toThrow(/bdimy 0/);
    expect(() => chooseRowsPerBlock({ ...base, bdimx: 96, forced: 2, prefetchNextRow: true })).toThrow(/prefetchNextRow needs one row per block/);
  });
});

describe('inner-outer persistent heuristics: bdimy per size (layer_norm backward, H100)', () => {
  it.each([
    // dtype, rows, hidden, bdimx, bdimy
    ['BFloat16', 1024, 768, 96, 4],
    ['BFloat16', 16384, 768, 96, 4],
    ['BFloat16', 1024, 1024, 128, 4],
    ['BFloat16', 16384, 2048, 256, 2],
    ['BFloat16', 16384, 4096, 512, 1],
    ['BFloat16', 16, 1024, 128, 1],
    ['Float', 16384, 768, 192, 2],
    ['Float', 8192, 1024, 256, 2],
    ['Float', 16384, 2048, 512, 1],
  ] as const)('%s %d×%d: bdimx %d, bdimy %d', (dtype, rows, hidden, bdimx, bdimy) => {
    const { params } = heuristics(dtype, rows, hidden);
    expect([params.lparams.bdimx, params.lparams.bdimy]).toEqual([bdimx, bdimy]);
    expect(params.multipleReductionsPerBlock).toBe(bdimy > 1);
    expect(params.blockDimIterDom).toBe(bdimy > 1 ? 'TIDy' : 'Serial');
    // The persistent grid: every block resident, no block without rows.
    expect(params.lparams.gdimx).toBeLessThanOrEqual(Math.min(132 * params.blocksPerSm, Math.ceil(rows / bdimy)));
    expect(params.blocksPerSm * bdimx * bdimy).toBeLessThanOrEqual(2048);
    expect(params.outerReductionWorkSlots).toBe(params.lparams.gdimx * hidden);
    expect(params.divisibleSplits.length).toBe(bdimy > 1 ? 4 : 3);
    if (bdimy > 1) expect(params.bulkLoadRows).toBe(false);
  });

  it('the scheduler_params dump says threadIdx.y / multiple reductions per block and the outer reduction across threadIdx.y', () => {
    const text = heuristicParamsToString(heuristics('BFloat16', 16384, 768).params);
    expect(text).toContain('Iteration Domain: blockIdx.x / threadIdx.y / multiple reductions per block / serial - 42 rows per block / ');
    expect(text).toContain('Outer Reduction Domain: serial over rows / cross block - threadIdx.y / cross grid - blockIdx.x');
    expect(text).toContain('BlockDim.x = 96, BlockDim.y = 4,');
    const single = heuristicParamsToString(heuristics('BFloat16', 16384, 4096).params);
    expect(single).not.toContain('threadIdx.y');
  });

  it('divisibility of the chunk split by bdimy: 16384 rows over 396 blocks of 42 rows (42 % 4 ≠ 0), 1024 over 256 of 4', () => {
    expect(heuristics('BFloat16', 16384, 768).params.divisibleSplits).toEqual([true, true, false, false]);
    expect(heuristics('BFloat16', 1024, 768).params.divisibleSplits).toEqual([true, true, true, true]);
  });

  it('a multi-row schedule is [BIDx, S, TIDy, TIDx, B, vec] and evaluates like the fusion (Float, 37 rows × 100, bdimy 3)', () => {
    const { fusion, sizes, params } = heuristics('Float', 37, 100, { bdimy: 3 });
    const sf = scheduleInnerOuterPersistent(fusion.clone().fusion, params);
    expect(sf.reference.domain.loop.map((id) => id.parallelType)).toEqual(['BIDx', 'Serial', 'TIDy', 'TIDx', 'Serial', 'Serial']);
    const outer = sf.fusion.exprs().filter((e) => e.kind === 'ReductionOp').map((e) => e.outputs[0]).filter((o) => o !== undefined && o.kind === 'tensorView' && o.domain.loop[0]?.isReduction() === true);
    expect(outer.length).toBe(2);
    for (const o of outer) if (o?.kind === 'tensorView') expect(o.domain.loop.map((id) => id.isReduction())).toEqual([true, true, true, false, false, false]);
    let state = 12345;
    const rand = (): number => ((state = (state * 1103515245 + 12345) % 2 ** 31) / 2 ** 31 - 0.5) * 4;
    const inputs = sizes.map((s) => HostTensor.fromValues('Float', s, Array.from({ length: s.reduce((a, b) => a * b, 1) }, rand)));
    const want = evaluate(fusion, inputs) as HostTensor[];
    const got = evaluate(sf.fusion, inputs) as HostTensor[];
    want.forEach((w, o) => {
      const g = (got[o] as HostTensor).toNumbers();
      w.toNumbers().forEach((v, k) => expect(Math.abs((g[k] as number) - v)).toBeLessThanOrEqual(1e-9 * Math.max(1, Math.abs(v))));
    });
  });
});
