// LoweringOptions: the scheduled fusion that `schedule()` returns carries what codegen's lowering
// decides (vectorize factor, passes, work buffers, shared memory, blocks per SM, index type),
// computed by the scheduler from the parameters it scheduled with; one fixture per kernel
// scheduler the default registry picks for it.
import { describe, expect, it } from 'vitest';
import { add, cumsum, Fusion, makeTensor, mul, permute, softmax, sum, type TensorView } from '@tsfuser/fusion-ir';
import { defaultSchedulerRegistry, loweringOptionsOf, makeRuntimeInfo, type LoopNestLoweringOptions, type ScheduledFusion } from '../src/index.js';

function scheduledOf(build: (f: Fusion, x: TensorView) => TensorView, sizes: number[]): ScheduledFusion {
  const f = new Fusion();
  const x = makeTensor(f, { shape: sizes.map(() => -1) });
  f.addInput(x);
  f.addOutput(build(f, x));
  const info = makeRuntimeInfo(f, [{ sizes }]);
  const { scheduler, analysis } = defaultSchedulerRegistry().pick(f, info);
  scheduler.computeHeuristics(f, info, analysis);
  return analysis.scheduled(scheduler);
}

function loopNest(s: ScheduledFusion): LoopNestLoweringOptions {
  if (s.lowering.kind !== 'loopNest') throw new Error(`expected loop-nest options, got ${s.lowering.kind}`);
  return s.lowering;
}

describe('LoweringOptions carried by the scheduled fusion', () => {
  it('pointwise: its vectorization factor, evict-last inputs and unrolled-loads-first; no grid buffers', () => {
    const s = scheduledOf((_f, x) => add(x, x), [1024, 4096]);
    expect(s.params.schedulerType).toBe('pointwise');
    if (s.params.schedulerType !== 'pointwise') return;
    const o = loopNest(s);
    expect(o.vectorizeFactor).toBe(s.params.vectorizationFactor);
    expect(o.vectorizeFactor).toBeGreaterThan(1);
    expect(o.passes.evictLastInputs).toEqual(s.params.evictLastInputs);
    expect(o.passes.unrolledLoadsFirst).toBe(true);
    expect(o.passes.transposeSmemTile).toBeNull();
    expect(o.gridReductionBuffers).toBeNull();
    expect(o.gridOuterBuffers).toBeNull();
    expect(o.minBlocksPerSm).toBeNull();
    expect(o.indexType).toBe(s.params.indexType);
    expect(s.lowering).toEqual(loweringOptionsOf(s.params));
  });

  it('inner persistent: minimum shared memory, its row passes, bulk loads only for divisible rows', () => {
    const s = scheduledOf((_f, x) => softmax(x, 1), [1024, 4096]);
    expect(s.params.schedulerType).toBe('inner_persistent');
    if (s.params.schedulerType !== 'inner_persistent') return;
    const p = s.params;
    const o = loopNest(s);
    expect(o.minSharedMemBytes).toBe(p.minSharedMemBytes);
    expect(o.passes.hoistRowParams).toBe(p.hoistRowParamLoads);
    expect(o.passes.singleBarrierAllreduce).toBe(p.singleBarrierAllreduce);
    expect(o.passes.evictLastRowParams).toBe(p.evictLastRowParams);
    expect(o.passes.bulkRowLoads).toEqual(p.bulkLoadRows && p.divisibleSplits[0] === true ? { rowCapacity: p.batchesPerBlockInnerReduction * p.lparams.bdimx * p.unrollFactorInnerReduction } : null);
    expect(o.passes.unrolledLoadsFirst).toBe(false);
    expect(o.passes.groupAllreduce).toBe(false);
    expect(o.vectorizeFactor).toBe(p.vectorizeInnerReduction ? p.unrollFactorInnerReduction : 1);
  });

  it('reduction: the grid reduction buffers sized by the heuristics; no persistent passes', () => {
    const s = scheduledOf((_f, x) => sum(x, [0]), [1 << 20, 4]);
    expect(s.params.schedulerType).toBe('reduction');
    if (s.params.schedulerType !== 'reduction') return;
    const o = loopNest(s);
    expect(o.gridReductionBuffers).toEqual({ workSlots: s.params.gridReductionWorkSlots, semaphores: s.params.gridReductionSemaphores });
    expect(o.gridOuterBuffers).toBeNull();
    expect(o.minSharedMemBytes).toBe(0);
    expect(Object.values(o.passes).filter((v) => v === true || (v !== null && v !== false && !(Array.isArray(v) && v.length === 0)))).toEqual([]);
  });

  it('transpose: the tile geometry and the staged inputs when the second group is staged', () => {
    const s = scheduledOf((_f, x) => mul(permute(add(x, 1), [1, 0]), 2), [4096, 4096]);
    expect(s.params.schedulerType).toBe('transpose');
    if (s.params.schedulerType !== 'transpose') return;
    const p = s.params;
    const o = loopNest(s);
    expect(o.vectorizeFactor).toBe(Math.max(p.vectorizeFactor1, p.vectorizeFactor2));
    expect(o.passes.transposeSmemTile).toEqual(
      p.group2Inputs.length > 0 ? { tile1: p.tileSize1, tile2: p.tileSize2, vector1: p.vectorizeFactor1, vector2: p.vectorizeFactor2, threads: p.lparams.bdimx, stagedInputs: p.group2Inputs } : null,
    );
    expect(o.passes.transposeSmemTile?.stagedInputs).toEqual([0]);
    expect(o.passes.unrolledLoadsFirst).toBe(false);
  });

  it('greedy: no loop nest, the parameters themselves', () => {
    const s = scheduledOf((_f, x) => cumsum(x, 1), [64, 1000]);
    expect(s.params.schedulerType).toBe('greedy');
    expect(s.lowering.kind).toBe('greedy');
    if (s.lowering.kind === 'greedy') expect(s.lowering.params === s.params).toBe(true);
  });
});
