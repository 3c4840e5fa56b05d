// The inner-outer persistent scheduler on layer_norm backward: canSchedule (and its refusals),
// heuristics (params and their scheduler_params dump, golden), the schedule's loop structure
// (reference, outer reductions at [rBIDx, rS, TIDx, B, vec]), that a scheduled fusion
// evaluates like the unscheduled one, and segmentation picking it as one segment.
import { describe, expect, it } from 'vitest';
import { fileURLToPath } from 'node:url';
import { add, broadcast, checkGolden, evaluate, Fusion, HostTensor, makeTensor, mul, printFusion, sub, sum, type DataType } from '@tsfuser/fusion-ir';
import {
  canScheduleInnerOuterPersistent, defaultSchedulerRegistry, fusionIrSegmentsToString, segmentFusion, segmentedFusionToString, computeInnerOuterPersistentHeuristics, H100_PROPERTIES, heuristicParamsToString, makeRuntimeInfo,
  InnerOuterPersistentScheduler, scheduleInnerOuterPersistent,
} from '../src/index.js';
import { layerNormBackwardFusion, layerNormBackwardSizes } from './layer-norm-backward-fixture.js';

const dir = fileURLToPath(new URL('../../../test-fixtures/golden/scheduler/', import.meta.url));

function randomInput(dtype: DataType, sizes: number[]): HostTensor {
  const n = sizes.reduce((a, b) => a * b, 1);
  return HostTensor.fromValues(dtype, sizes, Array.from({ length: n }, () => (Math.random() - 0.5) * 4));
}

function lnBackward(dtype: DataType, rows: number, hidden: number) {
  const fusion = layerNormBackwardFusion(dtype, hidden);
  const sizes = layerNormBackwardSizes(rows, hidden);
  const info = makeRuntimeInfo(fusion, sizes.map((s) => ({ sizes: s })));
  return { fusion, sizes, info };
}

/** The scheduled fusion evaluates like the fusion on fresh random Float inputs of `sizes`. */
function expectEvaluatesLike(fusion: Fusion, scheduled: Fusion, sizes: number[][]): void {
  const inputs = sizes.map((s) => randomInput('Float', s));
  const want = evaluate(fusion, inputs) as HostTensor[];
  const got = evaluate(scheduled, inputs) as HostTensor[];
  want.forEach((w, o) => {
    const g = (got[o] as HostTensor).toNumbers();
    w.toNumbers().forEach((v, k) => expect(Math.abs((g[k] as number) - v)).toBeLessThanOrEqual(1e-9 * Math.max(1, Math.abs(v))));
  });
}

describe('inner-outer persistent scheduler', () => {
  it('schedules layer_norm backward; the scheduled fusion evaluates like the fusion', () => {
    const { fusion, sizes, info } = lnBackward('Float', 37, 100);
    expect(canScheduleInnerOuterPersistent(fusion, info)).toEqual({ ok: true });
    const params = computeInnerOuterPersistentHeuristics(fusion, info);
    const sf = scheduleInnerOuterPersistent(fusion.clone().fusion, params);
    // Outer reductions read [rBIDx, rS, TIDx, B, vec]; the reference is [BIDx, S, TIDx, B, vec].
    expect(sf.reference.domain.loop.map((id) => id.parallelType)).toEqual(['BIDx', 'Serial', 'TIDx', 'Serial', 'Serial']);
    const outer = sf.fusion.exprs().filter((e) => e.kind === 'ReductionOp').map((e) => e.outputs[0]).filter((o) => o !== undefined && o.kind === 'tensorView' && o.domain.loop[0]?.isReduction() === true);
    expect(outer.length).toBe(2);
    expect(printFusion(sf.fusion)).toContain('rblockIdx.x');
    expectEvaluatesLike(fusion, sf.fusion, sizes);
  });

  it('projects persistent buffers through expands too (broadcast_in_dim with a shape): same params, same values', () => {
    const plain = lnBackward('BFloat16', 16384, 4096);
    const fusion = layerNormBackwardFusion('BFloat16', 4096, true);
    expect(fusion.exprs().filter((e) => e.kind === 'ExpandOp').length).toBe(5);
    const info = makeRuntimeInfo(fusion, plain.sizes.map((s) => ({ sizes: s })));
    const params = computeInnerOuterPersistentHeuristics(fusion, info);
    expect(params.projectPersistentBuffers).toBe(true);
    expect(heuristicParamsToString(params)).toBe(heuristicParamsToString(computeInnerOuterPersistentHeuristics(plain.fusion, plain.info)));
    const sizes = layerNormBackwardSizes(37, 100);
    const small = layerNormBackwardFusion('Float', 100, true);
    const smallInfo = makeRuntimeInfo(small, sizes.map((s) => ({ sizes: s })));
    const sf = scheduleInnerOuterPersistent(small.clone().fusion, computeInnerOuterPersistentHeuristics(small, smallInfo));
    expectEvaluatesLike(small, sf.fusion, sizes);
  });

  it('scheduler_params of layer_norm backward (golden): BFloat16 16384×4096 and Half 600×258', () => {
    const text = [lnBackward('BFloat16', 16384, 4096), lnBackward('Half', 600, 258)]
      .map(({ fusion, info }) => heuristicParamsToString(computeInnerOuterPersistentHeuristics(fusion, info)))
      .join('');
    expect(checkGolden(text, `${dir}layer_norm_backward.scheduler_params.txt`, process.env.UPDATE_GOLDEN === '1').diff).toBe('');
  });

  it('bulkLoadRows: on by default for 16-bit rows of 16-byte vectors on sm_90+, off for Float; never with prefetchNextRow or before sm_90; the dump says so', () => {
    const { fusion, info } = lnBackward('BFloat16', 16384, 4096);
    const bulk = computeInnerOuterPersistentHeuristics(fusion, info);
    expect(bulk.bulkLoadRows).toBe(true);
    expect(computeInnerOuterPersistentHeuristics(lnBackward('Half', 16384, 4096).fusion, lnBackward('Half', 16384, 4096).info).bulkLoadRows).toBe(true);
    const plain = computeInnerOuterPersistentHeuristics(fusion, info, { bulkLoadRows: false });
    expect(plain.bulkLoadRows).toBe(false);
    // The copies cost no registers: the same block shape and residency as without them.
    expect([bulk.lparams.bdimx, bulk.batchesPerBlockInnerReduction, bulk.blocksPerSm]).toEqual([plain.lparams.bdimx, plain.batchesPerBlockInnerReduction, plain.blocksPerSm]);
    expect(heuristicParamsToString(bulk)).toContain("Rows copied to shared memory with cp.async.bulk (the next row's copy in flight during this row)");
    expect(heuristicParamsToString(plain)).not.toContain('cp.async.bulk');
    // Float rows: measured even, so off unless asked for.
    const f32 = lnBackward('Float', 16384, 4096);
    expect(computeInnerOuterPersistentHeuristics(f32.fusion, f32.info).bulkLoadRows).toBe(false);
    expect(computeInnerOuterPersistentHeuristics(f32.fusion, f32.info, { bulkLoadRows: true }).bulkLoadRows).toBe(true);
    // Rows the 16-byte vector does not divide (258 bf16: 4-byte vectors) keep global loads.
    const odd = lnBackward('BFloat16', 600, 258);
    expect(computeInnerOuterPersistentHeuristics(odd.fusion, odd.info).bulkLoadRows).toBe(false);
    expect(computeInnerOuterPersistentHeuristics(fusion, info, { prefetchNextRow: true }).bulkLoadRows).toBe(false);
    expect(computeInnerOuterPersistentHeuristics(fusion, info, { bulkLoadRows: true, prefetchNextRow: true }).bulkLoadRows).toBe(false);
    const a100 = makeRuntimeInfo(fusion, layerNormBackwardSizes(16384, 4096).map((s) => ({ sizes: s })), { ...H100_PROPERTIES, name: 'A100', computeCapability: [8, 0] });
    expect(computeInnerOuterPersistentHeuristics(fusion, a100).bulkLoadRows).toBe(false);
    expect(computeInnerOuterPersistentHeuristics(fusion, a100, { bulkLoadRows: true }).bulkLoadRows).toBe(false);
  });

  it('the persistent grid fits the device: gdimx ≤ SMs × blocks per SM, each block ≤ 1024 threads', () => {
    for (const [n, h] of [[1, 1], [7, 33], [100000, 1024], [2048, 16384]] as const) {
      const { fusion, info } = lnBackward('BFloat16', n, h);
      const p = computeInnerOuterPersistentHeuristics(fusion, info);
      expect(p.lparams.gdimx).toBeLessThanOrEqual(Math.min(n, H100_PROPERTIES.smCount * p.blocksPerSm));
      expect(p.lparams.bdimx).toBeLessThanOrEqual(1024);
      expect(p.rowsPerBlock * p.lparams.gdimx).toBeGreaterThanOrEqual(n);
    }
  });

  it('refuses, with the reason, a row over the register budget (segmentation takes over)', () => {
    const { fusion, info } = lnBackward('Float', 64, 65536);
    const r = canScheduleInnerOuterPersistent(fusion, info);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.reason).toMatch(/register|budget|bytes/);
  });

  it('refuses an output over an unrelated [N, H] input (a disjoint iteration domain), with the reason', () => {
    // The codegen random test's seed 150524777: T6 = w² + x0 beside a max-exp-max fusion of x1.
    const f = new Fusion();
    const x0 = makeTensor(f, { shape: [-1, -1] });
    const x1 = makeTensor(f, { shape: [-1, -1] });
    const w = makeTensor(f, { shape: [-1] });
    for (const t of [x0, x1, w]) f.addInput(t);
    const wb = broadcast(w, [true, false]);
    const g = mul(x1, wb);
    const y = sub(g, broadcast(sum(g, [1]), [false, true]));
    f.addOutput(y);
    f.addOutput(sum(y, [0]));
    f.addOutput(add(wb, x0));
    const ri = makeRuntimeInfo(f, [[161, 253], [161, 253], [253]].map((sz) => ({ sizes: sz })));
    const res = canScheduleInnerOuterPersistent(f, ri);
    expect(res.ok).toBe(false);
    if (!res.ok) expect(res.reason).toMatch(/disjoint iteration domain/);
  });

  it('refuses inner-only and outer-only normalizations and an outer result used after the reduction', () => {
    const f = new Fusion();
    const x = makeTensor(f, { shape: [-1, -1] });
    f.addInput(x);
    const y = mul(x, broadcast(sum(x, [1]), [false, true]));
    f.addOutput(y);
    f.addOutput(add(sum(mul(y, x), [0]), 1));
    const info = makeRuntimeInfo(f, [{ sizes: [128, 64] }]);
    const r = canScheduleInnerOuterPersistent(f, info);
    expect(r).toEqual({ ok: false, reason: expect.stringContaining('only casts / copies / a keepdim broadcast to an output are supported') as unknown as string });
    const { fusion: inner, info: innerInfo } = (() => {
      const g = new Fusion();
      const t = makeTensor(g, { shape: [-1, -1] });
      g.addInput(t);
      g.addOutput(sub(t, broadcast(sum(t, [1]), [false, true])));
      return { fusion: g, info: makeRuntimeInfo(g, [{ sizes: [8, 8] }]) };
    })();
    const ri = canScheduleInnerOuterPersistent(inner, innerInfo);
    expect(ri.ok).toBe(false);
    if (!ri.ok) expect(ri.reason).toContain('that is inner_persistent');
  });

  it('segmentation with the default registry: layer_norm backward is one inner_outer_persistent segment (golden); an oversize row falls back', () => {
    const { fusion, info } = lnBackward('BFloat16', 16384, 4096);
    const sf = segmentFusion(fusion, info, defaultSchedulerRegistry());
    expect(sf.groups.map((g) => g.schedulerType)).toEqual(['inner_outer_persistent']);
    const text = segmentedFusionToString(sf) + fusionIrSegmentsToString(sf);
    expect(checkGolden(text, `${dir}layer_norm_backward.segmented_fusion.txt`, process.env.UPDATE_GOLDEN === '1').diff).toBe('');
    const big = lnBackward('Float', 64, 65536);
    const fallback = segmentFusion(big.fusion, big.info, defaultSchedulerRegistry());
    expect(fallback.groups.length).toBeGreaterThan(1);
    expect(fallback.groups.every((g) => g.schedulerType !== 'inner_outer_persistent')).toBe(true);
  });

  it('the occupancy hook: forResidentBlocks holds the heuristics to the driver\'s blocks per SM and keeps the other overrides', () => {
    const { fusion, info } = lnBackward('BFloat16', 16384, 4096);
    const base = new InnerOuterPersistentScheduler({ prefetchNextRow: true });
    const before = base.computeHeuristics(fusion, info);
    const held = base.forResidentBlocks(1);
    if (held === null) throw new Error('no rescheduling scheduler');
    const p = held.computeHeuristics(fusion, info);
    expect(p.blocksPerSm).toBe(1);
    expect(p.lparams.gdimx).toBeLessThanOrEqual(H100_PROPERTIES.smCount);
    expect(before.blocksPerSm).toBeGreaterThan(1);
    expect(p.prefetchNextRow).toBe(before.prefetchNextRow);
    expect(base.forResidentBlocks(0)).toBeNull();
    // Only a scheduler whose kernels synchronize the grid has the hook.
    expect(defaultSchedulerRegistry().schedulers.filter((s) => s.forResidentBlocks !== undefined).map((s) => s.type)).toEqual(['inner_outer_persistent']);
  });
});
