// Inner persistent scheduler on a persistent grid (InnerPersistentOverrides.blocksPerSm): the
// launch (gdimx = min(rows, smCount · blocksPerSm), one row per block at a time), rows per block,
// the divisibility of the rows' split, the dump, the lowering options it states (row prefetch,
// pipelined instead of single-row bulk copies), the refusals of what cannot be launched, and that
// the scheduled fusion evaluates exactly like the unscheduled one.
import { describe, expect, it } from 'vitest';
import { evaluate, Fusion, HostTensor, layerNorm, makeTensor, type TensorView } from '@tsfuser/fusion-ir';
import { heuristicParamsToString, InnerPersistentScheduler, loweringOptionsOf, makeRuntimeInfo, type InnerPersistentOverrides, type InnerPersistentParams } from '../src/index.js';

function layerNormFusion(): Fusion {
  const f = new Fusion();
  const x = makeTensor(f, { shape: [-1, -1], dtype: 'Float' });
  const w = makeTensor(f, { shape: [-1], dtype: 'Float' });
  const b = makeTensor(f, { shape: [-1], dtype: 'Float' });
  f.addInput(x);
  f.addInput(w);
  f.addInput(b);
  f.addOutput(layerNorm(x, 1, w, b).output);
  return f;
}

function heuristics(rows: number, cols: number, overrides: InnerPersistentOverrides): InnerPersistentParams {
  const f = layerNormFusion();
  return new InnerPersistentScheduler(overrides).computeHeuristics(f, makeRuntimeInfo(f, [{ sizes: [rows, cols] }, { sizes: [cols] }, { sizes: [cols] }]));
}

describe('inner persistent heuristics: persistent grid', () => {
  it('16384×4096 f32 at 4 blocks per SM: 528 blocks of 256 threads, 32 rows each (the last blocks fewer), no TIDy', () => {
    const p = heuristics(16384, 4096, { blocksPerSm: 4, prefetchNextRow: true, bulkLoadRows: false });
    expect(p.lparams).toMatchObject({ gdimx: 528, bdimx: 256, bdimy: 1 });
    expect(p.rowsPerBlock).toBe(32);
    expect(p.divisibleSplits).toEqual([true, true, false]); // 16384 = 31.03 · 528
    expect(p.blockDimIterDom).toBe('Serial');
    const dump = heuristicParamsToString(p);
    expect(dump).toContain('Iteration Domain: blockIdx.x / serial - 32 rows per block / ');
    expect(dump).toContain('Persistent grid: 4 blocks per SM');
    expect(dump).toContain('Circular buffer: 2 stages over the row loop');
  });

  it('rows that divide among the blocks, and fewer rows than blocks (one row each)', () => {
    expect(heuristics(1056, 4096, { blocksPerSm: 4 }).divisibleSplits[2]).toBe(true);
    const few = heuristics(100, 4096, { blocksPerSm: 4 });
    expect(few.lparams.gdimx).toBe(100);
    expect(few.rowsPerBlock).toBe(1);
  });

  it('without a persistent grid nothing changes: one row per block, no row loop in the dump', () => {
    const p = heuristics(16384, 4096, {});
    expect(p.blocksPerSm).toBe(0);
    expect(p.rowsPerBlock).toBe(1);
    expect(p.lparams.gdimx).toBe(16384);
    expect(heuristicParamsToString(p)).not.toContain('rows per block');
  });

  it('states its lowering: row prefetch; bulk copies pipelined over the row loop, not the single-row pass', () => {
    const pf = loweringOptionsOf(heuristics(16384, 4096, { blocksPerSm: 2, prefetchNextRow: true, bulkLoadRows: false }));
    expect(pf.kind === 'loopNest' && pf.passes.rowPrefetch).toBe(true);
    const bulk = loweringOptionsOf(heuristics(16384, 4096, { blocksPerSm: 3, bulkLoadRows: true }));
    expect(bulk.kind === 'loopNest' ? [bulk.passes.bulkRowLoads, bulk.passes.bulkRowPipeline] : null).toEqual([null, { rowCapacity: 4096 }]);
    const single = loweringOptionsOf(heuristics(16384, 4096, { bulkLoadRows: true }));
    expect(single.kind === 'loopNest' ? [single.passes.bulkRowLoads, single.passes.bulkRowPipeline] : null).toEqual([{ rowCapacity: 4096 }, null]);
  });

  it('refuses what it cannot launch, naming the override', () => {
    const f = layerNormFusion();
    const ri = makeRuntimeInfo(f, [{ sizes: [64, 1000] }, { sizes: [1000] }, { sizes: [1000] }]);
    const refusal = (o: InnerPersistentOverrides): string => {
      const r = new InnerPersistentScheduler(o).canSchedule(f, ri);
      return r.ok ? 'accepted' : r.reason;
    };
    expect(refusal({ prefetchNextRow: true })).toMatch(/prefetchNextRow needs a persistent grid/);
    expect(refusal({ blocksPerSm: 2, bdimy: 2 })).toMatch(/walks one row at a time, not bdimy 2/);
    expect(refusal({ blocksPerSm: 2, prefetchNextRow: true, bulkLoadRows: true })).toMatch(/two circular buffers/);
    expect(refusal({ blocksPerSm: -1 })).toMatch(/blocksPerSm -1/);
    expect(refusal({ blocksPerSm: 2, prefetchNextRow: true })).toBe('accepted');
  });

  it('the scheduled fusion evaluates exactly like the one-row-per-block schedule (both with Welford translated to sums)', () => {
    const f = layerNormFusion();
    const ri = makeRuntimeInfo(f, [{ sizes: [37, 100] }, { sizes: [100] }, { sizes: [100] }]);
    const values = (n: number, k: number): number[] => Array.from({ length: n }, (_, i) => Math.sin(i * 0.37 + k) * 3);
    const inputs = [HostTensor.fromValues('Float', [37, 100], values(3700, 1)), HostTensor.fromValues('Float', [100], values(100, 2)), HostTensor.fromValues('Float', [100], values(100, 3))];
    const run = (o: InnerPersistentOverrides): number[] => {
      const s = new InnerPersistentScheduler(o);
      const scheduled = s.schedule(f.clone().fusion, s.computeHeuristics(f, ri));
      expect((scheduled.fusion.outputs[0] as TensorView).nDims()).toBe(5);
      return (evaluate(scheduled.fusion, inputs)[0] as HostTensor).toNumbers();
    };
    const want = (evaluate(f, inputs)[0] as HostTensor).toNumbers();
    const grid = run({ blocksPerSm: 2, prefetchNextRow: true });
    expect(grid).toEqual(run({}));
    grid.forEach((y, k) => expect(Math.abs(y - (want[k] as number))).toBeLessThan(1e-5));
  });
});
